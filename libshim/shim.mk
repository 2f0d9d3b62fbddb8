# SPDX-License-Identifier: GPL-2.0
# libordo: build/lib/libordo.{so,a}; public header libshim/ordo.h.
SHIM_SRCS := libshim/ordo.c libshim/local.c
SHIM_OBJS := $(SHIM_SRCS:%.c=$(BUILD)/%.o)
SHIM_LIBS := $(BUILD)/lib/libordo.so $(BUILD)/lib/libordo.a

$(BUILD)/libshim/%.o: libshim/%.c $(wildcard libshim/*.h uapi/linux/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -fPIC -fvisibility=default -c -o $@ $<

$(BUILD)/lib/libordo.so: $(SHIM_OBJS)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libordo.so.0 -o $@ $^

$(BUILD)/lib/libordo.a: $(SHIM_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^
