# The pipeline (gen/pipeline.c): spec -> checked Spec -> IR -> plan -> program
# + listing -> C context -> rendered files as one call, stopping after a
# requested phase; every spec-reading command consumes it. Suite pipe (cmocka:
# each stop phase on bundled specs, what is and is not built).
# Include after gen/asm.mk (it links the lowering, emitters and assembler).
PIPE_SRCS := gen/pipeline.c
PIPE_OBJS := $(PIPE_SRCS:%.c=$(BUILD)/%.o)
GEN_OBJS += $(PIPE_OBJS)
$(PIPE_OBJS): | $(BUILD)/gen/expr.c

# What the pipeline links beyond itself (no command modules).
PIPE_LINK = $(PIPE_OBJS) $(BUILD)/gen/emit.o $(BUILD)/gen/emit_progs.o $(BUILD)/gen/forward.o $(filter-out %/asm_cmd.o,$(ASM_OBJS)) \
            $(LOWER_OBJS) $(FRONT_OBJS) $(TPL_OBJS) $(BUILD)/runtime/tg_prog.o $(BUILD)/runtime/tg_alu.o \
            $(BUILD)/runtime/tg_math.o

# test_asm builds its listings through the pipeline.
$(BIN)/test_asm: $(PIPE_OBJS) $(BUILD)/gen/emit.o $(BUILD)/gen/emit_progs.o $(BUILD)/gen/forward.o

$(BIN)/test_pipe: $(BUILD)/tests/unit/test_pipe.o $(PIPE_LINK)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(CMOCKA_LIBS) -lyaml -lm

SUITES += pipe
TEST_DEPS += $(BIN)/test_pipe
.PHONY: suite-pipe
suite-pipe: $(BIN)/test_pipe
	@tests/cmocka_count.sh $(BIN)/test_pipe
