# The instruction-set simulator (runtime/tg_iss.*: instructions and
# scheduler; runtime/tg_iss_row.*: the per-row kernels): executes the binary
# program embedded in a generated kernel. Included by the top-level Makefile
# after runtime.mk and ops.mk. Suites: iss (cmocka, hand-built programs),
# iss-freestanding (gcc+clang -std=c99 -ffreestanding -nostdlib, `nm -u` ⊆
# {memcpy, memset} ∪ the runtime), iss-agree (every spec: ISS bit-identical to
# the C simulation, tests/numerics/iss_check.sh); bench: iss.
ISS_SRCS := runtime/tg_iss.c runtime/tg_iss_row.c
ISS_OBJS := $(ISS_SRCS:%.c=$(BUILD)/%.o)
RT_OBJS += $(ISS_OBJS)

$(BUILD)/tests/unit/test_iss.o: CFLAGS += -ffp-contract=off

# tg_prog.o (the decoder) is the assembler module's; listed here so the test
# links whether or not its fragment is included yet ($^ drops duplicates).
ISS_DEPS := $(ISS_OBJS) $(BUILD)/runtime/tg_prog.o $(BUILD)/runtime/tg_core.o $(OPS_DEPS)

$(BIN)/test_iss: $(BUILD)/tests/unit/test_iss.o $(ISS_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) $^ -o $@ $(CMOCKA_LIBS) -lm

SUITES += iss iss-freestanding
TEST_DEPS += $(BIN)/test_iss
.PHONY: suite-iss suite-iss-freestanding
suite-iss: $(BIN)/test_iss
	@tests/cmocka_count.sh $(BIN)/test_iss

# Freestanding proof for the ISS sources and the decoder they need, as ops.mk
# does for tg_ops.c: an undefined symbol must be memcpy, memset or defined by
# the runtime or ISS sources (built the same way).
ISS_FS_USES := runtime/tg_dtype.c runtime/tg_math.c runtime/tg_alu.c runtime/tg_ops.c runtime/tg_core.c \
               runtime/tg_prog.c
ISS_FS_FLAGS = -std=c99 -ffreestanding -nostdlib -Wall -Wextra -Wpedantic -Werror -Wshadow -Wundef -O2 \
               -ffp-contract=off -Iruntime
suite-iss-freestanding:
	@d=$(BUILD)/iss-fs; mkdir -p $$d; p=0; f=0; \
	for cc in gcc clang; do \
	  : > $$d/$$cc.defs; \
	  for u in $(ISS_FS_USES) $(ISS_SRCS); do \
	    $$cc $(ISS_FS_FLAGS) -c $$u -o $$d/$$cc-dep.o && \
	    nm --defined-only $$d/$$cc-dep.o | awk '{print $$NF}' >> $$d/$$cc.defs; \
	  done; \
	  for src in $(ISS_SRCS); do \
	    obj=$$d/$$cc-$$(basename $$src .c).o; \
	    if ! $$cc $(ISS_FS_FLAGS) -c $$src -o $$obj; then \
	      echo "FAIL: $$cc $$src does not build freestanding"; f=$$((f+1)); continue; fi; \
	    bad=$$(nm -u $$obj | awk '{print $$NF}' | grep -vxF -f $$d/$$cc.defs | grep -vxE 'memcpy|memset'); \
	    if [ -n "$$bad" ]; then echo "FAIL: $$cc $$src needs: $$bad"; f=$$((f+1)); \
	    else echo "ok: $$cc $$src freestanding"; p=$$((p+1)); fi; \
	  done; \
	done; \
	echo "$$p passed, $$f failed"

# libFuzzer over the ISS's contract (docs/iss.md): fuzz-iss decodes arbitrary
# bytes (size and checksum fixed up) and runs what decodes on the ISS and the
# timing model with a small budget; fuzz-prog-mut mutates 1-3 trusted fields
# of the bundled kernels' programs (tests/fuzz/corpus_prog/, reassemble with
# `tilegen asm generated/K.s`) and runs them the same way. Smoke runs: a
# fixed seed and run count; exploratory: FUZZ_SECONDS=600 make suite-fuzz-iss.
FUZZ_PROG_SRCS = runtime/tg_prog.c runtime/tg_iss.c runtime/tg_iss_row.c runtime/tg_cost.c runtime/tg_cost_rules.c \
                 runtime/tg_cost_table.c runtime/tg_core.c runtime/tg_ops.c runtime/tg_dtype.c runtime/tg_math.c \
                 runtime/tg_alu.c
FUZZ_ISS = $(BUILD)/fuzz/fuzz_iss
FUZZ_PROG_MUT = $(BUILD)/fuzz/fuzz_prog_mut
$(FUZZ_ISS) $(FUZZ_PROG_MUT): $(BUILD)/fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz_exec.h $(FUZZ_PROG_SRCS)
	@mkdir -p $(dir $@)
	clang -std=c11 -g -O1 -Iruntime -ffp-contract=off -fsanitize=fuzzer,address,undefined \
	  -fno-sanitize-recover=all -o $@ $< $(FUZZ_PROG_SRCS) -lm
SUITES += fuzz-iss fuzz-prog-mut
.PHONY: suite-fuzz-iss suite-fuzz-prog-mut
suite-fuzz-iss suite-fuzz-prog-mut: suite-%:
	@if command -v clang >/dev/null 2>&1; then \
	  $(MAKE) -s --no-print-directory $(BUILD)/fuzz/$(subst -,_,$*) && \
	  FUZZ_RUNS=$${FUZZ_RUNS:-4000} FUZZ_MAX_LEN=16384 \
	  tests/fuzz/run_fuzz_spec.sh $(BUILD)/fuzz/$(subst -,_,$*) tests/fuzz/corpus_prog; \
	else echo "$*: clang not found: 1 skipped"; echo "0 passed, 0 failed"; fi

# Every bundled spec: the ISS outputs bit-identical to the C simulation's on
# refs.py's seeded inputs, and within the numpy reference's tolerance. Needs
# `tilegen gen` to write <k>.s (or embed the program in <k>.c).
ISS_KERNELS = $(patsubst specs/%.yaml,%,$(wildcard specs/*.yaml))
SUITES += iss-agree
.PHONY: suite-iss-agree bench-iss
suite-iss-agree: $(TILEGEN)
	@TILEGEN=$(TILEGEN) PYTHON=$(PYTHON) BUILD=$(BUILD) tests/numerics/iss_check.sh $(ISS_KERNELS)

# ISS time against the C simulation per kernel, and its instruction rate.
BENCHES += iss
bench-iss: $(TILEGEN)
	@echo "bench-iss: C simulation vs ISS per kernel (ms, best of 5), ISS instructions/s"
	@TIMING=1 TILEGEN=$(TILEGEN) PYTHON=$(PYTHON) BUILD=$(BUILD) tests/numerics/iss_check.sh $(ISS_KERNELS) | \
	  grep -E '^  [a-z_0-9]+: c [0-9]|passed'
