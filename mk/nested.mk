# Nested VFIO bench (tests/nested/README.md): an L1 VM is the host (igb PF
# with the CompSC PF series, vfio, compsc_vfio on VF0 and VF1, Debian's
# QEMU over 9p), L2 VMs are the guests (CompSC igbvf on a passed-through VF).
#
#   make kmod-vfio     hypervisor-glue/vfio -> $(KMOD)/compsc_vfio/compsc_vfio.ko
#   make kmod-vfio-core Debian's vfio.ko rebuilt with DMA logging reports
#                      (hypervisor-glue/vfio-core) -> $(KMOD)/vfio-core/vfio.ko
#   make nested-test   the pytest suite in tests/nested (needs root)
#   make bench-e2e     downtime: CompSC vs virtio-net vs hot-unplug/replug
#   make bench-shadow  downtime for an unmodified igbvf: guest-shadow vs plain
#                      hot-unplug/replug vs net_failover, CompSC for reference
#
# L1 runs under TCG (this machine's /dev/kvm runs no ordinary guest); the
# L2s run on KVM inside L1 (kvm-amd over the SVM and nested paging that
# TCG emulates), at L1's speed. NESTED_ACCEL=tcg runs them under TCG
# inside TCG instead, about 26 times slower: a fallback, not the bench.
NESTED_ACCEL ?= kvm

VFIO_KO     := $(KMOD)/compsc_vfio/compsc_vfio.ko
VFIO_CORE_KO := $(KMOD)/vfio-core/vfio.ko
NESTED      := $(TOP)/tests/nested
NESTED_ENV  := $(BENCH_ENV) COMPSC_VFIO_KO=$(VFIO_KO) \
	       COMPSC_VFIO_CORE_KO=$(VFIO_CORE_KO) \
	       COMPSC_KROOT=$(KROOT) PYTHONPATH=$(HARNESS_PATH):$(NESTED) \
	       COMPSC_L2_ACCEL=$(NESTED_ACCEL)
# L2 boots the small kernel with modules built for it (mk/l2kernel.mk).
NESTED_ENV  += $(L2K_ENV)
NESTED_TIMEOUT ?= 1500
# Test files run NESTED_JOBS at a time (pytest-xdist, --dist loadfile: each
# worker has its own peer namespace and L1, handed from file to file where
# a file leaves it as it found it: tests/nested/conftest.py L1Pool). A
# test keeps about one core busy while L1s boot and migrate, and leaves it
# idle while it waits on a guest. However many workers, at most one L1 a
# core runs at once on the machine (a two-host file's pair counts two;
# nested.py L1_SLOTS, COMPSC_L1_SLOTS): more starved the L2s inside them
# (docs/results.md). NESTED_JOBS=1: one at a time, in this process (-s
# then shows the tests' prints).
NESTED_JOBS ?= 2
NESTED_PY      := $(call py_with,xdist)
NESTED_TIMEOUT_OPT := $(shell $(NESTED_PY) -c 'import pytest_timeout' 2>/dev/null && \
		      echo --timeout=$(NESTED_TIMEOUT))
NESTED_PYTEST  := $(NESTED_TIMEOUT_OPT) \
		  $(if $(filter-out 0 1,$(NESTED_JOBS)),-n $(NESTED_JOBS) --dist loadfile)

TEST_SUITES += nested-test

.PHONY: kmod-vfio kmod-vfio-core nested-test bench-e2e bench-shadow bench-dpdk-nested nested-dpdk-test bench-libvirt
kmod-vfio: $(VFIO_KO)
$(VFIO_KO): $(KMOD_KOS) $(wildcard $(TOP)/hypervisor-glue/vfio/*)
	mkdir -p $(@D)
	rsync -a --delete $(KBUILD_JUNK) $(TOP)/hypervisor-glue/vfio/ $(@D)/
	$(MAKE) -C $(KDIR) M=$(@D) COMPSC_INC=$(KMOD)/libcompsc/include \
		KBUILD_EXTRA_SYMBOLS=$(KMOD)/libcompsc/Module.symvers COMPSC_FAULTS=y modules

# Upstream files come out of the pinned linux-source tarball on each build
# (never into the repo): the top of drivers/vfio and iova_bitmap.c. The
# module only counts as built once its CRCs match Debian's.
VFIO_CORE_DIR := $(TOP)/hypervisor-glue/vfio-core
# $(call vfio_core_sources,DIR): those files, flat in DIR (mk/deb.mk too).
vfio_core_sources = tar -xJf $(KSOURCE_TAR) -C $1 \
	--wildcards --no-wildcards-match-slash --transform='s|.*/||' \
	'$(KERNEL_SOURCE)/drivers/vfio/*.[ch]' \
	'$(KERNEL_SOURCE)/drivers/iommu/iommufd/iova_bitmap.c'
kmod-vfio-core: $(VFIO_CORE_KO)
$(VFIO_CORE_KO): $(KSTAMP) $(wildcard $(VFIO_CORE_DIR)/*)
	rm -rf $(@D) && mkdir -p $(@D)
	cp $(VFIO_CORE_DIR)/Kbuild $(@D)/
	$(call vfio_core_sources,$(@D))
	$(MAKE) -C $(KDIR) M=$(@D) modules
	$(VFIO_CORE_DIR)/check-crcs.sh $(KDIR)/Module.symvers $(@D)/Module.symvers || \
		{ rm -f $@; exit 1; }

nested-test bench-e2e bench-shadow bench-dpdk-nested: l2-kmods

# The root filesystem of the L1 hosts that run libvirt
# (test_virsh_migrate.py): Debian with the project's packages (from `make
# deb`, made first if there are none) and libvirt installed by apt;
# made again when the packages or the script change.
L1ROOT := $(BUILD)/nested/l1root
NESTED_ENV += COMPSC_L1ROOT=$(L1ROOT)
.PHONY: l1root
l1root: $(L1ROOT).stamp
$(L1ROOT).stamp: $(NESTED)/l1root.sh $(wildcard $(DEB_DIR)/compsc-*.deb) $(KSTAMP)
	ls $(DEB_DIR)/compsc-host_*.deb >/dev/null 2>&1 || $(MAKE) deb
	$(TOP)/tests/deb/chroot-base.sh $(DEB_CHROOT) $(KCACHE)/debs $(KREL)
	nice $(NESTED)/l1root.sh $(L1ROOT) $(DEB_CHROOT) $(DEB_DIR) $(KREL)
nested-test: l1root
# its nested half (mk/integrity.mk)
check-integrity: l2-kmods $(VFIO_KO) $(VFIO_CORE_KO)
nested-test: initramfs $(VFIO_KO) $(VFIO_CORE_KO)
	cd $(NESTED) && $(NESTED_ENV) $(NESTED_PY) -m pytest -p no:cacheprovider -v -rs \
		--durations=0 $(NESTED_PYTEST) $(PYTEST_ARGS) .

# All three modes; BENCH_E2E_MODES="virtio unplug" runs only those (debugging).
# Results: $(BUILD)/bench-e2e/<time>/report.json and gaps.png (matplotlib).
# NIC=82599 (mk/bench-migrate.mk): L1's NIC the project's 82599 model.
bench-e2e: initramfs $(VFIO_KO) $(VFIO_CORE_KO) $(if $(filter 82599,$(NIC)),qemu)
	cd $(NESTED) && $(NESTED_ENV) BENCH_E2E_NIC=$(NIC) $(call py_with,matplotlib) \
		bench_e2e.py $(BENCH_E2E_MODES)

# virsh migrate round trips between two L1 hosts with libvirt, CompSC
# against virtio-net through the same libvirt (tests/nested/bench_libvirt.py);
# report in $(BUILD)/bench-libvirt/<time>/report.json.
bench-libvirt: initramfs l2-kmods l1root $(VFIO_KO) $(VFIO_CORE_KO)
	cd $(NESTED) && $(NESTED_ENV) $(NESTED_PY) bench_libvirt.py

# tests/nested/test_dpdk_nested.py alone (nested-test runs it among the rest).
nested-dpdk-test: initramfs $(VFIO_KO) $(VFIO_CORE_KO) l2-kmods
	cd $(NESTED) && $(NESTED_ENV) $(NESTED_PY) -m pytest -p no:cacheprovider \
		-v -rs -rP --durations=0 $(NESTED_TIMEOUT_OPT) $(PYTEST_ARGS) test_dpdk_nested.py

# DPDK on a bench that pauses the guest: the same migrations with DPDK's
# testpmd on the CompSC igb VF PMD in the L2 (compsc-dpdk), against the same
# testpmd on DPDK's bonding + hot-unplug method (dpdk-bonding: a bond over
# the VF and virtio-net, the VF unplugged around the migration), on
# virtio-net alone (dpdk-virtio), the kernel CompSC igbvf and kernel
# virtio-net. Not in make test. BENCH_E2E_MODES as for bench-e2e;
# BENCH_E2E_PCSAMPLE=1 names what the L2's vCPU ran after the switch-over,
# testpmd's code included.
bench-dpdk-nested: initramfs $(VFIO_KO) $(VFIO_CORE_KO)
	cd $(NESTED) && $(NESTED_ENV) $(call py_with,matplotlib) bench_e2e.py \
		$(or $(BENCH_E2E_MODES),compsc-dpdk dpdk-bonding compsc-log virtio dpdk-virtio)

# Not in make test. All four modes; BENCH_SHADOW_MODES="shadow
# failover" runs only those (debugging), BENCH_SHADOW_N the migrations per
# mode (default 5). Results: $(BUILD)/bench-shadow/<time>/report.json.
# The full run took 11 min 45 s here (L1 boot, four L2 boots, 20 migrations).
bench-shadow: initramfs $(VFIO_KO) $(VFIO_CORE_KO)
	cd $(NESTED) && $(NESTED_ENV) $(PYTHON) bench_shadow.py $(BENCH_SHADOW_MODES)
