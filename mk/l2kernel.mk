# The nested bench's L2 kernel. Debian's kernel needs 111-180 s to
# reach userspace in an L2 (TCG inside TCG); this one is Debian's
# linux-source with tinyconfig + tests/nested/l2kernel.config.
#
#   make l2kernel   bzImage and its build tree, once per version + config
#                   (cached next to KCACHE, never under build/)
#   make l2-kmods   compsc.ko and the CompSC igbvf and ixgbevf built against
#                   it; for guest-shadow's tests also Debian's igbvf
#                   unmodified (the empty series, as tests/vm's
#                   igbvf-upstream) and gshadow.ko
#
# L2K_JOBS (default: every CPU) sets the kernel build's -j.

L2K_CONFIG := $(TOP)/tests/nested/l2kernel.config
L2K_SCRIPT := $(TOP)/tests/nested/l2kernel-build.sh
# The tree is keyed by all that decides the kernel: version (in the name),
# config, how it is merged (the script), compiler. Modules must be built
# with the kernel's gcc, so a new gcc means a new tree.
L2K_HASH   := $(shell { cat $(L2K_CONFIG) $(L2K_SCRIPT); gcc --version | head -1; } | \
		sha256sum | cut -c1-12)
L2K_CACHE  := $(patsubst %/,%,$(dir $(KCACHE)))
L2K_SRC    := $(L2K_CACHE)/l2kernel-$(KERNEL_ABI)-src
L2K_DIR    := $(L2K_CACHE)/l2kernel-$(KERNEL_ABI)-$(L2K_HASH)
L2K_STAMP  := $(L2K_DIR)/.built
L2K_IMAGE  := $(L2K_DIR)/arch/x86/boot/bzImage
# Unlike the tree, the modules follow the checkout's sources: build/.
L2K_KMOD   := $(BUILD)/l2/kmod
L2K_COMPSC := $(L2K_KMOD)/libcompsc/compsc.ko
L2K_IGBVF  := $(BUILD)/drivers/igbvf-l2/igbvf.ko
L2K_STOCK_IGBVF := $(BUILD)/drivers/igbvf-stock-l2/igbvf.ko
# For an L1 whose NIC is the 82599 model (tests/nested, L1(nic="82599"));
# BENCH_82599=no (mk/bench.mk) builds none, and those cases skip.
L2K_IXGBEVF := $(if $(filter yes,$(BENCH_82599)),$(BUILD)/drivers/ixgbevf-l2/ixgbevf.ko)
L2K_SHADOW := $(L2K_KMOD)/gshadow/gshadow.ko
# What tests/nested/nested.py reads (mk/nested.mk adds it to NESTED_ENV).
L2K_ENV    := COMPSC_L2_VMLINUZ=$(L2K_IMAGE) COMPSC_L2_COMPSC_KO=$(L2K_COMPSC) \
	      COMPSC_L2_IGBVF_KO=$(L2K_IGBVF) COMPSC_L2_STOCK_IGBVF_KO=$(L2K_STOCK_IGBVF) \
	      COMPSC_L2_GSHADOW_KO=$(L2K_SHADOW) COMPSC_L2_IXGBEVF_KO=$(L2K_IXGBEVF)

.PHONY: l2kernel l2-kmods
l2kernel: $(L2K_STAMP)
$(L2K_STAMP): | $(KSTAMP)
	L2K_JOBS=$(L2K_JOBS) $(L2K_SCRIPT) $(KSOURCE_TAR) \
		$(L2K_SRC) $(L2K_DIR) $(L2K_CONFIG)

# bench.mk's own `driver` and `kmod-compsc` rules, pointed at the L2 tree.
# No self-test or stand-in module (KMOD_USERS): L2 only loads these.
l2-kmods: $(L2K_STAMP)
	$(MAKE) --no-print-directory driver DRIVER=igbvf SERIES=$(TOP)/drivers/igbvf \
		NAME=igbvf-l2 KDIR=$(L2K_DIR) KMOD=$(L2K_KMOD) KMOD_USERS=
	$(if $(L2K_IXGBEVF),$(MAKE) --no-print-directory driver DRIVER=ixgbevf \
		SERIES=$(TOP)/drivers/ixgbevf NAME=ixgbevf-l2 KDIR=$(L2K_DIR) KMOD=$(L2K_KMOD) \
		KMOD_USERS=)
	$(MAKE) --no-print-directory driver DRIVER=igbvf SERIES=$(TOP)/tests/vm/series/empty \
		NAME=igbvf-stock-l2 KDIR=$(L2K_DIR) KMOD=$(L2K_KMOD) KMOD_USERS=
	$(MAKE) --no-print-directory kmod-shadow KDIR=$(L2K_DIR) KMOD=$(L2K_KMOD)
