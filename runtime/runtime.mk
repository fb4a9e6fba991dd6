# The runtime: freestanding core (RT_OBJS) and host-only helpers (RT_HOST_OBJS).
# Every runtime source includes tg_fp.h first, so no compiler fuses a*b+c into
# an FMA whatever the flags: the numerics are bit-identical on every host and
# target (suite numerics-flags, tests/tests.mk).
# Suites: dtype, alu, math (cmocka), freestanding (gcc+clang -ffreestanding
# -nostdlib -std=c99 and `nm -u` ⊆ {memcpy, memset}); bench: rt (ulp table).
RT_SRCS := runtime/tg_core.c runtime/tg_dtype.c runtime/tg_math.c runtime/tg_alu.c
RT_HOST_SRCS := runtime/host/tg_npy.c
RT_OBJS += $(RT_SRCS:%.c=$(BUILD)/%.o)
RT_HOST_OBJS := $(RT_HOST_SRCS:%.c=$(BUILD)/%.o)

RT_FPFLAGS = -ffp-contract=off

# Unit tests of the numerics core (tests may use libm; the runtime may not).
RT_NUM_OBJS := $(BUILD)/runtime/tg_dtype.o $(BUILD)/runtime/tg_math.o $(BUILD)/runtime/tg_alu.o
RT_TESTS := dtype alu math
$(foreach t,$(RT_TESTS),$(eval $(BUILD)/tests/unit/test_$(t).o: CFLAGS += $(RT_FPFLAGS)))

$(BIN)/test_dtype $(BIN)/test_alu $(BIN)/test_math: $(BIN)/test_%: $(BUILD)/tests/unit/test_%.o $(RT_NUM_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) $^ -o $@ $(CMOCKA_LIBS) -lm

$(BIN)/ulp_measure: $(BUILD)/tools/ulp_measure.o $(RT_NUM_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) $^ -o $@ -lm

SUITES += dtype alu math freestanding
TEST_DEPS += $(BIN)/test_dtype $(BIN)/test_alu $(BIN)/test_math
.PHONY: suite-dtype suite-alu suite-math suite-freestanding bench-rt
suite-dtype: $(BIN)/test_dtype
	@tests/cmocka_count.sh $(BIN)/test_dtype
suite-alu: $(BIN)/test_alu
	@tests/cmocka_count.sh $(BIN)/test_alu
suite-math: $(BIN)/test_math
	@tests/cmocka_count.sh $(BIN)/test_math

# Freestanding proof: every runtime source with gcc and clang, strict C99, no
# hosted library; the only undefined symbols allowed are memcpy and memset.
RT_FREESTANDING_CCS ?= gcc clang
RT_FREESTANDING_FLAGS = -std=c99 -ffreestanding -nostdlib -Wall -Wextra -Wpedantic \
  -Werror -Wshadow -Wundef $(RT_FPFLAGS) -Iruntime
suite-freestanding:
	@d=$(BUILD)/freestanding; mkdir -p $$d; p=0; f=0; \
	for cc in $(RT_FREESTANDING_CCS); do for opt in -O0 -O2; do objs=; \
	  for s in $(RT_SRCS); do o=$$d/$$cc$$opt-$$(basename $$s .c).o; \
	    if $$cc $(RT_FREESTANDING_FLAGS) $$opt -c $$s -o $$o; then \
	      echo "[       OK ] $$cc $$opt $$s compiles freestanding"; p=$$((p+1)); objs="$$objs $$o"; \
	    else echo "[  FAILED  ] $$cc $$opt $$s: does not compile freestanding"; f=$$((f+1)); fi; \
	  done; \
	  bad="(ld -r failed)"; ld -r -o $$d/$$cc$$opt-all.o $$objs && \
	  bad=$$(nm -u $$d/$$cc$$opt-all.o | awk '{print $$NF}' | grep -v -x -e memcpy -e memset | tr '\n' ' '); \
	  if [ -z "$$bad" ]; then echo "[       OK ] $$cc $$opt nm -u within {memcpy, memset}"; p=$$((p+1)); \
	  else echo "[  FAILED  ] $$cc $$opt undefined symbols: $$bad"; f=$$((f+1)); fi; \
	done; done; \
	printf 'float sinf(float);\nfloat g(float x) { return sinf(x); }\n' > $$d/canary.c; \
	gcc -std=c99 -ffreestanding -O2 -c $$d/canary.c -o $$d/canary.o; \
	if nm -u $$d/canary.o | grep -q -x -e ' *U sinf'; then echo "[       OK ] checker flags a libm call"; p=$$((p+1)); \
	else echo "[  FAILED  ] checker misses a libm call"; f=$$((f+1)); fi; \
	echo "$$p passed, $$f failed"

# The accuracy table of every activation function (docs/numerics.md).
BENCHES += rt
bench-rt: $(BIN)/ulp_measure
	@$(BIN)/ulp_measure

# Grid programs on host threads (runtime/host/tg_threads.c, POSIX threads; not
# in RT_HOST_SRCS: bin/tilegen does not link it). Suite grid-threads
# (tests/numerics/grid_threads.sh: the grid kernels on 1, 2, 3 threads bit for
# bit, failing programs, ThreadSanitizer); bench grid-threads: the grid
# kernels of bench/specs (grid_*_bench.yaml) on one and on two threads (best of 5) and the speedup.
GRID_THREADS_KERNELS ?= grid_blocks grid_rows grid_mm
SUITES += grid-threads
BENCHES += grid-threads
.PHONY: suite-grid-threads bench-grid-threads
suite-grid-threads: $(TILEGEN)
	@TILEGEN=$(TILEGEN) CC="$(CC) $(SAN)" BUILD=$(BUILD) tests/numerics/grid_threads.sh $(GRID_THREADS_KERNELS)
# The bundled kernels with programs (a grid, or independent iterations of their
# last loop: gen/emit_progs.h), as generated/ holds them, on 1, 2, 3 threads bit
# for bit. cross_entropy is left out: the harness's random targets are not
# valid indices (the kernel returns TG_EBOUNDS).
PROGRAM_KERNELS = $(filter-out cross_entropy,$(patsubst generated/%.h,%,$(shell grep -l \
                    -e '^/\* Programs: the' -e '^/\* The SPMD grid' generated/*.h)))
SUITES += programs-threads
.PHONY: suite-programs-threads
suite-programs-threads: $(TILEGEN)
	@TILEGEN=$(TILEGEN) CC="$(CC) $(SAN)" BUILD=$(BUILD)/programs GEN_DIR=generated \
	  tests/numerics/grid_threads.sh $(PROGRAM_KERNELS)
bench-grid-threads: $(TILEGEN)
	@echo "bench-grid-threads: a grid kernel's programs on 1 and 2 host threads (tg_threads.h, best of 5)"
	@TILEGEN=$(TILEGEN) CC="$(CC)" BUILD=$(BUILD) SPECS=bench/specs BENCH=5 \
	  tests/numerics/grid_threads.sh grid_mm_bench grid_norm_bench
