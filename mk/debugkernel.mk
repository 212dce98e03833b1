# The one-VM bench on a debug kernel: KASAN, lockdep, atomic-
# sleep checks, kmemleak, debugobjects, KFENCE (tests/vm/debugkernel.config).
# Built once from the pinned linux-source and cached next to KCACHE like
# the nested L2 kernel; our modules and patched drivers are built against
# it in a parallel build tree, $(BUILD)/debug, by bench.mk's own rules.
#
#   make debug-kernel     the kernel (cached; ~15-25 min on 2 cores, once)
#   make debug-initramfs  $(BUILD)/debug/vm/{vmlinuz,initrd.img} and modules
#   make vm-test-debug    tests/vm on it (PYTEST_ARGS as for vm-test)
#   make debug-check      tests/soak: each detector fires once, a clean run
#                         is clean
#   make soak             mk/soak.mk
#
# Not part of `make test`. DBGK_JOBS (default: every CPU) sets the -j.

DBGK_CONFIG := $(TOP)/tests/vm/debugkernel.config
DBGK_SCRIPT := $(TOP)/tests/vm/debugkernel-build.sh
DBGK_HASH   := $(shell { cat $(DBGK_CONFIG) $(DBGK_SCRIPT) \
			$(TOP)/tests/nested/l2kernel-build.sh; gcc --version | head -1; } | \
		sha256sum | cut -c1-12)
DBGK_CACHE  := $(patsubst %/,%,$(dir $(KCACHE)))
# The unpacked linux-source is the L2 kernel's (one unpack per version).
DBGK_SRC    := $(DBGK_CACHE)/l2kernel-$(KERNEL_ABI)-src
DBGK_DIR    := $(DBGK_CACHE)/debugkernel-$(KERNEL_ABI)-$(DBGK_HASH)
DBGK_STAMP  := $(DBGK_DIR)/root/.installed
DBGK_BUILD  := $(BUILD)/debug
DBGK_JOBS   ?= $(shell nproc)
# bench.mk's variables for the parallel tree: its KSRC stays Debian's
# source (the drivers' upstream code), the kernel they build against and
# the stock modules the image carries come from the debug tree.
# No DPDK: the debug kernel has no VFIO for it to drive a VF through. No
# 82599: it has none of ixgbe's stock dependencies (MDIO, DCA, PHY).
DBGK_VARS    = BUILD=$(DBGK_BUILD) KDIR=$(DBGK_DIR) KROOT=$(DBGK_DIR)/root \
	       KREL=$$(cat $(DBGK_DIR)/include/config/kernel.release) BENCH_DPDK=no \
	       BENCH_82599=no

# Test modules that commit each bug on purpose (bench builds only).
BENCH_BUGS_KO := $(KMOD)/bench_bugs/bench_bugs.ko
$(BENCH_BUGS_KO): $(KSTAMP) $(wildcard $(TOP)/tests/kmod/bench_bugs/*)
	mkdir -p $(@D)
	rsync -a --delete $(KBUILD_JUNK) $(TOP)/tests/kmod/bench_bugs/ $(@D)/
	$(MAKE) -C $(KDIR) M=$(@D) modules

.PHONY: debug-kernel debug-initramfs vm-test-debug debug-check
debug-kernel: $(DBGK_STAMP)
$(DBGK_STAMP): | $(KSTAMP)
	L2K_JOBS=$(DBGK_JOBS) $(DBGK_SCRIPT) $(KROOT)/usr/src/$(KERNEL_SOURCE).tar.xz \
		$(DBGK_SRC) $(DBGK_DIR) $(DBGK_CONFIG)

debug-initramfs: $(DBGK_STAMP)
	$(MAKE) --no-print-directory initramfs $(DBGK_BUILD)/kmod/bench_warn/bench_warn.ko \
		$(DBGK_BUILD)/kmod/bench_bugs/bench_bugs.ko $(DBGK_VARS)

# COMPSC_DEBUG_KERNEL tells the harness what it boots (more guest memory).
vm-test-debug: debug-initramfs
	COMPSC_DEBUG_KERNEL=1 $(MAKE) --no-print-directory vm-test $(DBGK_VARS)

debug-check: debug-initramfs
	cd $(TOP)/tests/soak && COMPSC_DEBUG_KERNEL=1 COMPSC_BUILD=$(DBGK_BUILD) \
		COMPSC_VMLINUZ=$(DBGK_BUILD)/vm/vmlinuz COMPSC_INITRD=$(DBGK_BUILD)/vm/initrd.img \
		PYTHONDONTWRITEBYTECODE=1 $(PYTHON) -m pytest -p no:cacheprovider -v -rs \
		--durations=0 $(PYTEST_TIMEOUT) $(PYTEST_ARGS) test_detectors.py
