# Benchmarks: `make bench` builds everything, then runs every bench/*/run.sh in order
# (bench/link: link time vs RuntimeDyld and dlopen; other areas add their own directory).
bench: all
	bash bench/run.sh $(BUILD)
