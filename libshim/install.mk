# SPDX-License-Identifier: GPL-2.0
#
# make install [PREFIX=/usr/local] [DESTDIR=...]: into $(DESTDIR)$(PREFIX)
#   lib/libordo.so.VERSION, lib/libordo.so.1 (the soname, shim.mk) -> it,
#   lib/libordo.so -> .so.1
#   lib/libordo.a, lib/pkgconfig/libordo.pc
#   include/ordo.h, include/linux/ the uapi headers it includes (closure)
#   bin/ordoctl, share/man/man1/ordoctl.1
# tools/install_test checks the result with pkg-config and a compiler.
PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
INSTALL ?= install

LIBORDO_VERSION := $(shell sed -n 's/^\#define ORDO_VERSION[[:space:]]*"\(.*\)"/\1/p' kmod/ordo.h)
LIBORDO_REAL := libordo.so.$(LIBORDO_VERSION)
# What libordo.a needs besides itself (libordo.pc's Libs.private).
LIBORDO_LIBS_PRIVATE ?= -lrdmacm -libverbs -lpthread
LIBORDO_PC := $(BUILD)/libordo.pc

# The uapi headers ordo.h includes, directly or not: names in uapi/linux/.
# Expanded only by the install recipe.
LIBORDO_UAPI_HDRS = $(shell \
	todo=libshim/ordo.h; seen=; \
	while [ -n "$$todo" ]; do \
		set -- $$todo; f=$$1; shift; todo="$$*"; \
		for h in $$(sed -n 's|^[[:space:]]*\#[[:space:]]*include[[:space:]]*<linux/\([^>]*\)>.*|\1|p' $$f); do \
			[ -f uapi/linux/$$h ] || continue; \
			case " $$seen " in (*" $$h "*) continue ;; esac; \
			seen="$$seen $$h"; todo="$$todo uapi/linux/$$h"; \
		done; \
	done; echo $$seen)

# libordo.pc: libdir and includedir relative to ${prefix} where they can be.
install: $(SHIM_LIBS) $(TOOLS)
	@mkdir -p $(dir $(LIBORDO_PC))
	sed -e 's|@PREFIX@|$(PREFIX)|' \
	    -e 's|@LIBDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))|' \
	    -e 's|@INCLUDEDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))|' \
	    -e 's|@VERSION@|$(LIBORDO_VERSION)|' \
	    -e 's|@LIBS_PRIVATE@|$(LIBORDO_LIBS_PRIVATE)|' \
	    libshim/libordo.pc.in > $(LIBORDO_PC)
	$(INSTALL) -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)/linux \
		$(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	$(INSTALL) -m 0755 $(BUILD)/lib/libordo.so $(DESTDIR)$(LIBDIR)/$(LIBORDO_REAL)
	ln -sfn $(LIBORDO_REAL) $(DESTDIR)$(LIBDIR)/$(LIBORDO_SONAME)
	ln -sfn $(LIBORDO_SONAME) $(DESTDIR)$(LIBDIR)/libordo.so
	$(INSTALL) -m 0644 $(BUILD)/lib/libordo.a $(DESTDIR)$(LIBDIR)/libordo.a
	$(INSTALL) -m 0644 $(LIBORDO_PC) $(DESTDIR)$(LIBDIR)/pkgconfig/libordo.pc
	$(INSTALL) -m 0644 libshim/ordo.h $(DESTDIR)$(INCLUDEDIR)/ordo.h
	$(INSTALL) -m 0644 $(addprefix uapi/linux/,$(LIBORDO_UAPI_HDRS)) \
		$(DESTDIR)$(INCLUDEDIR)/linux/
	$(INSTALL) -m 0755 tools/ordoctl $(DESTDIR)$(BINDIR)/ordoctl
	$(INSTALL) -m 0644 Documentation/ordoctl.1 $(DESTDIR)$(MANDIR)/man1/ordoctl.1
