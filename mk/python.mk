# Python package (python/objrt: ctypes over libobjrt.so, objrt.llvm, objrt.numba).
#   make install-python [PREFIX=... DESTDIR=...]  the package for the system python3 (part of
#                                                  `make install`)
#   make check-numba     all of tests/python/numba-modules.txt (slow) under objrt vs MCJIT, with
#                        the host's numba 0.56 and Debian 13's 0.61 (scripts/numba-root.sh), and
#                        Debian 12's arm64 numba under qemu (71-numba-aarch64)
#   make bench-python    numba compile time, memory returned, code speed: objrt vs MCJIT
# `make check` runs tests/suites/70-python.sh (API, engine, the quick numba modules).
PYTHON ?= /usr/bin/python3
PYVER  := $(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
PYSITE ?= $(PREFIX)/lib/python$(PYVER)/dist-packages
PYPKG  := $(DESTDIR)$(PYSITE)/objrt

install: install-python
uninstall: uninstall-python

install-python:
	install -d $(PYPKG)/numba/_child
	install -m 644 python/objrt/*.py python/objrt/py.typed $(PYPKG)/
	install -m 644 python/objrt/numba/*.py $(PYPKG)/numba/
	install -m 644 python/objrt/numba/_child/*.py $(PYPKG)/numba/_child/
	install -m 644 python/objrt-numba.pth $(DESTDIR)$(PYSITE)/
	printf '# written by make install-python\nLIBRARY = "%s"\n' '$(LIBDIR)/libobjrt.so' \
		> $(PYPKG)/_installed.py

uninstall-python:
	rm -rf $(PYPKG) $(DESTDIR)$(PYSITE)/objrt-numba.pth

check-numba: deps all
	$(MAKE) --no-print-directory TARGET=aarch64 all
	NUMBA_MODULES=all SUITES="70-python 71-numba-aarch64" bash tests/run.sh x86_64: aarch64:

bench-python: all
	bash bench/python/run.sh $(BUILD)

.PHONY: install-python uninstall-python check-numba bench-python
