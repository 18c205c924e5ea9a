# TVM host side (issue 12): `objrt call`, TVM's C host API, AOT entry points.
#   make tvm-tests [SAN=...] [TARGET=...]  builds $(BUILD)/tests/tvm/ (used by 55-tvm-host)
#   make bench-tvm                          packed-call overhead, `objrt call --repeat` vs C
TVM_DIR    := $(BUILD)/tests/tvm
TVM_TFLAGS := -O2 -g -std=c11 -D_GNU_SOURCE -fPIC -Wall -Wextra -Werror -Iinclude -Isrc $(SANFLAGS)
TVM_KFLAGS := -O2 -std=c11 -Wall -Wextra -Werror -Iinclude
TVM_IR     := $(TVM_DIR)/ir_syslib.o $(TVM_DIR)/ir_dso.o $(TVM_DIR)/ir_aot.o

tvm-tests: $(TVM_DIR)/host_capi $(TVM_DIR)/host_syslib $(TVM_DIR)/tvm_syslib.o \
           $(TVM_DIR)/tvm_dso.o $(TVM_DIR)/tvm_aot.o $(TVM_IR) $(TVM_DIR)/host_graph \
           $(TVM_DIR)/tvm_graph.o

$(TVM_DIR)/tvm_%.o: tests/tvm/kernels/tvm_%.c tests/tvm/kernels/tvm_args.h include/objrt/tvm_backend.h
	@mkdir -p $(dir $@)
	$(CC) $(TVM_KFLAGS) -c $< -o $@

$(TVM_DIR)/host_capi: tests/tvm/host_capi.c $(BUILD)/libobjrt.a
	@mkdir -p $(dir $@)
	$(CC) $(TVM_TFLAGS) $< $(BUILD)/libobjrt.a $(LDFLAGS) -ldl -lpthread -o $@

$(TVM_DIR)/host_graph: tests/tvm/host_graph.c $(BUILD)/libobjrt.a
	@mkdir -p $(dir $@)
	$(CC) $(TVM_TFLAGS) $< $(BUILD)/libobjrt.a $(LDFLAGS) -ldl -lpthread -ljansson -o $@

# the system-lib kernels linked into the host program, as a TVM deployment links them
$(TVM_DIR)/host_syslib: tests/tvm/host_capi.c $(TVM_DIR)/tvm_syslib.o $(BUILD)/libobjrt.a
	$(CC) $(TVM_TFLAGS) $< $(TVM_DIR)/tvm_syslib.o $(BUILD)/libobjrt.a $(LDFLAGS) -ldl -lpthread -o $@

$(TVM_IR) &: tests/tvm/gen_ir.py
	@mkdir -p $(TVM_DIR)
	/usr/bin/python3 tests/tvm/gen_ir.py --triple $(TARGET)-unknown-linux-gnu -o $(TVM_DIR)

bench-tvm: all
	bash bench/tvm/run.sh $(BUILD)

.PHONY: tvm-tests bench-tvm

# TVM-compatible headers (include/objrt/tvm/runtime/): TVM's generated C compiles against
# them with -I$(INCDIR)/objrt and nothing of TVM installed (docs/tvm.md).
TVM_HDRS := $(wildcard include/objrt/tvm/runtime/*.h include/objrt/tvm/runtime/crt/*.h)

install: install-tvm-headers
uninstall: uninstall-tvm-headers

install-tvm-headers:
	install -d $(DESTDIR)$(INCDIR)/objrt/tvm/runtime/crt
	install -m 644 include/objrt/tvm/runtime/*.h $(DESTDIR)$(INCDIR)/objrt/tvm/runtime/
	install -m 644 include/objrt/tvm/runtime/crt/*.h $(DESTDIR)$(INCDIR)/objrt/tvm/runtime/crt/

uninstall-tvm-headers:
	rm -f $(patsubst include/%,$(DESTDIR)$(INCDIR)/%,$(TVM_HDRS))
	-rmdir $(DESTDIR)$(INCDIR)/objrt/tvm/runtime/crt $(DESTDIR)$(INCDIR)/objrt/tvm/runtime \
	    $(DESTDIR)$(INCDIR)/objrt/tvm 2>/dev/null

.PHONY: install-tvm-headers uninstall-tvm-headers
