# Kernel runtime (src/runtime): test programs and benchmark.
#   make runtime-tests [SAN=...] [TARGET=...]  builds $(BUILD)/tests/runtime/ (used by 50-runtime)
#   make bench-runtime                          fork/join, barrier, workspace, kernel vs OpenMP
RT_DIR    := $(BUILD)/tests/runtime
RT_TFLAGS := -O2 -g -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Iinclude -Isrc $(SANFLAGS)
# Kernels: clang at -O3 with the widest vectors the CPU runs (the seed needs aligned stores).
RT_ISA    := $(if $(shell grep -qw avx512f /proc/cpuinfo 2>/dev/null && echo y),-mavx512f,-mavx2)
RT_KFLAGS := -O3 $(RT_ISA) -Wall -Wextra -Werror -Iinclude

RT_PROGS := $(RT_DIR)/rt_test
ifeq ($(TARGET),x86_64)
RT_PROGS += $(RT_DIR)/rt_load $(RT_DIR)/seed_kernel.o $(RT_DIR)/seed_kernel_nohint.o \
            $(RT_DIR)/syslib_kernel.o $(RT_DIR)/dso_kernel.o $(RT_DIR)/main_kernel.o \
            $(RT_DIR)/main_kernel_fails.o
endif

runtime-tests: $(RT_PROGS)

$(RT_DIR)/%: tests/runtime/%.c tests/runtime/rt_check.h $(BUILD)/libobjrt.a
	@mkdir -p $(dir $@)
	$(CC) $(RT_TFLAGS) $< $(BUILD)/libobjrt.a $(LDFLAGS) -ldl -lpthread -o $@

$(RT_DIR)/%.o: tests/runtime/kernels/%.c include/objrt/tvm_backend.h
	@mkdir -p $(dir $@)
	clang $(RT_KFLAGS) -c $< -o $@

$(RT_DIR)/seed_kernel_nohint.o: tests/runtime/kernels/seed_kernel.c include/objrt/tvm_backend.h
	@mkdir -p $(dir $@)
	clang $(RT_KFLAGS) -DSEED_NO_ALIGN_HINT -c $< -o $@

$(RT_DIR)/main_kernel_fails.o: tests/runtime/kernels/main_kernel.c include/objrt/tvm_backend.h
	@mkdir -p $(dir $@)
	clang $(RT_KFLAGS) -DMAIN_FAILS -c $< -o $@

bench-runtime: all
	bash bench/runtime/run.sh $(BUILD)

.PHONY: runtime-tests bench-runtime
