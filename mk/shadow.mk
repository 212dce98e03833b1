# guest-shadow: gshadow.ko, built against Debian's headers like the other
# bench modules and carried in the VM image as /lib/compsc/kmod/gshadow.ko.
#
#   make kmod-shadow   $(BUILD)/kmod/gshadow/gshadow.ko
#
# libcompsc's sources are copied in as compsc/ (the replay log is linked
# into the module, so it needs no compsc.ko), like a patched VF driver's.
SHADOW_DIR := $(KMOD)/gshadow
SHADOW_KO  := $(SHADOW_DIR)/gshadow.ko

.PHONY: kmod-shadow
kmod-shadow: $(SHADOW_KO)
$(SHADOW_KO): $(KSTAMP) $(wildcard $(TOP)/guest-shadow/*) \
	      $(shell find $(TOP)/libcompsc -name '*.[ch]' -o -name '*.mk' -o -name Kbuild)
	@mkdir -p $(SHADOW_DIR)
	flock $(SHADOW_DIR).lock sh -c '\
		rsync -a --delete $(KBUILD_JUNK) --exclude=compsc $(TOP)/guest-shadow/ $(SHADOW_DIR)/ && \
		rsync -a --delete $(KBUILD_JUNK) $(TOP)/libcompsc/ $(SHADOW_DIR)/compsc/ && \
		$(MAKE) -C $(KDIR) M=$(SHADOW_DIR) modules'

# The VM image carries it (mk/bench.mk installs $(SHADOW_KO) with the others).
$(INITRD): $(SHADOW_KO)

# A bench-only lower (tests/kmod/gshadow_testlower: ethtool begin that can
# refuse, a device that can go absent); test_shadow_ethtool_begin copies it
# into the VM, so it is not in the image.
SHADOW_TESTLOWER_KO := $(KMOD)/gshadow_testlower/gshadow_testlower.ko
$(SHADOW_TESTLOWER_KO): $(KSTAMP) $(wildcard $(TOP)/tests/kmod/gshadow_testlower/*)
	mkdir -p $(@D)
	rsync -a --delete $(KBUILD_JUNK) $(TOP)/tests/kmod/gshadow_testlower/ $(@D)/
	$(MAKE) -C $(KDIR) M=$(@D) modules
vm-test: $(SHADOW_TESTLOWER_KO)
