# Vendor patch series checks and the build-only vendor drivers.
#
#   make vendor-check  every tests/vendor/*/check.sh: the series applies to
#                      Debian's driver, each prefix builds, checkpatch
#                      --strict, userspace unit tests of the message
#                      encodings, the changed-line budget
#
# A new tests/vendor/<name>/check.sh plugs in with no edit here. The
# checks share compsc.ko's symbols (kmod-compsc) and the kernel cache
# (KSTAMP) with the bench; checkpatch.pl comes from the cached
# linux-source tarball.
VENDOR_OUT    := $(BUILD)/vendor
VENDOR_CHECKS := $(sort $(wildcard $(TOP)/tests/vendor/*/check.sh))
# The series are checked as a vendor carries them: without libcompsc's
# test hooks, which the bench's DRIVER_ENV turns on (COMPSC_FAULTS).
VENDOR_ENV    := $(DRIVER_ENV) COMPSC_FAULTS= \
		 LINUX_SOURCE=$(KROOT)/usr/src/$(KERNEL_SOURCE).tar.xz

TEST_SUITES += vendor-check
.PHONY: vendor-check vendor-drivers

vendor-check: $(KSTAMP) $(if $(HAVE_KMOD),kmod-compsc)
	@mkdir -p $(VENDOR_OUT); set -e; for c in $(VENDOR_CHECKS); do \
		n=$$(basename $$(dirname $$c)); \
		$(VENDOR_ENV) $$c $(KSRC) $(KDIR) $(VENDOR_OUT)/$$n > $(VENDOR_OUT).$$n.log 2>&1 || \
			{ tail -40 $(VENDOR_OUT).$$n.log; echo "vendor-check: $$n failed (log: $(VENDOR_OUT).$$n.log)"; exit 1; }; \
		tail -1 $(VENDOR_OUT).$$n.log; \
	done

# Drivers `make drivers` builds but the VM image does not carry: QEMU
# emulates no E810/X710, and the 82599's are in the image unless
# BENCH_82599=no (mk/bench.mk). name:driver:series, as BENCH_DRIVERS.
BUILD_ONLY_DRIVERS := $(if $(filter yes,$(BENCH_82599)),,ixgbevf:ixgbevf:$(TOP)/drivers/ixgbevf \
		      ixgbe:ixgbe:$(TOP)/drivers/ixgbe) \
		      iavf:iavf:$(TOP)/drivers/iavf
BUILD_ONLY_KOS := $(foreach d,$(BUILD_ONLY_DRIVERS),$(if $(wildcard $(call bd_series,$d)),$(call bd_ko,$d)))
$(foreach d,$(BUILD_ONLY_DRIVERS),$(if $(wildcard $(call bd_series,$d)),$(eval $(call bench_driver_rule,$d))))
vendor-drivers: $(BUILD_ONLY_KOS)
drivers: vendor-drivers
