# NeuronCore assembly (issue 5, items 1-3): the program builder, assembler,
# disassembler and listing emitter (gen/asm*.c, gen/disasm.c), the
# `tilegen asm` / `tilegen disasm` commands, and the runtime's program
# decoder/validator (runtime/tg_prog.c, freestanding, shared with the ISS).
# Suites: asm-unit (cmocka), asm (listing round trips, bad .s files,
# corrupted binaries through the CLI), fuzz-asm (libFuzzer smoke + corpus).
# Include after gen/emit.mk.
ASM_SRCS := gen/asm_prog.c gen/asm.c gen/disasm.c gen/asm_sync.c gen/asm_emit.c gen/asm_cmd.c
ASM_OBJS := $(ASM_SRCS:%.c=$(BUILD)/%.o)
GEN_OBJS += $(ASM_OBJS)
RT_OBJS += $(BUILD)/runtime/tg_prog.o
RT_SRCS += runtime/tg_prog.c # so suite-freestanding proves it freestanding too
$(BUILD)/runtime/tg_prog.o: CFLAGS += $(RT_FPFLAGS)
$(ASM_OBJS): | $(BUILD)/gen/expr.c

# The unit test runs the real front end, lowering and planner on specs/.
$(BIN)/test_asm: $(BUILD)/tests/unit/test_asm.o $(filter-out %/asm_cmd.o,$(ASM_OBJS)) $(LOWER_OBJS) $(FRONT_OBJS) $(TPL_OBJS) \
                 $(BUILD)/runtime/tg_prog.o $(BUILD)/runtime/tg_alu.o $(BUILD)/runtime/tg_math.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(CMOCKA_LIBS) -lyaml -lm

SUITES += asm-unit asm fuzz-asm
TEST_DEPS += $(BIN)/test_asm
.PHONY: suite-asm-unit suite-asm suite-fuzz-asm
suite-asm-unit: $(BIN)/test_asm
	@tests/cmocka_count.sh $(BIN)/test_asm

suite-asm: $(TILEGEN)
	@TILEGEN=$(TILEGEN) BUILD=$(BUILD) tests/asm/run.sh

# libFuzzer over the assembler and the binary decoder + disassembler.
FUZZ_ASM = $(BUILD)/fuzz/fuzz_asm
FUZZ_ASM_SRCS = tests/fuzz/fuzz_asm.c gen/asm_prog.c gen/asm.c gen/disasm.c gen/diag.c gen/arena.c \
                runtime/tg_prog.c runtime/tg_dtype.c runtime/tg_alu.c runtime/tg_math.c
$(FUZZ_ASM): $(FUZZ_ASM_SRCS)
	@mkdir -p $(dir $@)
	clang -std=c11 -g -O1 -Igen -Iruntime -ffp-contract=off -fsanitize=fuzzer,address,undefined \
	  -fno-sanitize-recover=all -o $@ $^
suite-fuzz-asm:
	@if command -v clang >/dev/null 2>&1; then \
	  $(MAKE) -s --no-print-directory $(FUZZ_ASM) && tests/fuzz/run_fuzz_spec.sh $(FUZZ_ASM) tests/fuzz/corpus_asm; \
	else echo "fuzz_asm: clang not found: 1 skipped"; echo "0 passed, 0 failed"; fi
