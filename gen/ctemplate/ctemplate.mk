# ctemplate: the Jinja-subset template engine (a library with no dependency on
# the rest of tilegen).
TPL_SRCS :=
TPL_RE   :=
TPL_OBJS += $(TPL_SRCS:%.c=$(BUILD)/%.o) $(TPL_RE:%.re=$(BUILD)/%.o)
