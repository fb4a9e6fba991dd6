# The C back end (issue 4, item 2): the emitter's model (gen/emit.c), the
# `tilegen gen` command (gen/gen_cmd.c), the templates/kernel.{h,c}.j2 it
# renders, the host .npy reader/writer of the numerics harness; suites
# gen-numerics (each kernel: gen, strict gcc/clang -std=c99 build, run on
# refs.py's inputs, refs.py compare) and gen-cli (the command as a build
# step, the .npy reader); bench gen-numerics (kernel vs numpy).
# Include after gen/lower.mk.
EMIT_SRCS := gen/emit.c gen/emit_progs.c gen/forward.c gen/gen_cmd.c
EMIT_OBJS := $(EMIT_SRCS:%.c=$(BUILD)/%.o)
GEN_OBJS += $(EMIT_OBJS)
$(EMIT_OBJS) $(BUILD)/gen/main.o: | $(BUILD)/gen/expr.c

# Kernels the C back end generates and matches against refs.py: every bundled
# spec (refs.py holds a reference for each; the NKI library's in ports/).
GEN_NUMERICS_KERNELS ?= $(sort $(basename $(notdir $(wildcard specs/*.yaml))))

SUITES += gen-numerics gen-cli
.PHONY: suite-gen-numerics suite-gen-cli bench-gen-numerics
suite-gen-cli: $(TILEGEN)
	@TILEGEN=$(TILEGEN) PYTHON=$(PYTHON) CC="$(CC)" BUILD=$(BUILD) tests/numerics/gen_cli.sh

suite-gen-numerics: $(TILEGEN)
	@TILEGEN=$(TILEGEN) PYTHON=$(PYTHON) CC="$(CC)" BUILD=$(BUILD) \
	  tests/numerics/check.sh $(GEN_NUMERICS_KERNELS)

# The same run with timings: the generated kernel vs numpy on the same math.
BENCHES += gen-numerics
bench-gen-numerics: $(TILEGEN)
	@TILEGEN=$(TILEGEN) PYTHON=$(PYTHON) CC="$(CC)" BUILD=$(BUILD) TIMING=1 \
	  tests/numerics/check.sh $(GEN_NUMERICS_KERNELS)

# The NKI matmul tutorial's size (bf16 4096x8192 @ 8192x8192): the C
# simulation against numpy and OpenBLAS sgemm, one thread (~1 min).
BENCHES += nki-matmul
.PHONY: bench-nki-matmul
bench-nki-matmul: $(TILEGEN)
	@TILEGEN=$(TILEGEN) PYTHON=$(PYTHON) CC="$(CC)" BUILD=$(BUILD) tests/numerics/nki_matmul_bench.sh

# The probe kernels of bench/probes/ (specs written as NKI authors write them) against
# numpy doing the same math, one thread, each C output checked against numpy's
# (~1 min; env BENCH_N runs, default 5, and PROBES, a subset).
BENCHES += probes
.PHONY: bench-probes
bench-probes: $(TILEGEN)
	@TILEGEN=$(TILEGEN) PYTHON=$(PYTHON) CC="$(CC)" BUILD=$(BUILD) bench/probes/run.sh

# Differential fuzzer (tests/numerics/fuzz_diff.sh): random valid specs, C
# simulation vs ISS bit for bit, and every phase after check must accept them.
# The suite (make test) is a quick smoke of FUZZ_DIFF_N seeds from
# FUZZ_DIFF_START (fixed: deterministic); `make fuzz-diff-long` is the long
# run (FUZZ_DIFF_LONG_N seeds from FUZZ_DIFF_LONG_START, JOBS workers), see
# tests/numerics/README.md. Failures are kept in $(BUILD)/fuzz-diff/.
# The harness is built with $(SAN) like the runtime objects it links (make asan).
FUZZ_DIFF_N ?= 40
FUZZ_DIFF_START ?= 1
FUZZ_DIFF_LONG_N ?= 20000
FUZZ_DIFF_LONG_START ?= 100000
SUITES += fuzz-diff
.PHONY: suite-fuzz-diff fuzz-diff-long
suite-fuzz-diff: $(TILEGEN) $(RT_OBJS) $(RT_HOST_OBJS)
	@TILEGEN=$(TILEGEN) PYTHON=$(PYTHON) CC="$(CC) $(SAN)" BUILD=$(BUILD) RTOBJS="$(RT_OBJS) $(RT_HOST_OBJS)" \
	  FUZZ_DIFF_N=$(FUZZ_DIFF_N) FUZZ_DIFF_START=$(FUZZ_DIFF_START) tests/numerics/fuzz_diff.sh
fuzz-diff-long: $(TILEGEN) $(RT_OBJS) $(RT_HOST_OBJS)
	@TILEGEN=$(TILEGEN) PYTHON=$(PYTHON) CC="$(CC) $(SAN)" BUILD=$(BUILD) RTOBJS="$(RT_OBJS) $(RT_HOST_OBJS)" \
	  FUZZ_DIFF_N=$(FUZZ_DIFF_LONG_N) FUZZ_DIFF_START=$(FUZZ_DIFF_LONG_START) tests/numerics/fuzz_diff.sh

# Tensors of 2^32 elements and more (SPEC.md §2.1): tests/numerics/big/big.yaml
# through every phase; big_check.c runs the C simulation and the ISS on
# calloc'd tensors (only the touched pages are backed) against the values the
# spec defines. `tilegen run` on it fills 4 GiB of random input (minutes): not here.
SUITES += big-tensors
.PHONY: suite-big-tensors
BIG_DIR = $(BUILD)/big-tensors
suite-big-tensors: $(TILEGEN) $(RT_OBJS)
	@mkdir -p $(BIG_DIR) && p=0; f=0; s=tests/numerics/big/big.yaml; \
	if $(TILEGEN) gen -o $(BIG_DIR) $$s && $(TILEGEN) asm $(BIG_DIR)/big.s -o $(BIG_DIR)/big.bin && \
	   $(TILEGEN) profile $$s >$(BIG_DIR)/profile.txt; then p=$$((p+1)); \
	else f=$$((f+1)); echo "FAIL big.yaml: gen, asm or profile"; fi; \
	if $(CC) $(CFLAGS_ALL) -I$(BIG_DIR) -o $(BIG_DIR)/big_check tests/numerics/big/big_check.c \
	     $(BIG_DIR)/big.c $(RT_OBJS) $(LDFLAGS_ALL) && $(BIG_DIR)/big_check; then p=$$((p+1)); \
	else f=$$((f+1)); echo "FAIL big_check"; fi; \
	echo "$$p passed, $$f failed"

# Hostile indices of indirect DMAs (SPEC.md §2.1): tests/numerics/gather_bounds/
# gb.yaml through gen and asm; gb_check.c runs the C simulation and the ISS on
# negative, past-the-end, 2^31 and 0xFFFFFFFF indices between guard zones
# (poisoned under make asan): TG_EBOUNDS from both, the same outputs written;
# of its two computed outputs, only the one with no gather between its writer
# and its store has the store sunk (gen/forward.c indirect_between).
SUITES += indirect-bounds
.PHONY: suite-indirect-bounds
GB_DIR = $(BUILD)/indirect-bounds
suite-indirect-bounds: $(TILEGEN) $(RT_OBJS)
	@mkdir -p $(GB_DIR) && p=0; f=0; s=tests/numerics/gather_bounds/gb.yaml; \
	if $(TILEGEN) gen -o $(GB_DIR) $$s && $(TILEGEN) asm $(GB_DIR)/gb.s -o $(GB_DIR)/gb.bin && \
	   $(TILEGEN) profile $$s >$(GB_DIR)/profile.txt; then p=$$((p+1)); \
	else f=$$((f+1)); echo "FAIL gb.yaml: gen, asm or profile"; fi; \
	if [ "$$(grep -c 'store sunk' $(GB_DIR)/gb.c)" = 1 ] && grep -q 'store sunk: its tile.s writers write w2' $(GB_DIR)/gb.c; \
	then p=$$((p+1)); else f=$$((f+1)); echo "FAIL gb.yaml: w2's store alone should sink (w1's writer runs before a gather)"; fi; \
	if $(CC) $(CFLAGS_ALL) -I$(GB_DIR) -o $(GB_DIR)/gb_check tests/numerics/gather_bounds/gb_check.c \
	     $(GB_DIR)/gb.c $(RT_OBJS) $(LDFLAGS_ALL) && $(GB_DIR)/gb_check >$(GB_DIR)/check.log; then p=$$((p+1)); \
	else f=$$((f+1)); cat $(GB_DIR)/check.log; echo "FAIL gb_check"; fi; \
	echo "$$p passed, $$f failed"
