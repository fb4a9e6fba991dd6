# ctemplate: the Jinja-subset template engine (a library with no dependency on
# the rest of tilegen), the `tilegen tpl` command, its suites and its benchmark.
TPL_SRCS := gen/ctemplate/tpl_value.c gen/ctemplate/tpl_parse.c gen/ctemplate/tpl_eval.c \
            gen/ctemplate/tpl_filters.c gen/ctemplate/tpl_env.c gen/ctemplate/tpl_hostfilters.c \
            gen/ctemplate/tpl_json.c
TPL_RE   := gen/ctemplate/tpl_lex.re
TPL_OBJS += $(TPL_SRCS:%.c=$(BUILD)/%.o) $(TPL_RE:%.re=$(BUILD)/%.o)
GEN_OBJS += $(BUILD)/gen/tpl_cmd.o

# cmocka unit tests: one binary per phase group.
TPL_UNITS := lex parse eval value filters float
TPL_UNIT_BINS := $(TPL_UNITS:%=$(BUILD)/tests/unit/test_tpl_%)
$(BUILD)/tests/unit/test_tpl_%: $(BUILD)/tests/unit/test_tpl_%.o $(TPL_OBJS)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(CMOCKA_LIBS) -lm

SUITES += tpl-unit tpl tpl-fuzz
suite-tpl-unit: $(TPL_UNIT_BINS)
	@tests/cmocka_count.sh $(TPL_UNIT_BINS)

suite-tpl: $(TILEGEN)
	@TILEGEN=$(TILEGEN) PYTHON=$(PYTHON) tests/tpl/run.sh

# libFuzzer smoke run (clang only; skipped, not passed, without it).
FUZZ_TPL = $(BUILD)/fuzz/fuzz_tpl
FUZZ_SRCS = $(TPL_SRCS) $(BUILD)/gen/ctemplate/tpl_lex.c
$(FUZZ_TPL): tests/fuzz/fuzz_tpl.c $(TPL_SRCS) $(BUILD)/gen/ctemplate/tpl_lex.c
	@mkdir -p $(dir $@)
	clang -std=c11 -g -O1 -Igen/ctemplate -fsanitize=fuzzer,address,undefined \
	  -fno-sanitize-recover=all -o $@ tests/fuzz/fuzz_tpl.c $(FUZZ_SRCS) -lm
suite-tpl-fuzz:
	@if command -v clang >/dev/null 2>&1; then \
	  $(MAKE) -s --no-print-directory $(FUZZ_TPL) && \
	  tests/fuzz/run_fuzz_tpl.sh $(FUZZ_TPL) tests/fuzz/corpus_tpl; \
	else echo "fuzz_tpl: clang not found: 1 skipped"; echo "0 passed, 0 failed"; fi

BENCHES += tpl
TPL_BENCH = $(BUILD)/bench/tpl/bench_tpl
$(TPL_BENCH): $(BUILD)/bench/tpl/bench_tpl.o $(BUILD)/gen/tpl_cmd.o $(BUILD)/gen/cli.o $(BUILD)/gen/diag.o $(BUILD)/gen/arena.o \
               $(TPL_OBJS)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ -lyaml -lm
bench-tpl: $(TILEGEN) $(TPL_BENCH)
	@TILEGEN=$(TILEGEN) TPL_BENCH=$(TPL_BENCH) PYTHON=$(PYTHON) BUILD=$(BUILD) bench/tpl/run.sh
