# demo and check: the README's two commands. Both install what they need first (deps), so
# either works as the first command on a fresh machine.
demo: deps
	$(MAKE) --no-print-directory all
	bash examples/demo/run.sh $(BUILD)
	bash examples/tvm/run.sh $(BUILD)

# Every configuration the suites run in: TARGET:SAN.
CHECK_CONFIGS ?= x86_64: x86_64:asan aarch64: x86_64:tsan

deps:
	bash scripts/install-deps.sh

check: deps
	$(MAKE) --no-print-directory all
	$(MAKE) --no-print-directory SAN=asan all
	$(MAKE) --no-print-directory SAN=tsan all
	$(MAKE) --no-print-directory TARGET=aarch64 all
	bash tests/run.sh $(CHECK_CONFIGS)
