# Kernel runtime (src/runtime): kernel fixtures and benchmark.
#   make runtime-kernels [SAN=...] [TARGET=...]  builds the kernel objects 50-runtime loads into
#                                               $(BUILD)/tests/runtime/ (its test programs,
#                                               rt_test and rt_load, are built by the suite
#                                               with build_prog, tests/lib.sh)
#   make bench-runtime                          fork/join, barrier, workspace, kernel vs OpenMP
RT_DIR    := $(BUILD)/tests/runtime
# Kernels: clang at -O3 with the widest vectors the CPU runs (the seed needs aligned stores).
RT_ISA    := $(if $(shell grep -qw avx512f /proc/cpuinfo 2>/dev/null && echo y),-mavx512f,-mavx2)
RT_KFLAGS := -O3 $(RT_ISA) -Wall -Wextra -Werror -Iinclude

# Variants: -DSEED_NO_ALIGN_HINT (the disassembly check's negative control), -DMAIN_FAILS
# (a failing __tvm_main__), and the planted faults of the harness self-checks: a seed that
# segfaults (-DPLANT_SEGV) and a DSO kernel that hangs (-DPLANT_HANG).
RT_KERNELS :=
ifeq ($(TARGET),x86_64)
RT_KERNELS += $(addprefix $(RT_DIR)/,seed_kernel.o seed_kernel_nohint.o seed_kernel_segv.o \
              syslib_kernel.o dso_kernel.o dso_kernel_hang.o main_kernel.o main_kernel_fails.o)
endif

runtime-kernels: $(RT_KERNELS)

$(RT_DIR)/%.o: tests/runtime/kernels/%.c include/objrt/tvm_backend.h
	@mkdir -p $(dir $@)
	clang $(RT_KFLAGS) -c $< -o $@

$(RT_DIR)/seed_kernel_nohint.o: tests/runtime/kernels/seed_kernel.c include/objrt/tvm_backend.h
	@mkdir -p $(dir $@)
	clang $(RT_KFLAGS) -DSEED_NO_ALIGN_HINT -c $< -o $@

$(RT_DIR)/seed_kernel_segv.o: tests/runtime/kernels/seed_kernel.c include/objrt/tvm_backend.h
	@mkdir -p $(dir $@)
	clang $(RT_KFLAGS) -DPLANT_SEGV -c $< -o $@

$(RT_DIR)/dso_kernel_hang.o: tests/runtime/kernels/dso_kernel.c include/objrt/tvm_backend.h
	@mkdir -p $(dir $@)
	clang $(RT_KFLAGS) -DPLANT_HANG -c $< -o $@

$(RT_DIR)/main_kernel_fails.o: tests/runtime/kernels/main_kernel.c include/objrt/tvm_backend.h
	@mkdir -p $(dir $@)
	clang $(RT_KFLAGS) -DMAIN_FAILS -c $< -o $@

bench-runtime: all
	bash bench/runtime/run.sh $(BUILD)

.PHONY: runtime-kernels bench-runtime
