# CompSC — every entry point lives here. Sub-makefiles in mk/ add targets.
#
#   make             build everything buildable (userspace library, tools)
#   make test        every test suite (what CI runs)
#   make unit        libcompsc userspace tests, plain and with ASan+UBSan
#   make install-lib libcompsc.so.0, its headers, libcompsc.pc, man pages (DESTDIR, PREFIX)
#   make fuzz-smoke  replay the fuzz corpus; short libFuzzer runs if clang is present
#   make bench-lock  reader-side cost vs pthread_rwlock
#   make vm-test     the QEMU bench: real igb PF + igbvf VFs (see mk/bench.mk)
#   make demo        the main job (see README.md)

TOP      := $(abspath .)
BUILD    ?= $(TOP)/build
# the build's own scripts (kernel fetch, driver trees), run by make and by
# the Debian packages' DKMS builds
SCRIPTS  := $(TOP)/scripts
CC       ?= cc
PYTHON   ?= python3

.PHONY: all test unit fuzz-smoke bench-lock demo clean
all:

include mk/lib.mk
# Every other mk/*.mk adds its own targets and suites.
include $(filter-out mk/lib.mk,$(sort $(wildcard mk/*.mk)))

# `make test` runs every suite that exists; suites add themselves to TEST_SUITES.
# A failing suite stops make before this line, with a non-zero exit.
test: $(TEST_SUITES)
	@echo "make test: every suite passed: $(TEST_SUITES)"
	@echo "suites: $(words $(TEST_SUITES)) passed, 0 failed"

clean:
	rm -rf $(BUILD)
