# The QEMU test bench (tests/vm/README.md): Debian kernel inputs, out-of-tree
# driver builds, libcompsc as a kernel module, the VM's initramfs, the suite.
#
#   make kernel        fetch + unpack the pinned Debian kernel (cached)
#   make driver DRIVER=igbvf [SERIES=drivers/igbvf] [NAME=igbvf]
#                      upstream driver + `git am` of SERIES/*.patch, built
#                      against the headers -> $(BUILD)/drivers/NAME/DRIVER.ko
#   make kmod-compsc   compsc.ko (libcompsc/Kbuild), compsc_selftest.ko and
#                      the stand-in, compsc_standin.ko (hypervisor-glue/standin)
#   make initramfs     $(BUILD)/vm/initrd.img (+ vmlinuz link next to it)
#   make vm-test       the pytest suite in tests/vm (needs root: netns, tap)
#   make vm-shell      boot the bench VM with its console on this terminal
#
# KCACHE (where kernels are cached) and KDIR can be overridden.

include $(TOP)/mk/kernel.version

KREL     := $(KERNEL_ABI)-$(KERNEL_FLAVOUR)
KCACHE   ?= $(HOME)/.cache/compsc/kernel-$(KERNEL_ABI)
KROOT    := $(KCACHE)/root
KDIR     ?= $(KROOT)/usr/src/linux-headers-$(KREL)
KSRC     := $(KCACHE)/src
# The cache is shared by every checkout on the machine, and several makes
# may run at once: what decides a re-fetch is content (the version pin and
# the script), not a checkout's file times, and the fetch runs under a lock
# that re-checks the stamp (kernel-fetch.sh removes the tree it replaces).
KFETCH_ID := $(shell cat $(TOP)/mk/kernel.version $(SCRIPTS)/kernel-fetch.sh | \
		sha256sum | cut -c1-12)
KSTAMP   := $(KCACHE)/.unpacked-$(KFETCH_ID)
# Debian's linux-source tarball, the upstream code of everything we
# rebuild; from the cache, not KROOT, which a debug build points elsewhere.
KSOURCE_TAR := $(KCACHE)/root/usr/src/$(KERNEL_SOURCE).tar.xz
VMDIR    := $(BUILD)/vm
VMLINUZ  := $(VMDIR)/vmlinuz
INITRD   := $(VMDIR)/initrd.img
AGENT    := $(VMDIR)/compsc-agent
BENCH    := $(TOP)/tests/vm
# The harness package (tools/compsc_harness) for Python run outside pytest
# (pytest.ini gives pytest the same path).
HARNESS_PATH := $(TOP)/tools
KMOD     := $(BUILD)/kmod
PYTEST_ARGS ?=

TEST_SUITES += vm-test
.PHONY: kernel driver drivers kmod-compsc initramfs vm-test vm-shell vm-clean

# ---------------------------------------------------------------- kernel
kernel: $(KSTAMP)
$(KSTAMP):
	@mkdir -p $(KCACHE)
	flock $(KCACHE).lock sh -c 'test -e $@ || { \
		$(SCRIPTS)/kernel-fetch.sh $(KCACHE) $(KERNEL_ABI) $(KERNEL_PKGVER) \
			$(KERNEL_FLAVOUR) $(KERNEL_SOURCE) && touch $@; }'

# ---------------------------------------------------------------- drivers
# Drivers may use libcompsc: they get its headers and compsc.ko's symbols
# (and so depend on compsc.ko at load time; guest/compsc-insmod handles that)
# - the PF driver does. A VF driver links the guest helper in instead
# (COMPSC_LIB, see scripts/build-driver.sh) and needs no other module.
# The bench's builds carry libcompsc's test hooks (COMPSC_FAULTS=y,
# libcompsc/kernel/fault.h), which the packages' builds leave out.
HAVE_KMOD  := $(wildcard $(TOP)/libcompsc/Kbuild)
DRIVER_ENV := $(if $(HAVE_KMOD),COMPSC_INC=$(KMOD)/libcompsc/include \
		COMPSC_SYMVERS=$(KMOD)/libcompsc/Module.symvers) \
	      COMPSC_LIB=$(TOP)/libcompsc COMPSC_FAULTS=y
# Generic rule for a developer: any driver, any series, any output name.
DRIVER ?=
SERIES ?= $(TOP)/drivers/$(DRIVER)
NAME   ?= $(DRIVER)
driver: $(KSTAMP) $(if $(HAVE_KMOD),kmod-compsc)
	@test -n "$(DRIVER)" || { echo "usage: make driver DRIVER=igbvf [SERIES=dir] [NAME=out]"; exit 2; }
	$(DRIVER_ENV) $(SCRIPTS)/build-driver.sh $(KSRC) $(KDIR) $(DRIVER) $(SERIES) $(BUILD)/drivers/$(NAME)

# The builds the bench carries into the VM: name:driver:series.
#   igbvf           upstream igbvf + drivers/igbvf (the CompSC VF series)
#   igb             upstream igb + drivers/igb (the PF series)
#   igbvf-upstream  upstream igbvf + an empty series
#   igbvf-param     upstream igbvf + the one-patch proof series (series_tag)
#   ixgbe, ixgbevf  upstream + drivers/ixgbe, drivers/ixgbevf: the 82599
#                   cases (VM(nic="82599"), on QEMU with the project's
#                   model, mk/qemu.mk); BENCH_82599=no leaves them out
#                   (they skip), as a kernel without ixgbe's stock
#                   dependencies (the debug kernel) needs
BENCH_82599   ?= yes
BENCH_DRIVERS := igbvf:igbvf:$(TOP)/drivers/igbvf \
		 igb:igb:$(TOP)/drivers/igb \
		 igbvf-upstream:igbvf:$(TOP)/tests/vm/series/empty \
		 igbvf-param:igbvf:$(TOP)/tests/vm/series/igbvf-param \
		 $(if $(filter yes,$(BENCH_82599)),ixgbe:ixgbe:$(TOP)/drivers/ixgbe \
		 ixgbevf:ixgbevf:$(TOP)/drivers/ixgbevf)
bd_name   = $(word 1,$(subst :, ,$1))
bd_driver = $(word 2,$(subst :, ,$1))
bd_series = $(word 3,$(subst :, ,$1))
bd_ko     = $(BUILD)/drivers/$(call bd_name,$1)/$(call bd_driver,$1).ko
BENCH_KOS := $(foreach d,$(BENCH_DRIVERS),$(call bd_ko,$d))

# build-driver.sh is a no-op when its inputs (kernel, series, script) are
# unchanged, so these rules can always run; .ko mtimes only move on a rebuild.
define bench_driver_rule
$(call bd_ko,$1): $(KSTAMP) $(if $(HAVE_KMOD),kmod-compsc) FORCE
	@$(DRIVER_ENV) $(SCRIPTS)/build-driver.sh $(KSRC) $(KDIR) $(call bd_driver,$1) $(call bd_series,$1) $(BUILD)/drivers/$(call bd_name,$1)
endef
$(foreach d,$(BENCH_DRIVERS),$(eval $(call bench_driver_rule,$d)))
drivers: $(BENCH_KOS)
.PHONY: FORCE
FORCE:

# ---------------------------------------------------------------- libcompsc in the kernel
# The sources are copied so no object file lands in libcompsc/; rsync keeps
# mtimes, so Kbuild stays incremental. Until libcompsc/Kbuild exists the
# bench builds without it and the self-test is skipped (the test says why).
KBUILD_JUNK := --exclude='*.o' --exclude='*.ko' --exclude='*.mod' --exclude='*.mod.c' \
	       --exclude='.*.cmd' --exclude='Module.symvers' --exclude='modules.order' \
	       --exclude='.tmp*' --exclude='*.o.d'
# Modules built on top of compsc.ko: name:source dir. Each is built only
# once its Kbuild exists, into $(KMOD)/<name>/<name>.ko.
KMOD_USERS := compsc_selftest:$(TOP)/tests/kmod/compsc_selftest \
	      compsc_standin:$(TOP)/hypervisor-glue/standin
ku_name = $(word 1,$(subst :, ,$1))
ku_dir  = $(word 2,$(subst :, ,$1))
KMOD_BUILT := $(foreach u,$(KMOD_USERS),$(if $(wildcard $(call ku_dir,$u)/Kbuild),$u))
KMOD_KOS   := $(if $(HAVE_KMOD),$(KMOD)/libcompsc/compsc.ko \
		$(foreach u,$(KMOD_BUILT),$(KMOD)/$(call ku_name,$u)/$(call ku_name,$u).ko))

# Serialised with flock: several people may run make in one checkout.
kmod-compsc: $(KSTAMP)
	@test -f $(TOP)/libcompsc/Kbuild || { echo "kmod-compsc: libcompsc/Kbuild missing"; exit 1; }
	@mkdir -p $(KMOD)
	flock $(KMOD)/.lock $(MAKE) --no-print-directory kmod-compsc-locked
kmod-compsc-locked:
	mkdir -p $(KMOD)/libcompsc
	rsync -a --delete $(KBUILD_JUNK) $(TOP)/libcompsc/ $(KMOD)/libcompsc/
	$(MAKE) -C $(KDIR) M=$(KMOD)/libcompsc COMPSC_FAULTS=y modules
	$(foreach u,$(KMOD_BUILT),mkdir -p $(KMOD)/$(call ku_name,$u) && \
	rsync -a --delete $(KBUILD_JUNK) $(call ku_dir,$u)/ $(KMOD)/$(call ku_name,$u)/ && \
	$(MAKE) -C $(KDIR) M=$(KMOD)/$(call ku_name,$u) COMPSC_INC=$(KMOD)/libcompsc/include \
		KBUILD_EXTRA_SYMBOLS=$(KMOD)/libcompsc/Module.symvers modules &&) true
.PHONY: kmod-compsc-locked
$(KMOD_KOS): kmod-compsc

# Bench-only modules (not in the initramfs; tests add them at boot).
BENCH_WARN_KO := $(KMOD)/bench_warn/bench_warn.ko
$(BENCH_WARN_KO): $(KSTAMP) $(wildcard $(TOP)/tests/kmod/bench_warn/*)
	mkdir -p $(@D)
	rsync -a --delete $(KBUILD_JUNK) $(TOP)/tests/kmod/bench_warn/ $(@D)/
	$(MAKE) -C $(KDIR) M=$(@D) modules

# ---------------------------------------------------------------- DPDK in the guest
# vfio.ko with no-IOMMU mode (hypervisor-glue/vfio-core/Kbuild,
# COMPSC_VFIO_NOIOMMU): DPDK in the bench guest drives a VF through
# vfio-pci, and the bench VM has no IOMMU. Always built (a minute of
# kernel build at most); in the image as /lib/compsc/kmod/vfio-noiommu/vfio.ko.
# A kernel without VFIO (the one-VM debug kernel, mk/debugkernel.mk: no
# DPDK runs there) gets an empty file and nothing in the image.
VFIO_NOIOMMU_KO := $(KMOD)/vfio-noiommu/vfio.ko
VFIO_CORE_SRC   := $(TOP)/hypervisor-glue/vfio-core
$(VFIO_NOIOMMU_KO): $(KSTAMP) $(wildcard $(VFIO_CORE_SRC)/*)
	rm -rf $(@D) && mkdir -p $(@D)
	grep -qs '^CONFIG_VFIO=[ym]' $(KDIR)/.config || \
		{ echo "vfio-noiommu: no VFIO in $(KDIR): not built"; touch $@; }
	[ -e $@ ] || cp $(VFIO_CORE_SRC)/Kbuild $(@D)/
	[ -e $@ ] || $(call vfio_core_sources,$(@D))
	[ -e $@ ] || $(MAKE) -C $(KDIR) M=$(@D) COMPSC_VFIO_NOIOMMU=y modules
	[ ! -s $@ ] || $(VFIO_CORE_SRC)/check-crcs.sh $(KDIR)/Module.symvers $(@D)/Module.symvers || \
		{ rm -f $@; exit 1; }
# testpmd with the CompSC igb VF PMD (mk/dpdk.mk builds it) goes into the
# image, so `make vm-test` (and `make test`) runs the DPDK tests.
# BENCH_DPDK=no leaves it out (the DPDK tests then skip and say why): the
# one-VM debug kernel has no VFIO (mk/debugkernel.mk), and a developer may
# not want the first build's two minutes.
BENCH_DPDK    ?= yes
DPDK_TESTPMD  := $(BUILD)/dpdk/build/app/dpdk-testpmd
DPDK_IN_IMAGE := $(if $(filter yes,$(BENCH_DPDK)),$(DPDK_TESTPMD))

# ---------------------------------------------------------------- the VM image
$(AGENT): $(BENCH)/guest/agent.c
	@mkdir -p $(@D)
	$(CC) -static -O2 -Wall -Wextra -o $@ $<

$(VMLINUZ): $(KSTAMP)
	@mkdir -p $(@D)
	ln -sfn $(KROOT)/boot/vmlinuz-$(KREL) $@

# Our modules go to /lib/compsc/{drivers/<name>,kmod}/ in the guest, the
# compsc CLI to /usr/sbin/compsc. The module tree stays in $(LIBCOMPSC) for
# the tests (COMPSC_MODULES, compsc_harness/vm.py) and for mk/deb.mk, which swaps
# DKMS builds in.
LIBCOMPSC := $(VMDIR)/lib-compsc
$(INITRD): $(KSTAMP) $(AGENT) $(BENCH_KOS) $(KMOD_KOS) $(BENCH)/mkinitramfs.sh $(BUILD)/compsc \
	   $(VFIO_NOIOMMU_KO) $(DPDK_IN_IMAGE) \
	   $(wildcard $(BENCH)/guest/*) $(if $(wildcard $(LIBCOMPSC)),,FORCE)
	@mkdir -p $(VMDIR)
	set -e; x=$(LIBCOMPSC).new; rm -rf $$x; \
	$(foreach d,$(BENCH_DRIVERS),install -D -m 0644 $(call bd_ko,$d) \
		$$x/drivers/$(call bd_name,$d)/$(call bd_driver,$d).ko;) \
	$(foreach k,$(KMOD_KOS) $(SHADOW_KO),install -D -m 0644 $k $$x/kmod/$(notdir $k);) \
	[ ! -s $(VFIO_NOIOMMU_KO) ] || \
		install -D -m 0644 $(VFIO_NOIOMMU_KO) $$x/kmod/vfio-noiommu/vfio.ko; \
	DPDK_APPS="$(DPDK_IN_IMAGE)" \
	$(BENCH)/mkinitramfs.sh $@ $(KROOT) $(KREL) $(AGENT) $$x $(BUILD)/compsc; \
	rm -rf $(LIBCOMPSC); mv $$x $(LIBCOMPSC)

initramfs: $(INITRD) $(VMLINUZ)

# ---------------------------------------------------------------- run
BENCH_ENV := COMPSC_BUILD=$(BUILD) COMPSC_VMLINUZ=$(VMLINUZ) COMPSC_INITRD=$(INITRD) \
	     COMPSC_KREL=$(KREL) PYTHONDONTWRITEBYTECODE=1

# Every test also has a hard limit (pytest-timeout, when installed): a hung
# guest fails its test instead of the job. Guest commands time out sooner.
VM_TEST_TIMEOUT ?= 900
PYTEST_TIMEOUT  := $(shell $(PYTHON) -c 'import pytest_timeout' 2>/dev/null && \
		     echo --timeout=$(VM_TEST_TIMEOUT))

# Test files run VM_JOBS at a time (pytest-xdist, --dist loadfile): each
# worker boots its own session VM and peer namespace. A TCG guest keeps
# about one core busy, so on 2 cores two at a time take little more than
# half the time. VM_JOBS=1: one after another in this process (-s then
# shows the tests' prints).
VM_JOBS   ?= 2
VM_PY      = $(call py_with,xdist)
VM_PYTEST  = $(if $(filter-out 0 1,$(VM_JOBS)),$(VM_PY) -m pytest -n $(VM_JOBS) --dist loadfile \
	     $(shell $(VM_PY) -c 'import pytest_timeout' 2>/dev/null && \
		     echo --timeout=$(VM_TEST_TIMEOUT)),$(PYTHON) -m pytest $(PYTEST_TIMEOUT))

vm-test: initramfs $(BENCH_WARN_KO)
	cd $(BENCH) && $(BENCH_ENV) $(VM_PYTEST) -p no:cacheprovider -v -rs \
		--durations=0 $(PYTEST_ARGS) .

vm-shell: initramfs
	$(BENCH_ENV) PYTHONPATH=$(HARNESS_PATH) $(PYTHON) $(BENCH)/vmshell.py

vm-clean:
	rm -rf $(VMDIR) $(BUILD)/drivers $(KMOD)
