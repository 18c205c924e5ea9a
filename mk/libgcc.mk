# The compiler's helper library (issue 9): the path `gcc` links libgcc.a from, recorded when
# objrt is built (src/symbols/libgcc.c; OBJRT_LIBGCC overrides it at run time), and the
# AArch64 outline atomics objrt carries itself, compiled as plain exclusive-access loops.
LIBGCC_DEFAULT := $(shell $(CC) -print-libgcc-file-name 2>/dev/null)
$(BUILD)/obj/src/symbols/libgcc.o: CFLAGS += -DOBJRT_LIBGCC_DEFAULT='"$(LIBGCC_DEFAULT)"'
ifeq ($(TARGET),aarch64)
$(BUILD)/obj/src/arch/atomics_aarch64.o: CFLAGS += -mno-outline-atomics
endif
