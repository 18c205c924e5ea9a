# TVM-FFI (issue 22): kernels in the shape of TVM 0.21-0.26 codegen, each linked natively
# against the reference implementation tests/tvm_ffi/ref_ffi.c, and the C host on objrt.
#   make tvm-ffi-tests [SAN=...] [TARGET=...]   builds $(BUILD)/tests/tvm_ffi/ (58-tvm-ffi)
FFI_DIR    := $(BUILD)/tests/tvm_ffi
FFI_VERS   := 21 22 24 26
FFI_HDRS   := include/objrt/tvm_ffi.h include/objrt/tvm_backend.h
FFI_KFLAGS := -O2 -std=gnu11 -Wall -Wextra -Werror -Iinclude
FFI_TFLAGS := -O2 -g -std=gnu11 -Wall -Wextra -Werror -Iinclude -Isrc
FFI_KERNELS := $(foreach v,$(FFI_VERS),$(FFI_DIR)/k$(v)_dso.o $(FFI_DIR)/k$(v)_sys.o)
FFI_NATIVE  := $(FFI_KERNELS:$(FFI_DIR)/k%.o=$(FFI_DIR)/native%)

tvm-ffi-tests: $(FFI_KERNELS) $(FFI_NATIVE) $(FFI_DIR)/host $(FFI_DIR)/host_so $(FFI_DIR)/standin_host \
               $(FFI_DIR)/pure.o $(FFI_DIR)/pure_native $(FFI_DIR)/pure_host \
               $(FFI_DIR)/bad_ok.o $(FFI_DIR)/bad_ro_ctx.o $(FFI_DIR)/bad_ro_slot.o $(FFI_DIR)/bad_reg_ro.o \
               $(FFI_DIR)/old_add.o

$(FFI_DIR)/k%_dso.o: tests/tvm_ffi/kernel.c $(FFI_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(FFI_KFLAGS) -DTVM=$* -c $< -o $@

$(FFI_DIR)/k%_sys.o: tests/tvm_ffi/kernel.c $(FFI_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(FFI_KFLAGS) -DTVM=$* -DSYSLIB=lib_ -c $< -o $@

# the reference: the kernel linked in, ref_ffi.c as its TVM-FFI (-rdynamic: it finds the
# kernel's slots and functions with dlsym, as tvm-ffi's loader does)
$(FFI_DIR)/native%: tests/tvm_ffi/host.c tests/tvm_ffi/ref_ffi.c $(FFI_DIR)/k%.o
	$(CC) $(FFI_TFLAGS) -DNATIVE -rdynamic $^ -ldl -lpthread -o $@

$(FFI_DIR)/host: tests/tvm_ffi/host.c $(BUILD)/libobjrt.a
	@mkdir -p $(dir $@)
	$(CC) $(FFI_TFLAGS) $(SANFLAGS) $< $(BUILD)/libobjrt.a $(LDFLAGS) -ldl -lpthread -ljansson -o $@

# an old-ABI kernel (the TVM host benchmark's) to load beside TVM-FFI ones
$(FFI_DIR)/old_add.o: bench/tvm/kernel.c tests/tvm/kernels/tvm_args.h include/objrt/tvm_backend.h
	@mkdir -p $(dir $@)
	$(CC) $(FFI_KFLAGS) -Itests/tvm/kernels -c $< -o $@

# context slots the loader must refuse (read-only), and their writable control
$(FFI_DIR)/bad_ok.o: tests/tvm_ffi/bad_slot.c $(FFI_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(FFI_KFLAGS) -c $< -o $@
$(FFI_DIR)/bad_ro_ctx.o: tests/tvm_ffi/bad_slot.c $(FFI_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(FFI_KFLAGS) -DRO_CTX -c $< -o $@
$(FFI_DIR)/bad_ro_slot.o: tests/tvm_ffi/bad_slot.c $(FFI_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(FFI_KFLAGS) -DRO_SLOT -c $< -o $@

$(FFI_DIR)/bad_reg_ro.o: tests/tvm_ffi/bad_slot.c $(FFI_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(FFI_KFLAGS) -DREG_RO -c $< -o $@

# hand-written C exports (tvm-ffi-orcjit's tests): the same two ways
$(FFI_DIR)/pure.o: tests/tvm_ffi/pure.c $(FFI_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(FFI_KFLAGS) -c $< -o $@

$(FFI_DIR)/pure_native: tests/tvm_ffi/pure_host.c tests/tvm_ffi/ref_ffi.c $(FFI_DIR)/pure.o
	$(CC) $(FFI_TFLAGS) -DNATIVE -rdynamic $^ -ldl -lpthread -o $@

$(FFI_DIR)/pure_host: tests/tvm_ffi/pure_host.c $(BUILD)/libobjrt.a
	@mkdir -p $(dir $@)
	$(CC) $(FFI_TFLAGS) $(SANFLAGS) $< $(BUILD)/libobjrt.a $(LDFLAGS) -ldl -lpthread -ljansson -o $@

# the same host linked with -lobjrt (the shared library): the TVM-FFI names are exported
$(FFI_DIR)/host_so: tests/tvm_ffi/host.c $(BUILD)/libobjrt.so
	@mkdir -p $(dir $@)
	$(CC) $(FFI_TFLAGS) $(SANFLAGS) $< -L$(BUILD) -lobjrt -Wl,-rpath,$(abspath $(BUILD)) \
	    $(LDFLAGS) -ldl -lpthread -o $@

# one TVM-FFI per process: the reference as "another TVM-FFI" the host links with
$(FFI_DIR)/libstandin.so: tests/tvm_ffi/ref_ffi.c $(FFI_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(FFI_TFLAGS) -fPIC -shared $< -ldl -lpthread -o $@

$(FFI_DIR)/standin_host: tests/tvm_ffi/standin_host.c $(FFI_DIR)/libstandin.so $(BUILD)/libobjrt.a
	$(CC) $(FFI_TFLAGS) $(SANFLAGS) $< $(BUILD)/libobjrt.a $(FFI_DIR)/libstandin.so \
	    -Wl,-rpath,$(abspath $(FFI_DIR)) $(LDFLAGS) -ldl -lpthread -ljansson -o $@

.PHONY: tvm-ffi-tests

# libobjrt_tvm_ffi.so: tvm-ffi's Module class for objrt_tvm_ffi_loader() (ffi_module.cc;
# src/tvm_ffi/ffi_module_cxx.h says why it is C++). Not part of `all`: it needs tvm-ffi's
# headers and libtvm_ffi (Debian: libtvm-ffi-dev), which the build machine may lack.
#   make tvm-ffi-module [TVM_FFI_INCLUDE=DIR] [TVM_FFI_LIBDIR=DIR]
TVM_FFI_INCLUDE ?= /usr/include
TVM_FFI_LIBDIR  ?=
tvm-ffi-module: $(BUILD)/libobjrt_tvm_ffi.so
$(BUILD)/libobjrt_tvm_ffi.so: src/tvm_ffi/ffi_module.cc src/tvm_ffi/ffi_module_cxx.h
	@test -f $(TVM_FFI_INCLUDE)/tvm/ffi/extra/module.h || \
	    { echo "tvm-ffi-module: no $(TVM_FFI_INCLUDE)/tvm/ffi/extra/module.h (libtvm-ffi-dev)" >&2; exit 1; }
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 -O2 -g -fPIC -shared -Wall -Wextra -Werror -I$(TVM_FFI_INCLUDE) -Isrc/tvm_ffi \
	    -o $@ $< $(if $(TVM_FFI_LIBDIR),-L$(TVM_FFI_LIBDIR)) -ltvm_ffi
.PHONY: tvm-ffi-module
