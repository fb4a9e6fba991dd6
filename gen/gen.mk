# The generator: front end, lowering, planning, emitters and the CLI (bin/tilegen).
GEN_SRCS := gen/main.c
GEN_RE   :=
GEN_OBJS += $(GEN_SRCS:%.c=$(BUILD)/%.o) $(GEN_RE:%.re=$(BUILD)/%.o)

# The objects of the generator as a library (everything but main), for unit tests.
GEN_LIB_OBJS = $(filter-out $(BUILD)/gen/main.o,$(GEN_OBJS))

$(TILEGEN): $(GEN_OBJS) $(TPL_OBJS) $(RT_HOST_OBJS) $(RT_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ -lyaml

SUITES += cli
suite-cli: $(TILEGEN)
	@TILEGEN=$(TILEGEN) tests/cli/run.sh
