# Benchmarks: `make bench` builds everything, then runs every bench/*/run.sh in order
# (bench/link: link time vs RuntimeDyld and dlopen, warm and fresh-process, per set;
# bench/runtime: thread pool and workspaces vs OpenMP, idle and busy-neighbour modes).
#   make bench-link [BENCH_SETS="sqlite crypto"]   only the link benchmark
bench: all
	bash bench/run.sh $(BUILD)

bench-link: all
	bash bench/link/run.sh $(BUILD)

.PHONY: bench bench-link
