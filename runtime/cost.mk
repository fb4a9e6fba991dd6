# The timing model (runtime/tg_cost*.c): runs a binary program in time on a
# model of a NeuronCore (docs/cost.md). Included by the top-level Makefile
# after iss.mk and gen/asm.mk (the tests assemble listings). Suites: cost (cmocka: each cost rule against hand-computed
# cycles, the scheduler on hand-built programs), cost-freestanding.
COST_SRCS := runtime/tg_cost.c runtime/tg_cost_rules.c runtime/tg_cost_table.c
COST_OBJS := $(COST_SRCS:%.c=$(BUILD)/%.o)
RT_OBJS += $(COST_OBJS)

$(BIN)/test_cost: $(BUILD)/tests/unit/test_cost.o $(COST_OBJS) $(ISS_DEPS) $(filter-out %/asm_cmd.o,$(ASM_OBJS)) $(LOWER_OBJS) \
                  $(FRONT_OBJS) $(TPL_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) $^ -o $@ $(CMOCKA_LIBS) -lyaml -lm

SUITES += cost cost-freestanding
TEST_DEPS += $(BIN)/test_cost
.PHONY: suite-cost suite-cost-freestanding
suite-cost: $(BIN)/test_cost
	@tests/cmocka_count.sh $(BIN)/test_cost

# As iss-freestanding: every undefined symbol is memcpy/memset or the runtime's.
suite-cost-freestanding:
	@d=$(BUILD)/cost-fs; mkdir -p $$d; p=0; f=0; \
	for cc in gcc clang; do \
	  : > $$d/$$cc.defs; \
	  for u in $(ISS_FS_USES) $(ISS_SRCS) $(COST_SRCS); do \
	    $$cc $(ISS_FS_FLAGS) -c $$u -o $$d/$$cc-dep.o && \
	    nm --defined-only $$d/$$cc-dep.o | awk '{print $$NF}' >> $$d/$$cc.defs; \
	  done; \
	  for src in $(COST_SRCS); do \
	    obj=$$d/$$cc-$$(basename $$src .c).o; \
	    if ! $$cc $(ISS_FS_FLAGS) -c $$src -o $$obj; then \
	      echo "FAIL: $$cc $$src does not build freestanding"; f=$$((f+1)); continue; fi; \
	    bad=$$(nm -u $$obj | awk '{print $$NF}' | grep -vxF -f $$d/$$cc.defs | grep -vxE 'memcpy|memset'); \
	    if [ -n "$$bad" ]; then echo "FAIL: $$cc $$src needs: $$bad"; f=$$((f+1)); \
	    else echo "ok: $$cc $$src freestanding"; p=$$((p+1)); fi; \
	  done; \
	done; \
	echo "$$p passed, $$f failed"

# `tilegen profile` on every bundled spec and the cores: 2 cases: the JSON
# fields of SPEC.md §6, the trace and the SVG read back by a reader, schedule
# invariants, bufs 2 never slower than bufs 1 (tests/cost/check_profile.py).
SUITES += cost-profile
.PHONY: suite-cost-profile
suite-cost-profile: $(TILEGEN)
	@$(PYTHON) tests/cost/check_profile.py $(TILEGEN) $(wildcard specs/*.yaml tests/cost/cores/*.yaml)

# cores: 2 against one core (tests/cost/cores/, -D C=1): both cores in every
# view, compute-bound speedup in [1.8, 2], DMA-bound under 2 and within the
# shared HBM, the same outputs (tests/cost/check_cores.py).
SUITES += cost-cores
.PHONY: suite-cost-cores
suite-cost-cores: $(TILEGEN)
	@$(PYTHON) tests/cost/check_cores.py $(TILEGEN) $(wildcard tests/cost/cores/*.yaml)

# The published calibration cases (tests/cost/published.tsv): the four NKI matmul
# tutorial variants in order, block-free / fully-blocked and the DMA transfer
# figures within 40 % (tests/cost/calibrate.py; `--report` prints the error table).
SUITES += cost-calibration
.PHONY: suite-cost-calibration bench-profile
suite-cost-calibration: $(TILEGEN)
	@$(PYTHON) tests/cost/calibrate.py $(TILEGEN)

# `tilegen profile` (timing only) of the NKI-size matmuls: bar 1 s each.
BENCHES += profile
bench-profile: $(TILEGEN)
	@$(PYTHON) tools/bench_profile.py $(TILEGEN)

# `tilegen profile` at the command line: usage, exit codes, spec errors, views.
SUITES += cli-profile
.PHONY: suite-cli-profile
suite-cli-profile: $(TILEGEN)
	@TILEGEN=$(TILEGEN) PYTHON=$(PYTHON) tests/cli/profile.sh
