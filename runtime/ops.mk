# The op-semantics module (runtime/tg_ops.*): the per-op math shared by the C
# simulation and the ISS. Included by the top-level Makefile after runtime.mk.
# Suites: ops (cmocka), ops-numpy (numpy cross-check via ctypes),
# ops-freestanding (gcc+clang, portable and -march=native, -std=c99
# -ffreestanding -nostdlib, `nm -u` ⊆ {memcpy, memset} ∪ the runtime),
# ops-portable (valgrind); bench: ops (matmul vs OpenBLAS sgemm).
#
# TG_OPS_ARCH: extra code-generation flags for tg_ops.o (default none: on
# x86-64 the matmul micro-kernel is built for SSE2, AVX2 and AVX-512F and picks
# one at run time; `make NATIVE=1` builds everything with -march=native).
# Results do not depend on it: tg_fp.h forbids FMA and SIMD lanes are
# independent elements (suite numerics-flags, test_ops runs every body).
TG_OPS_ARCH ?=
OPS_SRCS := runtime/tg_ops.c
OPS_OBJS := $(OPS_SRCS:%.c=$(BUILD)/%.o)
RT_OBJS += $(OPS_OBJS)

$(OPS_OBJS): CFLAGS += $(TG_OPS_ARCH)
$(BUILD)/tests/unit/test_ops.o $(BUILD)/tools/bench_ops.o: CFLAGS += -ffp-contract=off $(TG_OPS_ARCH)

OPS_DEPS := $(OPS_OBJS) $(BUILD)/runtime/tg_dtype.o $(BUILD)/runtime/tg_math.o \
            $(BUILD)/runtime/tg_alu.o

$(BIN)/test_ops: $(BUILD)/tests/unit/test_ops.o $(OPS_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) $^ -o $@ $(CMOCKA_LIBS) -lm

$(BIN)/bench_ops: $(BUILD)/tools/bench_ops.o $(OPS_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) $^ -o $@ -lopenblas -lm

# Every fp32 argument of the named activations through the row against the
# element form (tools/act_rows_exhaustive.c; minutes, so in no suite), at the
# widest SIMD body or ACT_LEVEL's (1 baseline, 2 AVX2, 3 AVX-512).
ACT_FUNCS ?= exp,sigmoid,silu,gelu_apprx_tanh,log,rsqrt,sqrt,tanh,softplus,sin,erf,gelu
ACT_SCALE ?= 1
ACT_BIAS ?= 0
ACT_LEVEL ?= 0
# The runtime's bit-for-bit sweeps: host tools over the ops (no FMA contraction
# in their own code either).
OPS_SWEEPS := act_rows_exhaustive matmul_stress
$(OPS_SWEEPS:%=$(BUILD)/tools/%.o): CFLAGS += -ffp-contract=off
$(OPS_SWEEPS:%=$(BIN)/%): $(BIN)/%: $(BUILD)/tools/%.o $(OPS_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) $^ -o $@ -lm
.PHONY: act-rows-exhaustive
act-rows-exhaustive: $(BIN)/act_rows_exhaustive
	@$(BIN)/act_rows_exhaustive $(ACT_FUNCS) $(ACT_SCALE) $(ACT_BIAS) $(ACT_LEVEL)

# Random matmuls through every entry of the packed matmul against the plain
# loop, bit for bit, at every SIMD body (tools/matmul_stress.c): MM_STRESS_N
# cases of each part per body; the suite runs a short round.
MM_STRESS_N ?= 5000
MM_STRESS_SEED ?= 1
.PHONY: matmul-stress suite-matmul-stress
matmul-stress: $(BIN)/matmul_stress
	@$(BIN)/matmul_stress $(MM_STRESS_N) $(MM_STRESS_SEED)
SUITES += matmul-stress
TEST_DEPS += $(BIN)/matmul_stress
suite-matmul-stress: $(BIN)/matmul_stress
	@$(BIN)/matmul_stress 200

SUITES += ops ops-freestanding ops-portable
TEST_DEPS += $(BIN)/test_ops
.PHONY: suite-ops suite-ops-freestanding suite-ops-portable bench-ops
suite-ops: $(BIN)/test_ops
	@tests/cmocka_count.sh $(BIN)/test_ops

# The default build runs on any CPU of the architecture: under valgrind (whose
# x86-64 CPU has AVX2 but no AVX-512, so a -march=native build on an AVX-512
# host dies with SIGILL), test_ops runs every matmul body valgrind's CPU has
# against the reference loop, and bin/tilegen runs the matmul kernel on the ISS.
suite-ops-portable: $(BIN)/test_ops $(TILEGEN)
	@p=0; f=0; d=$(BUILD)/ops-portable; mkdir -p $$d; \
	if [ -n "$(filter 1,$(NATIVE))" ]; then echo "[  SKIPPED ] NATIVE=1 build"; echo "0 passed, 0 failed"; exit 0; fi; \
	if [ -n "$(SAN)" ]; then echo "[  SKIPPED ] sanitizer build: valgrind cannot run it (the plain build's make test runs this suite)"; \
	  echo "0 passed, 0 failed"; exit 0; fi; \
	if valgrind -q --error-exitcode=99 $(BIN)/test_ops >$$d/test_ops.log 2>&1; then \
	  echo "[       OK ] test_ops under valgrind"; p=$$((p+1)); \
	else echo "[  FAILED  ] test_ops under valgrind (log: $$d/test_ops.log)"; tail -5 $$d/test_ops.log; f=$$((f+1)); fi; \
	if valgrind -q --error-exitcode=99 $(TILEGEN) run specs/matmul.yaml -D M=128 -D N=512 -D K=256 \
	     >$$d/run.log 2>&1; then echo "[       OK ] tilegen run matmul under valgrind"; p=$$((p+1)); \
	else echo "[  FAILED  ] tilegen run matmul under valgrind (log: $$d/run.log)"; tail -5 $$d/run.log; f=$$((f+1)); fi; \
	echo "$$p passed, $$f failed"

# Freestanding proof for tg_ops.c: each compiler, with and without the SIMD
# flags, strict C99 and no hosted library. An undefined symbol must be memcpy,
# memset, or defined by the runtime sources tg_ops uses (built the same way).
OPS_FREESTANDING_CCS ?= gcc clang
OPS_FS_USES := runtime/tg_dtype.c runtime/tg_math.c runtime/tg_alu.c
OPS_FS_FLAGS = -std=c99 -ffreestanding -nostdlib -Wall -Wextra -Wpedantic -Werror -O2 \
               -ffp-contract=off -Iruntime
suite-ops-freestanding:
	@d=$(BUILD)/ops-fs; mkdir -p $$d; p=0; f=0; \
	for cc in $(OPS_FREESTANDING_CCS); do \
	  for arch in "" "-march=native"; do \
	    tag=$$cc$$(echo "$$arch" | tr -c 'a-z0-9\n' _); : > $$d/$$tag.defs; \
	    for u in $(OPS_FS_USES); do \
	      $$cc $(OPS_FS_FLAGS) $$arch -c $$u -o $$d/$$tag-dep.o && \
	      nm --defined-only $$d/$$tag-dep.o | awk '{print $$NF}' >> $$d/$$tag.defs; \
	    done; \
	    for src in $(OPS_SRCS); do \
	      obj=$$d/$$tag-$$(basename $$src .c).o; \
	      if ! $$cc $(OPS_FS_FLAGS) $$arch -c $$src -o $$obj; then \
	        echo "FAIL: $$cc $$arch $$src does not build freestanding"; f=$$((f+1)); continue; fi; \
	      ext=$$(nm -u $$obj | awk '{print $$NF}' | grep -vxF -f $$d/$$tag.defs); \
	      bad=$$(printf '%s\n' "$$ext" | grep -v '^$$' | grep -vxE 'memcpy|memset'); \
	      if [ -n "$$bad" ]; then \
	        echo "FAIL: $$cc $$arch $$src needs: $$bad"; f=$$((f+1)); \
	      else echo "ok: $$cc $$arch $$src (outside the runtime: $$(echo $$ext))"; p=$$((p+1)); fi; \
	    done; \
	  done; \
	done; \
	echo "$$p passed, $$f failed"

# Every runtime source built as the default build builds it (gcc and clang,
# -O2, no -march): no AVX2 or AVX-512 function calls into the baseline's code
# with the vector registers' upper halves dirty (tools/simd_clean.sh).
SUITES += simd-clean
.PHONY: suite-simd-clean
suite-simd-clean:
	@d=$(BUILD)/simd-clean; mkdir -p $$d; objs=; f=0; \
	for cc in $(OPS_FREESTANDING_CCS); do for src in $(wildcard runtime/*.c); do \
	  obj=$$d/$$cc-$$(basename $$src .c).o; \
	  if $$cc -std=c11 -O2 -Iruntime -c $$src -o $$obj; then objs="$$objs $$obj"; \
	  else echo "FAIL: $$cc $$src does not build"; f=$$((f+1)); fi; \
	done; done; \
	tools/simd_clean.sh $$objs | tee $$d/log; \
	[ $$f -eq 0 ] || echo "0 passed, $$f failed"

# Activation rows: ns an element per function at each SIMD body (tools/act_rows_bench.c).
$(BIN)/act_rows_bench: $(BUILD)/tools/act_rows_bench.o $(OPS_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) $^ -o $@ -lm
BENCHES += act-rows
.PHONY: bench-act-rows
bench-act-rows: $(BIN)/act_rows_bench
	@$(BIN)/act_rows_bench

# matmul 512×1024×1024 (and the PE-tiled call pattern) against OpenBLAS sgemm.
BENCHES += ops
bench-ops: $(BIN)/bench_ops
	@$(BIN)/bench_ops

# numpy cross-check (tests/numerics/test_ops_ref.py) through ctypes on a shared
# build of the numerics; two tiny exported wrappers expose the inline helpers.
OPS_SO_SRCS := $(OPS_SRCS) runtime/tg_alu.c runtime/tg_math.c runtime/tg_dtype.c
$(BUILD)/ops-numpy/libtgops.so: $(OPS_SO_SRCS) runtime/tg_ops.h
	@mkdir -p $(dir $@)
	@printf '%s\n' '#include "tg_ops.h"' \
	  'float tg_ops_test_reduce(const float *x, size_t n, int op, int neg);' \
	  'float tg_ops_test_reduce(const float *x, size_t n, int op, int neg)' \
	  '{ return tg_reduce_row(x, n, (tg_alu_op)op, neg); }' \
	  'void tg_ops_test_scan(float *d, const float *a, const float *b, size_t n, float r, int o0, int o1);' \
	  'void tg_ops_test_scan(float *d, const float *a, const float *b, size_t n, float r, int o0, int o1)' \
	  '{ tg_scan_row(d, a, b, n, r, (tg_alu_op)o0, (tg_alu_op)o1); }' > $(dir $@)wrap.c
	$(CC) -std=c11 $(WARN) -O2 -ffp-contract=off $(TG_OPS_ARCH) -fPIC -shared -Iruntime \
	  $(OPS_SO_SRCS) $(dir $@)wrap.c -o $@

SUITES += ops-numpy
.PHONY: suite-ops-numpy
suite-ops-numpy: $(BUILD)/ops-numpy/libtgops.so
	@$(PYTHON) tests/numerics/test_ops_ref.py $(BUILD)/ops-numpy/libtgops.so
