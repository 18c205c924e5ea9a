# AArch64 (issue 3): cross-build and check on an x86_64 host with aarch64-linux-gnu-gcc and
# qemu-user. `make check` already builds build-aarch64/ and runs every suite for aarch64:;
# these targets do only the AArch64 half, for quick iteration.
#   make aarch64          cross-build library, CLI into build-aarch64/
#   make check-aarch64    that, then every suite for config aarch64:
aarch64:
	$(MAKE) --no-print-directory TARGET=aarch64 all

check-aarch64: deps
	$(MAKE) --no-print-directory TARGET=aarch64 all
	bash tests/run.sh aarch64:

.PHONY: aarch64 check-aarch64
