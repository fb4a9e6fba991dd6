# The generator: front end, lowering, planning, emitters and the CLI (bin/tilegen).
# Front end (issue 2): arena, diagnostics, YAML loader, expressions (re2c),
# schema check and semantic checks; its suites: front-unit, diag, specs,
# fuzz-spec; its benchmark: check.
FRONT_SRCS := gen/arena.c gen/diag.c gen/driver.c gen/spec_load.c gen/expr_eval.c gen/spec_check.c gen/sema.c gen/sema_deps.c \
              gen/c_names.c
FRONT_RE   := gen/expr.re
# The CLI's host helpers: shared option conventions, transactional outputs.
CLI_SRCS := gen/cli.c gen/cli_spec.c gen/outfile.c
CLI_OBJS := $(CLI_SRCS:%.c=$(BUILD)/%.o)
GEN_SRCS := gen/main.c $(CLI_SRCS) gen/run_cmd.c gen/run_index.c gen/profile_cmd.c gen/profile.c gen/profile_report.c \
            gen/profile_trace.c gen/profile_svg.c $(FRONT_SRCS)
GEN_RE   := $(FRONT_RE)
GEN_OBJS += $(GEN_SRCS:%.c=$(BUILD)/%.o) $(GEN_RE:%.re=$(BUILD)/%.o)

# Just the front end (+ the runtime's dtype table and the number arithmetic of
# tg_math, shared with the back ends), for its own tests and fuzzer.
FRONT_OBJS = $(FRONT_SRCS:%.c=$(BUILD)/%.o) $(FRONT_RE:%.re=$(BUILD)/%.o) $(BUILD)/runtime/tg_dtype.o \
             $(BUILD)/runtime/tg_math.o

# Sources that include the generated lexer's header need it generated first.
$(FRONT_SRCS:%.c=$(BUILD)/%.o) $(BUILD)/gen/main.o: | $(FRONT_RE:%.re=$(BUILD)/%.c)

# bin/tilegen is linked in the top-level Makefile, once every fragment has
# added its objects to GEN_OBJS / TPL_OBJS / RT_OBJS.

SUITES += cli
suite-cli: $(TILEGEN)
	@TILEGEN=$(TILEGEN) tests/cli/run.sh

# Transactional outputs: the unit (planted links, whole sets, witnesses) and
# the commands under a full disk, failing outputs, links, duplicate kernels,
# depfile escapes, make settling after gen --stamp, and a loop of kills.
$(BIN)/test_outfile: $(BUILD)/tests/unit/test_outfile.o $(BUILD)/gen/outfile.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(CMOCKA_LIBS)
SUITES += cli-unit cli-outputs
TEST_DEPS += $(BIN)/test_outfile
.PHONY: suite-cli-unit suite-cli-outputs
suite-cli-unit: $(BIN)/test_outfile
	@tests/cmocka_count.sh $(BIN)/test_outfile
suite-cli-outputs: $(TILEGEN)
	@TILEGEN=$(TILEGEN) PYTHON=$(PYTHON) BUILD=$(BUILD) tests/cli/outputs.sh

# --- front-end suites ---------------------------------------------------------
FRONT_UNITS := load expr check sema
FRONT_UNIT_BINS := $(FRONT_UNITS:%=$(BIN)/test_%)
$(FRONT_UNIT_BINS): $(BIN)/test_%: $(BUILD)/tests/unit/test_%.o $(FRONT_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(CMOCKA_LIBS) -lyaml -lm

SUITES += front-unit diag specs fuzz-spec
TEST_DEPS += $(FRONT_UNIT_BINS)
.PHONY: suite-front-unit suite-diag suite-specs suite-fuzz-spec bench-check
suite-front-unit: $(FRONT_UNIT_BINS)
	@tests/cmocka_count.sh $(FRONT_UNIT_BINS)

# tests/diag: each NNN-name.yaml has its exact stderr in NNN-name.expected;
# docs/diagnostics.md is generated from them and must be up to date.
suite-diag: $(TILEGEN)
	@TILEGEN=$(TILEGEN) PYTHON=$(PYTHON) tests/diag/run.sh

# Every bundled spec checks clean (exit 0, no output).
suite-specs: $(TILEGEN)
	@p=0; f=0; for s in specs/*.yaml; do \
	  if out=$$($(TILEGEN) check $$s 2>&1) && [ -z "$$out" ]; then p=$$((p+1)); \
	  else f=$$((f+1)); echo "FAIL $$s"; printf '%s\n' "$$out"; fi; \
	done; echo "$$p passed, $$f failed"

# libFuzzer over load+check: a short smoke run plus the regression corpus.
FUZZ_SPEC = $(BUILD)/fuzz/fuzz_spec
$(FUZZ_SPEC): tests/fuzz/fuzz_spec.c $(FRONT_SRCS) $(BUILD)/gen/expr.c runtime/tg_dtype.c runtime/tg_math.c
	@mkdir -p $(dir $@)
	clang -std=c11 -g -O1 -Igen -Iruntime -I$(BUILD)/gen -fsanitize=fuzzer,address,undefined \
	  -fno-sanitize-recover=all -o $@ $^ -lyaml -lm
suite-fuzz-spec:
	@if command -v clang >/dev/null 2>&1; then \
	  $(MAKE) -s --no-print-directory $(FUZZ_SPEC) && \
	  tests/fuzz/run_fuzz_spec.sh $(FUZZ_SPEC) tests/fuzz/corpus_spec; \
	else echo "fuzz_spec: clang not found: 1 skipped"; echo "0 passed, 0 failed"; fi

# `tilegen check` time per bundled spec (bar: < 10 ms each).
BENCHES += check check-worst
bench-check: $(TILEGEN) # check and gen time per spec
	@TILEGEN=$(TILEGEN) tests/diag/bench_check.sh specs/*.yaml

# The front end's worst cases (tests/diag/slow) and every corpus and diag
# spec, the slowest reported (bar: < 1 s each).
.PHONY: bench-check-worst
bench-check-worst: $(TILEGEN)
	@TILEGEN=$(TILEGEN) tests/diag/bench_check_worst.sh

# The closed forms of sema (affine regions) against the same front end built
# with SEMA_CLOSED_FORM=0, which enumerates every iteration: identical
# diagnostics on random affine and non-affine specs.
SUITES += sema-closed-form
SEMA_REF = $(BUILD)/sema-ref/check_ref
SEMA_REF_OBJS = $(BUILD)/sema-ref/sema.o $(BUILD)/sema-ref/sema_deps.o
$(SEMA_REF_OBJS): $(BUILD)/sema-ref/%.o: gen/%.c | $(FRONT_RE:%.re=$(BUILD)/%.c)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -DSEMA_CLOSED_FORM=0 -MMD -MP -c $< -o $@
-include $(SEMA_REF_OBJS:.o=.d)
$(SEMA_REF): $(BUILD)/tests/diag/check_ref.o $(SEMA_REF_OBJS) \
	     $(filter-out $(BUILD)/gen/sema.o $(BUILD)/gen/sema_deps.o,$(FRONT_OBJS))
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ -lyaml -lm
$(BUILD)/tests/diag/check_ref.o: | $(FRONT_RE:%.re=$(BUILD)/%.c)
TEST_DEPS += $(SEMA_REF)
.PHONY: suite-sema-closed-form
suite-sema-closed-form: $(TILEGEN) $(SEMA_REF)
	@$(PYTHON) tests/diag/closed_form.py $(TILEGEN) $(SEMA_REF) $(BUILD)/sema-closed-form 300

# `tilegen run`: every bundled spec executed on the ISS from numpy-written
# .npy inputs, outputs read back by numpy and compared; refused .npy files.
SUITES += run
suite-run: $(TILEGEN)
	@TILEGEN=$(TILEGEN) PYTHON=$(PYTHON) BUILD=$(BUILD) tests/cli/run_iss.sh
