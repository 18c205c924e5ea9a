# objrt build. `make` builds the library, the CLI and the public header into $(BUILD).
#   make TARGET=aarch64   cross-build into build-aarch64/ (run under qemu-aarch64)
#   make SAN=asan|tsan    sanitizer builds into build-asan/ or build-tsan/
#   make demo | check | bench | install PREFIX=...
TARGET ?= $(shell uname -m)
SAN    ?=
PREFIX ?= /usr/local

ifeq ($(TARGET),aarch64)
  ifneq ($(shell uname -m),aarch64)
    CC := aarch64-linux-gnu-gcc
    CROSS := 1
  endif
  BUILD := build-aarch64
else
  BUILD := build
endif
ifeq ($(SAN),asan)
  BUILD := $(BUILD)-asan
  SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else ifeq ($(SAN),tsan)
  BUILD := $(BUILD)-tsan
  SANFLAGS := -fsanitize=thread
endif

CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -fPIC -Iinclude -Isrc $(SANFLAGS)
LDFLAGS += $(SANFLAGS)
LDLIBS  += -ldl -lpthread -ljansson

# The version lives in include/objrt.h; the soname changes with the major number only.
VERSION := $(shell sed -n 's/^\#define OBJRT_VERSION "\([0-9.]*\)".*/\1/p' include/objrt.h)
SONAME  := libobjrt.so.$(firstword $(subst ., ,$(VERSION)))

# The loader's folders, bottom layer first (docs/layers.md: a folder includes and calls only
# folders before it in this list).
LOADER_DIRS := base arch input symbols sites layout debug finish loader
LOADER_SRC  := $(foreach d,$(LOADER_DIRS),$(wildcard src/$d/*.c))
RUNTIME_SRC := $(wildcard src/runtime/*.c src/tvm_ffi/*.c)
LIB_SRC     := $(LOADER_SRC) $(RUNTIME_SRC)
LIB_OBJ     := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
LOADER_OBJ  := $(LOADER_SRC:%.c=$(BUILD)/obj/%.o)
CLI_OBJ     := $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard src/cli/*.c))

all: $(BUILD)/libobjrt.a $(BUILD)/libobjrt_loader.a $(BUILD)/libobjrt.so $(BUILD)/objrt \
     $(BUILD)/libobjrt_internal.a

# Header dependencies: every object writes its own list (-MMD, beside it as .d; -MP adds a
# target per header so a deleted header is no error). An object without its .d file (built
# before tracking, or the .d removed) is rebuilt: the .d is a prerequisite whose empty rule
# makes it out of date when missing.
DEP_FILES := $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d)
$(BUILD)/obj/%.o: %.c $(BUILD)/obj/%.d
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@
$(DEP_FILES): ;
include $(wildcard $(DEP_FILES))

# srcline.c includes elfutils' <elfutils/libdwfl.h> (libdw-dev; libdw is dlopened, not
# linked). Its headers are the same for every architecture and live in /usr/include, which
# a cross compiler does not search: after its own, for this one file.
ifdef CROSS
$(BUILD)/obj/src/debug/srcline.o: CFLAGS += -idirafter /usr/include
endif

# libobjrt is compiled with -fvisibility=hidden: only what include/ declares (between its
# visibility pragmas) and GDB's JIT names (debug/gdbjit.c) have default visibility. Not the
# CLI's objects: loaded code may call the CLI's own helpers (-rdynamic below).
# Objects compiled before the flag are out of date: the stamp is newer than all of them.
$(LIB_OBJ): CFLAGS += -fvisibility=hidden
$(LIB_OBJ): $(BUILD)/obj/visibility-hidden.stamp
$(BUILD)/obj/visibility-hidden.stamp:
	@mkdir -p $(dir $@)
	@touch $@

# libobjrt.a and libobjrt_loader.a each hold one relocatable object of all their objects
# (-r) whose hidden names are then made local (objcopy --localize-hidden): a static host
# sees only the public API and its own names cannot clash with objrt's internal ones (144
# objrt_* functions before). One object also brings the runtime, which registers itself
# from a constructor (base/provider.h) and which nothing of the loader names. The .so
# holds every object. libobjrt_internal.a keeps the objects as compiled, internal names
# global: for the test programs that call internals (tests/lib.sh, build_prog); never
# installed. The graph executor stays a member of its own: it alone needs Jansson, and a
# host that does not use it links without -ljansson. The internal names it takes from the
# rest (graph.o's undefined names, read with nm) stay global, still hidden: kept out of
# every shared object, reachable from graph.o in a static link.
GRAPH_OBJ := $(BUILD)/obj/src/runtime/graph.o
ifdef CROSS
OBJCOPY ?= aarch64-linux-gnu-objcopy
NM ?= aarch64-linux-gnu-nm
else
OBJCOPY ?= objcopy
NM ?= nm
endif
$(BUILD)/obj/libobjrt.o: $(filter-out $(GRAPH_OBJ),$(LIB_OBJ)) $(GRAPH_OBJ)
	$(CC) -r -nostdlib -o $@.all $(filter-out $(GRAPH_OBJ),$^)
	$(NM) -u $(GRAPH_OBJ) | awk '{ print $$2 }' >$@.graph-needs
	$(OBJCOPY) --localize-hidden $@.all $@.local
	$(OBJCOPY) --globalize-symbols=$@.graph-needs $@.local $@
	@rm -f $@.all $@.local $@.graph-needs

$(BUILD)/obj/libobjrt_loader.o: $(LOADER_OBJ)
	$(CC) -r -nostdlib -o $@.all $^
	$(OBJCOPY) --localize-hidden $@.all $@
	@rm -f $@.all

$(BUILD)/libobjrt.a: $(BUILD)/obj/libobjrt.o $(GRAPH_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

# The loader alone, without the runtime: for hosts that load plain code (tests/loader-alone).
$(BUILD)/libobjrt_loader.a: $(BUILD)/obj/libobjrt_loader.o
	@rm -f $@
	$(AR) rcs $@ $^

# In libobjrt_internal.a the runtime's registering objects travel with the public entry
# points (api.c), which every host links: one relocatable object of them (-r).
PACKED_OBJ := $(BUILD)/obj/src/loader/api.o $(BUILD)/obj/src/runtime/loader_hooks.o \
              $(BUILD)/obj/src/tvm_ffi/ffi_provider.o
$(BUILD)/obj/api+runtime.o: $(PACKED_OBJ)
	$(CC) -r -nostdlib -o $@ $^

$(BUILD)/libobjrt_internal.a: $(filter-out $(PACKED_OBJ),$(LIB_OBJ)) $(BUILD)/obj/api+runtime.o
	@rm -f $@
	$(AR) rcs $@ $^

# Only the public API is exported: the version script lists what the headers declare.
# SO_BIND: libobjrt's own calls to the functions it exports bind to its own definitions
# when it is linked (-Bsymbolic-functions), whatever the process loaded before it; its one
# exported data object is used under a hidden alias (debug/gdbjit.c). docs/reference.md,
# "What libobjrt exports", says why this and not another way. SO_DIR:
# where the shared library is linked. tests/suites/59-ffi-order.sh links one with
# SO_BIND= into a directory of its own, the library as it was before (its control).
SO_BIND ?= -Wl,-Bsymbolic-functions
SO_DIR  ?= $(BUILD)
$(BUILD)/objrt.map: scripts/version-script.sh include/objrt.h $(wildcard include/objrt/*.h)
	@mkdir -p $(dir $@)
	bash scripts/version-script.sh include/objrt.h $(wildcard include/objrt/*.h) > $@

$(SO_DIR)/libobjrt.so.$(VERSION): $(LIB_OBJ) $(BUILD)/objrt.map
	@mkdir -p $(dir $@)
	$(CC) -shared $(LDFLAGS) $(SO_BIND) -Wl,-soname,$(SONAME) \
	    -Wl,--version-script,$(BUILD)/objrt.map -o $@ $(LIB_OBJ) $(LDLIBS)

$(SO_DIR)/libobjrt.so: $(SO_DIR)/libobjrt.so.$(VERSION)
	ln -sf libobjrt.so.$(VERSION) $(SO_DIR)/$(SONAME)
	ln -sf libobjrt.so.$(VERSION) $@

# -rdynamic: loaded code may call back into the CLI's own exported helpers. zlib (the .npz
# reader) is linked in statically and not exported: a unit's undefined deflate() must stay
# undefined, not bind to whatever the command itself happens to use. The CLI is part of
# objrt and uses internals of base/ (objrt_fopen_regular): libobjrt_internal.a, whose
# hidden names -rdynamic does not export either.
$(BUILD)/objrt: $(CLI_OBJ) $(BUILD)/libobjrt_internal.a
	$(CC) $(LDFLAGS) -rdynamic -Wl,--exclude-libs,libz.a -o $@ $(CLI_OBJ) $(BUILD)/libobjrt_internal.a \
	    $(LDLIBS) -Wl,-Bstatic -lz -Wl,-Bdynamic

# LIBDIR: where the libraries and objrt.pc go, e.g. LIBDIR=$(PREFIX)/lib/x86_64-linux-gnu
# for a Debian multiarch layout. Every public function gets a man page: objrt.3 for
# objrt.h, one written from each other header (scripts/header-man.py), and a link
# (.so) per function to its header's page, from the compiler's list of declarations
# (scripts/public-functions.sh), so `man objrt_load` works and no list is kept by hand.
# objrt.pc and CMAKEDIR's objrt-config.cmake carry the paths given here. Without DESTDIR,
# install and uninstall end with ldconfig when LIBDIR is one the dynamic linker searches
# (else a note on how hosts find the library): scripts/ldconfig-after-install.sh.
LIBDIR ?= $(PREFIX)/lib
INCDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
CMAKEDIR ?= $(LIBDIR)/cmake/objrt
HEADER_PAGES := objrt/tvm_backend.h:objrt_tvm_backend objrt/tvm_ffi.h:objrt_tvm_ffi
SUBST := sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' -e 's|@INCDIR@|$(INCDIR)|g' \
             -e 's|@VERSION@|$(VERSION)|g' -e 's|@SONAME@|$(SONAME)|g'
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCDIR)/objrt \
	    $(DESTDIR)$(CMAKEDIR) \
	    $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3
	install -m 755 $(BUILD)/objrt $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(BUILD)/libobjrt.a $(DESTDIR)$(LIBDIR)/
	install -m 755 $(BUILD)/libobjrt.so.$(VERSION) $(DESTDIR)$(LIBDIR)/
	if [ -f $(BUILD)/libobjrt_tvm_ffi.so ]; then \
	    install -m 755 $(BUILD)/libobjrt_tvm_ffi.so $(DESTDIR)$(LIBDIR)/; fi
	ln -sf libobjrt.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libobjrt.so
	install -m 644 include/objrt.h $(DESTDIR)$(INCDIR)/
	install -m 644 include/objrt/*.h $(DESTDIR)$(INCDIR)/objrt/
	install -m 644 man/objrt.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 man/objrt.3 $(DESTDIR)$(MANDIR)/man3/
	bash scripts/public-functions.sh > $(BUILD)/public-functions.txt
	for hp in $(HEADER_PAGES); do \
	    /usr/bin/python3 scripts/header-man.py include/$${hp%%:*} $${hp#*:} $(VERSION) \
	        < $(BUILD)/public-functions.txt > $(DESTDIR)$(MANDIR)/man3/$${hp#*:}.3 || exit 1; \
	done
	while read -r fn hdr line; do \
	    case $$hdr in objrt.h) page=objrt ;; *) page=; \
	        for hp in $(HEADER_PAGES); do [ "$${hp%%:*}" = "$$hdr" ] && page=$${hp#*:}; done ;; esac; \
	    [ -n "$$page" ] || { echo "install: no man page for $$hdr ($$fn)" >&2; exit 1; }; \
	    echo ".so man3/$$page.3" > $(DESTDIR)$(MANDIR)/man3/$$fn.3; \
	done < $(BUILD)/public-functions.txt
	$(SUBST) objrt.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/objrt.pc
	$(SUBST) cmake/objrt-config.cmake.in > $(DESTDIR)$(CMAKEDIR)/objrt-config.cmake
	$(SUBST) cmake/objrt-config-version.cmake.in > $(DESTDIR)$(CMAKEDIR)/objrt-config-version.cmake
	$(if $(DESTDIR),,bash scripts/ldconfig-after-install.sh $(LIBDIR))

# Removes exactly what install put there (the same PREFIX, LIBDIR, MANDIR and DESTDIR).
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/objrt $(DESTDIR)$(LIBDIR)/libobjrt.a \
	    $(DESTDIR)$(LIBDIR)/libobjrt.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME) \
	    $(DESTDIR)$(LIBDIR)/libobjrt.so $(DESTDIR)$(LIBDIR)/pkgconfig/objrt.pc \
	    $(DESTDIR)$(LIBDIR)/libobjrt_tvm_ffi.so \
	    $(DESTDIR)$(INCDIR)/objrt.h $(patsubst include/%,$(DESTDIR)$(INCDIR)/%,$(wildcard include/objrt/*.h)) \
	    $(DESTDIR)$(MANDIR)/man1/objrt.1 $(DESTDIR)$(MANDIR)/man3/objrt.3 \
	    $(foreach hp,$(HEADER_PAGES),$(DESTDIR)$(MANDIR)/man3/$(lastword $(subst :, ,$(hp))).3)
	bash scripts/public-functions.sh | while read -r fn hdr line; do \
	    rm -f $(DESTDIR)$(MANDIR)/man3/$$fn.3; done
	rm -f $(DESTDIR)$(CMAKEDIR)/objrt-config.cmake $(DESTDIR)$(CMAKEDIR)/objrt-config-version.cmake
	-rmdir $(DESTDIR)$(INCDIR)/objrt $(DESTDIR)$(CMAKEDIR) 2>/dev/null
	$(if $(DESTDIR),,bash scripts/ldconfig-after-install.sh $(LIBDIR) uninstall)

clean:
	rm -rf build build-*

.PHONY: all install uninstall clean demo check bench deps

# Feature areas add their own targets (demo, check, bench parts) in mk/*.mk.
include $(sort $(wildcard mk/*.mk))
