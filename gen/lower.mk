# Lowering and planning (issue 4, item 1): Spec -> tile IR (gen/lower.c), its
# text dump (gen/ir_dump.c) and the static SBUF/PSUM planner (gen/plan.c).
# Include after gen/gen.mk (it uses FRONT_OBJS). Suites: lower, plan (cmocka;
# they run the real front end and read specs/*.yaml from the repository root).
LOWER_SRCS := gen/lower.c gen/ir_dump.c gen/plan.c
LOWER_OBJS := $(LOWER_SRCS:%.c=$(BUILD)/%.o)
GEN_OBJS += $(LOWER_OBJS)

# The lowering includes the front end's headers, which need the generated lexer.
$(LOWER_OBJS): | $(BUILD)/gen/expr.c

LOWER_TEST_BINS := $(BIN)/test_lower $(BIN)/test_plan
$(LOWER_TEST_BINS): $(BIN)/test_%: $(BUILD)/tests/unit/test_%.o $(LOWER_OBJS) $(FRONT_OBJS) $(BUILD)/runtime/tg_prog.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(CMOCKA_LIBS) -lyaml -lm

SUITES += lower plan
TEST_DEPS += $(LOWER_TEST_BINS)
.PHONY: suite-lower suite-plan
suite-lower: $(BIN)/test_lower
	@tests/cmocka_count.sh $(BIN)/test_lower
suite-plan: $(BIN)/test_plan
	@tests/cmocka_count.sh $(BIN)/test_plan
