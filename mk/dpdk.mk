# DPDK with the CompSC igb VF poll-mode driver (drivers/dpdk/README.md).
#
#   make dpdk-fetch    download + unpack Debian's dpdk source package (cached)
#   make dpdk          copy it to $(DPDK_OUT)/src, apply drivers/dpdk/*.patch
#                      onto the copy, meson + ninja (static, only the PCI bus,
#                      the ring mempool, net/e1000, net/bonding and
#                      net/af_packet for bench-dpdk, net/virtio for
#                      bench-dpdk-nested, and testpmd)
#   make dpdk-check    the PMD's checks that need no device, and DPDK's
#                      own style check of the series (in make test)
#
# `make vm-test` (so `make test`) builds testpmd through $(DPDK_TESTPMD)
# for the bench image (mk/bench.mk, BENCH_DPDK): about 2 minutes the first
# time in a checkout, a no-op after. The helper the PMD links
# (libcompsc/user/uvf.c) is tested by `make unit`.
# DPDK_CACHE (where the source is cached) can be overridden.

include $(TOP)/mk/dpdk.version

DPDK_CACHE ?= $(HOME)/.cache/compsc/dpdk-$(DPDK_VERSION)
DPDK_TREE  := $(DPDK_CACHE)/tree
DPDK_SCRIPTS := $(TOP)/drivers/dpdk/scripts
# As for the kernel: the cache is shared by every checkout, so what decides
# a re-fetch is content (the pin and the script), under a lock.
DPDK_FETCH_ID := $(shell cat $(TOP)/mk/dpdk.version $(SCRIPTS)/debsrc-fetch.sh | \
		   sha256sum | cut -c1-12)
DPDK_STAMP := $(DPDK_CACHE)/.unpacked-$(DPDK_FETCH_ID)
DPDK_OUT   := $(BUILD)/dpdk
DPDK_JOBS  ?= 2

TEST_SUITES += dpdk-check
.PHONY: dpdk-fetch dpdk dpdk-check

dpdk-fetch: $(DPDK_STAMP)
$(DPDK_STAMP):
	@mkdir -p $(DPDK_CACHE)
	flock $(DPDK_CACHE).lock sh -c 'test -e $@ || { \
		$(SCRIPTS)/debsrc-fetch.sh $(DPDK_CACHE) $(DPDK_POOL) \
			dpdk_$(DPDK_PKGVER).dsc $(DPDK_DSC_SHA256) && touch $@; }'

# build.sh decides itself what is stale (a hash of the series, libcompsc
# and the meson options; ninja for the rest), so this always runs it;
# testpmd's mtime moves only when ninja relinks it, and only then is the
# bench image rebuilt. The image's rule names the file (mk/bench.mk).
dpdk: $(DPDK_TESTPMD)
$(DPDK_TESTPMD): $(DPDK_STAMP) FORCE
	DPDK_JOBS=$(DPDK_JOBS) $(DPDK_SCRIPTS)/build.sh $(DPDK_TREE) \
		$(TOP)/drivers/dpdk $(TOP)/libcompsc $(DPDK_OUT)

# Style: DPDK's devtools/checkpatches.sh with the kernel's checkpatch.pl,
# extracted as the vendor checks extract it (tests/vendor/lib.sh).
DPDK_CHECKPATCH ?= $(BUILD)/vendor/checkpatch/scripts/checkpatch.pl
$(BUILD)/vendor/checkpatch/scripts/checkpatch.pl: $(KSTAMP)
	mkdir -p $(BUILD)/vendor && OUT=$(BUILD)/vendor/dpdk LINUX_SOURCE=$(KSOURCE_TAR) \
		bash -c '. $(TOP)/tests/vendor/lib.sh && vendor_checkpatch_get'

dpdk-check: dpdk $(BUILD)/plain/libcompsc.a $(DPDK_CHECKPATCH)
	CHECKPATCH=$(DPDK_CHECKPATCH) $(DPDK_SCRIPTS)/check.sh $(DPDK_OUT) \
		$(TOP)/drivers/dpdk $(BUILD)/plain/libcompsc.a
