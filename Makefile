# tilegen — top-level Makefile.
# `make` builds bin/tilegen; `make generate` expands every spec in specs/ into
# generated/; `make test` runs every suite and ends with "N passed, N failed";
# `make install PREFIX=...` / `make uninstall` (tools/install.mk).
# Each module adds its sources, binaries and suites in its own fragment (*.mk).

CC      ?= cc
PYTHON  ?= /usr/bin/python3
RE2C    ?= re2c
BUILD   ?= build
BIN     ?= bin
# -g1: line tables (backtraces, profilers and sanitizers name the line) at
# three quarters of -g's build time (bin/tilegen on 2 cores: 36 -> 27 s);
# `make OPT="-O2 -g"` for local variables in a debugger.
OPT     ?= -O2 -g1
SAN     ?=
# NATIVE=1 builds everything for this machine's CPU (-march=native). The default
# is the architecture's baseline, so bin/tilegen and libtgrt.a run on any CPU of
# it (and under valgrind); tg_ops.c picks its SIMD body at run time. Same bits.
NATIVE  ?=
ARCH    = $(if $(filter 1,$(NATIVE)),-march=native)
# The kernel harnesses of the suites and benches follow it (harness.sh).
export TG_HOST_ARCH = $(ARCH)
WARN     = -Wall -Wextra -Wpedantic -Werror -Wshadow -Wundef -Wwrite-strings
CFLAGS_ALL = -std=c11 $(WARN) $(OPT) $(ARCH) $(SAN) -Igen -Igen/ctemplate -Iruntime \
             -I$(BUILD)/gen -I$(BUILD)/gen/ctemplate $(CFLAGS)
LDFLAGS_ALL = $(SAN) $(LDFLAGS)
RE2CFLAGS = -W -Werror --no-generation-date --no-version

TILEGEN = $(BIN)/tilegen

# Filled by the fragments.
SUITES :=
BENCHES :=
TEST_DEPS :=
GEN_OBJS :=
TPL_OBJS :=
RT_OBJS :=
CLEAN :=

.PHONY: all deps test test-run asan generate generate-files bench clean firmware-check
all: $(TILEGEN)

include runtime/runtime.mk
include runtime/ops.mk
include runtime/iss.mk
include gen/ctemplate/ctemplate.mk
include gen/gen.mk
include gen/lower.mk
include gen/emit.mk
include gen/asm.mk
include runtime/cost.mk
include gen/pipe.mk
include tests/tests.mk
include tools/install.mk
include examples/firmware/firmware.mk

# bin/tilegen: every object the fragments contributed (prerequisites are fixed
# when a rule is read, so this comes after all of them).
# Linked to a temporary and renamed: a tilegen running meanwhile (another
# make's generate) keeps its file, and the link never fails "Text file busy".
# The longest compiles (the SIMD bodies) are named first: make -j starts
# prerequisites in order, so the short ones overlap them instead of leaving one
# to finish alone ($^ drops the repeats).
TILEGEN_FIRST := $(BUILD)/runtime/tg_ops.o $(BUILD)/runtime/tg_alu.o $(BUILD)/runtime/tg_iss_row.o
$(TILEGEN): $(TILEGEN_FIRST) $(GEN_OBJS) $(TPL_OBJS) $(RT_HOST_OBJS) $(RT_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@.tmp$$$$ $^ -lyaml -lm && mv -f $@.tmp$$$$ $@ || { rm -f $@.tmp$$$$; exit 1; }

# --- generic rules -----------------------------------------------------------
$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -MMD -MP -c $< -o $@

# re2c lexers are generated into $(BUILD) from their .re sources.
$(BUILD)/%.c: %.re
	@mkdir -p $(dir $@)
	$(RE2C) $(RE2CFLAGS) --depfile $@.d -o $@ $<

$(BUILD)/%.o: $(BUILD)/%.c
	$(CC) $(CFLAGS_ALL) -I$(dir $*) -MMD -MP -c $< -o $@

deps:
	@tools/deps.sh

# `make test` and `make generate` first make sure the Debian packages are there
# (tools/deps.sh installs them, or prints the exact command to run).
test:
	@tools/deps.sh -q
	@$(MAKE) --no-print-directory test-run

test-run: $(TILEGEN) $(TEST_DEPS)
	@BUILD=$(BUILD) tests/run_suites.sh "$(MAKE)" $(SUITES)

# `make generate`: every spec in specs/ becomes generated/<k>.h, <k>.c and
# <k>.s (rewritten only when a spec, a template or tilegen changed: `tilegen
# gen -MD` depfiles), then each generated kernel is built, run on seeded
# inputs and compared with its numpy reference; the table shows the result.
# The rule's target is a witness, $(BUILD)/generated/<k>.stamp (`gen
# --stamp`), brought up to date on every run: outputs whose content did not
# change keep their time (SPEC.md 3), so `make -q generate-files` settles and
# nothing built from them reruns.
SPECS     := $(wildcard specs/*.yaml)
GEN_STAMPS := $(SPECS:specs/%.yaml=$(BUILD)/generated/%.stamp)

# one compile per core (the tilegen build is the longest step of a fresh checkout)
NPROC := $(shell nproc 2>/dev/null || echo 1)
generate:
	@tools/deps.sh -q
	@$(MAKE) --no-print-directory -j$(NPROC) $(TILEGEN)
	@$(MAKE) --no-print-directory -j$(NPROC) generate-files
	@TILEGEN=$(TILEGEN) PYTHON=$(PYTHON) BUILD=$(BUILD) RTOBJS="$(RT_OBJS) $(RT_HOST_OBJS)" tools/generate_summary.sh

generate-files: $(GEN_STAMPS)

$(BUILD)/generated/%.stamp: specs/%.yaml $(TILEGEN)
	$(TILEGEN) gen -MD --stamp $@ -o generated $<

-include $(wildcard generated/*.d)

asan:
	@$(MAKE) --no-print-directory BUILD=build/asan BIN=build/asan/bin \
	  OPT="-O1 -g -fno-omit-frame-pointer" \
	  SAN="-fsanitize=address,undefined -fno-sanitize-recover=all" test

# Each module adds BENCHES += name and a bench-name target; `make bench` runs them
# all in one go (speed and memory targets are measured here, not in unit tests).
bench: $(TILEGEN)
	@for b in $(BENCHES); do $(MAKE) -s --no-print-directory bench-$$b || exit 1; done

# The runtime core and every generated kernel built as firmware would build
# them (freestanding, no libc), also cross-compiled when arm-none-eabi-gcc is
# installed.
firmware-check:
	@BUILD=$(BUILD) tools/firmware_check.sh

clean:
	rm -rf build bin $(CLEAN)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
