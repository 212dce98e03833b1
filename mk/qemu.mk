# QEMU with the project's 82599 model (qemu/README.md).
#
#   make qemu-fetch  download + unpack Debian's qemu source (cached)
#   make qemu        copy it, apply qemu/patches (series order), build
#                    qemu-system-x86_64 (x86_64-softmmu only) and qos-test,
#                    cached in $(QEMU_OUT) by the hash of the series
#   make qemu-test   the model's qtests (tests/qtest/ixgbe-test.c and
#                    ixgbe-sriov-test.c in the series) against that build
#   make qemu-vm-probe  Debian's stock ixgbe on the model in a TCG guest
#                    (VF=1: through a VF, with Debian's stock ixgbevf;
#                    COMPSC=1: through a VF with compsc.ko and the
#                    project's ixgbe and ixgbevf, the CompSC area registered)
#
# Debian's qemu-system-x86 stays the QEMU of every other target; only the
# 82599 tests run $(QEMU_BIN). QEMU_CACHE and QEMU_JOBS can be overridden.

include $(TOP)/mk/qemu.version

QEMU_CACHE   ?= $(HOME)/.cache/compsc
QEMU_SRC     := $(QEMU_CACHE)/qemu-src-$(QEMU_PKGVER)
QEMU_TREE    := $(QEMU_SRC)/tree
QEMU_FETCH_ID := $(shell cat $(TOP)/mk/qemu.version $(SCRIPTS)/debsrc-fetch.sh | \
		 sha256sum | cut -c1-12)
QEMU_STAMP   := $(QEMU_SRC)/.unpacked-$(QEMU_FETCH_ID)
QEMU_SERIES  := $(TOP)/qemu/patches
# What decides a rebuild: the series, the build script (configure options)
# and the version pin; a build is never redone, only a new one made.
QEMU_BUILD_ID := $(shell cat $(TOP)/mk/qemu.version $(TOP)/qemu/scripts/build.sh \
		 $(QEMU_SERIES)/series $(wildcard $(QEMU_SERIES)/*.patch) | \
		 sha256sum | cut -c1-12)
QEMU_OUT     := $(QEMU_CACHE)/qemu-$(QEMU_VERSION)-$(QEMU_BUILD_ID)
QEMU_BIN     := $(QEMU_OUT)/qemu-system-x86_64
QEMU_JOBS    ?= 2

.PHONY: qemu-fetch qemu qemu-test
# In make test: seconds once the build is cached; a fresh cache builds QEMU
# first (about 22 minutes on 2 cores without ccache, 3-5 with it).
TEST_SUITES += qemu-test

qemu-fetch: $(QEMU_STAMP)
$(QEMU_STAMP):
	@mkdir -p $(QEMU_SRC)
	flock $(QEMU_SRC).lock sh -c 'test -e $@ || { \
		$(SCRIPTS)/debsrc-fetch.sh $(QEMU_SRC) $(QEMU_POOL) \
			$(QEMU_FETCH) $(QEMU_FETCH_SHA256) qemu && touch $@; }'

qemu: $(QEMU_BIN)
$(QEMU_BIN): $(QEMU_STAMP)
	@mkdir -p $(QEMU_CACHE)
	flock $(QEMU_OUT).lock env QEMU_JOBS=$(QEMU_JOBS) \
		QEMU_TOOL_DEBS='$(QEMU_TOOL_DEBS)' nice -n 19 \
		$(TOP)/qemu/scripts/build.sh $(QEMU_TREE) $(QEMU_SERIES) \
		$(QEMU_SRC)/tools $(QEMU_OUT)

# qos-test runs every libqos test it knows; -p keeps the 82599's.  The
# SR-IOV tests are their own binary: they need q35's ECAM.
QEMU_QTEST_PATH := /x86_64/pc/i440FX-pcihost/pci-bus-pc/pci-bus/ixgbe/ixgbe-tests
qemu-test: $(QEMU_BIN)
	QTEST_QEMU_BINARY=$(QEMU_BIN) $(QEMU_OUT)/qos-test -p $(QEMU_QTEST_PATH)
	QTEST_QEMU_BINARY=$(QEMU_BIN) $(QEMU_OUT)/ixgbe-sriov-test

# Debian's stock ixgbe on the model in a TCG guest (about 25 s; not in
# make test): probe, MAC, link up, pings and TX checksum offload.
# IPERF=1 (about 45 s, root): iperf3 both ways against the host's stack
# in a netns, through a tap.  VF=1 (about 40 s): the same through VF 0
# (sriov_numvfs, a MAC from the PF, Debian's ixgbevf), then the VF pings
# the PF through the model's internal switch.  COMPSC=1 (implies VF=1,
# about 45 s): the same with compsc.ko and the project's ixgbe and ixgbevf
# (make drivers), and the VF's CompSC area registered with the PF.
.PHONY: qemu-vm-probe
QEMU_PROBE_KOS := $(KMOD)/libcompsc/compsc.ko $(BUILD)/drivers/ixgbe/ixgbe.ko \
		  $(BUILD)/drivers/ixgbevf/ixgbevf.ko
qemu-vm-probe: $(QEMU_BIN) $(KSTAMP) $(if $(COMPSC),$(QEMU_PROBE_KOS))
	$(if $(COMPSC),COMPSC="$(QEMU_PROBE_KOS)") \
	$(TOP)/qemu/scripts/vm-probe.sh $(QEMU_BIN) $(KROOT) $(KREL) $(BUILD)/qemu-probe

# The one-VM bench's 82599 cases (tests/vm, VM(nic="82599")) and the
# nested bench's L1 on the 82599 (tests/nested, L1(nic="82599")) boot this
# build; with BENCH_82599=no (mk/bench.mk) they skip.
ifeq ($(BENCH_82599),yes)
vm-test nested-test: $(QEMU_BIN)
BENCH_ENV += COMPSC_QEMU_82599=$(QEMU_BIN)
NESTED_ENV += COMPSC_QEMU_82599=$(QEMU_BIN)
endif

# Where the build is (for a QEMU command line by hand: README.md there)
.PHONY: qemu-path
qemu-path:
	@echo $(QEMU_OUT)
