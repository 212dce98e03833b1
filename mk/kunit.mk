# libcompsc's self-test as a KUnit suite (libcompsc/kernel/selftest_kunit.c).
#
#   make kunit   the suite "compsc" in a UML kernel that KUnit's own tool
#                (kunit.py) builds from the L2 kernel's unpacked source:
#                Debian's kernels have no CONFIG_KUNIT. The scratch tree and
#                the UML build are cached ($(KUNIT_OUT)), so a run after
#                the first rebuilds only the library's objects.

# Deferred (=), and the prerequisite by its phony name: mk/l2kernel.mk,
# which defines L2K_*, is read after this file.
KUNIT_OUT = $(L2K_CACHE)/kunit-um-$(KERNEL_ABI)

.PHONY: kunit
TEST_SUITES += kunit
kunit: l2kernel
	nice -n 10 $(TOP)/tests/kunit/run.sh $(L2K_SRC) $(TOP)/libcompsc $(KUNIT_OUT)
