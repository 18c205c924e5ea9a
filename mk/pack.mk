# Small units sharing pages (issue 8): the benchmark alone (`make bench` runs it too).
#   make bench-pack [ROUNDS=7 N=1000 PAGES="4096 65536"]
bench-pack: all
	bash bench/pack/run.sh $(BUILD)

.PHONY: bench-pack
