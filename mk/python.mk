# Python package (python/objrt: ctypes over libobjrt.so, objrt.llvm, objrt.numba).
#   make install-python [PREFIX=... DESTDIR=...]  the package for the system python3 (part of
#                                                  `make install`)
#   make check-numba     all of tests/python/numba-modules.txt (slow) under objrt vs MCJIT, with
#                        the host's numba 0.56, Debian 13's 0.61 and sid's 0.65
#                        (scripts/numba-root.sh), Debian 12's arm64 numba under qemu
#                        (71-numba-aarch64), and numba's ufunc, DUFunc, gufunc and cfunc test
#                        modules on all three releases (73-numba-lifetime)
#   make check-numba-full  numba's whole CPU test suite, module by module, under MCJIT and objrt:
#                        numba 0.56 (host), 0.61 (trixie root), 0.65 (sid root) on x86_64 and
#                        0.65 on arm64 (sid-arm64 root, qemu) for the code-placement modules;
#                        tests/python/numba_full.sh (hours; the table in build/numba-full/)
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
	NUMBA_MODULES=all SUITES="70-python 71-numba-aarch64 73-numba-lifetime" bash tests/run.sh x86_64: aarch64:

check-numba-full: deps all
	$(MAKE) --no-print-directory TARGET=aarch64 all
	bash tests/python/numba_full.sh $(BUILD)

bench-python: all
	bash bench/python/run.sh $(BUILD)

.PHONY: install-python uninstall-python check-numba check-numba-full bench-python
