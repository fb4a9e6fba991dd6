# The runtime: freestanding core (RT_OBJS) and host-only helpers (RT_HOST_OBJS).
RT_SRCS :=
RT_HOST_SRCS :=
RT_OBJS += $(RT_SRCS:%.c=$(BUILD)/%.o)
RT_HOST_OBJS := $(RT_HOST_SRCS:%.c=$(BUILD)/%.o)
