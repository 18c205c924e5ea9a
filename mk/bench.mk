# Benchmarks: `make bench` builds everything, then runs every bench/*/run.sh in order
# (bench/link: link time vs RuntimeDyld, JITLink and dlopen, warm and fresh-process, per set;
# bench/runtime: thread pool and workspaces vs OpenMP, idle and busy-neighbour modes;
# bench/scale: load and unload cost at 500, 4k and 20k units already loaded).
#   make bench-link [BENCH_SETS="sqlite crypto"]   only the link benchmark
bench: all
	bash bench/run.sh $(BUILD)

bench-link: all
	bash bench/link/run.sh $(BUILD)

bench-scale: all
	bash bench/scale/run.sh $(BUILD)

.PHONY: bench bench-link bench-scale
