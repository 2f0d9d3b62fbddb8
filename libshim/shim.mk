# SPDX-License-Identifier: GPL-2.0
# libordo: build/lib/libordo.{so,a}; public header libshim/ordo.h.
SHIM_SRCS := libshim/ordo.c libshim/batch.c libshim/local.c libshim/read.c libshim/cache.c \
	libshim/walk_cache.c libshim/extent.c libshim/decode.c libshim/rdma.c \
	libshim/rdma_conn.c libshim/rdma_raw.c libshim/rdma_long.c \
	libshim/raw_read.c kmod/core/node.c kmod/core/model_predict.c
SHIM_OBJS := $(SHIM_SRCS:%.c=$(BUILD)/%.o)
SHIM_LIBS := $(BUILD)/lib/libordo.so $(BUILD)/lib/libordo.a

$(BUILD)/libshim/%.o: libshim/%.c $(wildcard libshim/*.h kmod/core/*.h uapi/linux/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -fPIC -fvisibility=default -c -o $@ $<

# The core's shared code (node validation, model loading and prediction):
# the same source the module builds, never a second copy.
$(BUILD)/kmod/core/%.o: kmod/core/%.c $(wildcard kmod/core/*.h libshim/core_user.h uapi/linux/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -fPIC -c -o $@ $<

# The soname's number is the ABI's: it goes up whenever a program built
# against the old ordo.h could misbehave with the new library (1: struct
# ordo_req grew the value lengths).
LIBORDO_SONAME := libordo.so.1

$(BUILD)/lib/libordo.so: $(SHIM_OBJS) libshim/shim.mk
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,$(LIBORDO_SONAME) -o $@ $(SHIM_OBJS) \
		-lrdmacm -libverbs -lpthread

$(BUILD)/lib/libordo.a: $(SHIM_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^
