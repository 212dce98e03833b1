# Debian packages (debian/): DKMS sources for host and guest, the tools.
#
#   make deb        build/deb/*.deb: compsc-host, compsc-guest (DKMS),
#                   compsc-vfio-core (DKMS, opt-in), compsc-tools
#   make deb-test   the packages, then DKMS for the pinned kernel in a
#                   scratch tree (never the host's own), then the bench VM
#                   booted with the modules DKMS produced (tests/deb/);
#                   and deb-apt
#   make deb-apt    the packages installed with apt into a clean Debian 12
#                   chroot with the pinned kernel, a non-matching kernel
#                   installed after them, lintian (tests/deb/apt-install.sh;
#                   about 2.5 minutes, plus about 3 the first time, when the
#                   chroot is made and cached in ~/.cache/compsc/deb-chroot)
#
# dpkg-buildpackage runs in a staging copy of the checkout, so nothing is
# written into it. The staging copy also gets linux-drivers/: the patched
# igb and igbvf (scripts/driver-tree.sh, as the bench makes them) and the
# VFIO core sources, all from the pinned linux-source package.

DEB_DIR   := $(BUILD)/deb
DEB_STAGE := $(DEB_DIR)/stage/compsc
DEB_TEST  := $(DEB_DIR)/test
DEB_VM    := $(DEB_DIR)/vm
DEB_TESTS := test_modules_loaded.py test_igbvf_standalone.py \
	     test_migrate_idle.py test_migrate_counters.py

TEST_SUITES += deb-test
.PHONY: deb deb-test deb-dkms deb-apt

# The base chroot is cached per pinned kernel and per version of the
# script that makes it.
DEB_CHROOT := $(HOME)/.cache/compsc/deb-chroot/bookworm-$(KREL)-$(shell \
	sha1sum $(TOP)/tests/deb/chroot-base.sh | cut -c1-12).tar.zst

# $(call deb_driver,DRIVER,SERIES[,COMPSC_LIB]): the patched driver directory.
deb_driver = $(SCRIPTS)/driver-tree.sh prepare $(KSRC) $1 $2 $(DEB_STAGE).trees/$1 $3 && \
	cp -a $(DEB_STAGE).trees/$1/drivers/net/ethernet/intel/$1 $(DEB_STAGE)/linux-drivers/

# DKMS installs a module in place of the kernel's own only if its
# MODULE_VERSION sorts above the stock one (dkms's check_version_sanity):
# Debian's igb and igbvf carry none, which DKMS takes for "the same
# version" and keeps the stock module; vfio.ko's is "0.3". The packaged
# sources get compsc-<package version> (vfio: 0.3+compsc-<version>); the
# bench's own builds keep the stock sources.
# $(call deb_modver,FILE,HOW,VERSION): HOW is MODULE_VERSION (added after
# MODULE_LICENSE) or DRIVER_VERSION (appended to the #define).
DEB_PKGVER := $(shell dpkg-parsechangelog -l $(TOP)/debian/changelog -S Version)
deb_modver = f=$(DEB_STAGE)/linux-drivers/$1; \
	if [ $2 = MODULE_VERSION ]; then \
		! grep -q '^MODULE_VERSION(' $$f && \
		sed -i '/^MODULE_LICENSE(/a MODULE_VERSION("$3");' $$f; \
	else \
		sed -i 's/^\(\#define DRIVER_VERSION[[:space:]]*"[^"]*\)"/\1$3"/' $$f; \
	fi && grep -q '$3"' $$f || { echo "deb: cannot set the module version in $$f" >&2; exit 1; }

deb: $(KSTAMP)
	rm -rf $(DEB_DIR)/stage $(DEB_DIR)/*.deb $(DEB_DIR)/*.buildinfo $(DEB_DIR)/*.changes
	mkdir -p $(DEB_STAGE)/linux-drivers/vfio-core
	cd $(TOP) && git ls-files -co --exclude-standard -z | \
		rsync -a --from0 --files-from=- $(TOP)/ $(DEB_STAGE)/
	$(call deb_driver,igb,$(TOP)/drivers/igb)
	$(call deb_driver,igbvf,$(TOP)/drivers/igbvf,$(TOP)/libcompsc)
	cp $(VFIO_CORE_DIR)/Kbuild $(VFIO_CORE_DIR)/check-crcs.sh $(DEB_STAGE)/linux-drivers/vfio-core/
	$(call vfio_core_sources,$(DEB_STAGE)/linux-drivers/vfio-core)
	echo $(KERNEL_ABI) > $(DEB_STAGE)/linux-drivers/vfio-core/KERNEL_ABI
	$(call deb_modver,igb/igb_main.c,MODULE_VERSION,compsc-$(DEB_PKGVER))
	$(call deb_modver,igbvf/netdev.c,MODULE_VERSION,compsc-$(DEB_PKGVER))
	$(call deb_modver,vfio-core/vfio_main.c,DRIVER_VERSION,+compsc-$(DEB_PKGVER))
	cd $(DEB_STAGE) && nice dpkg-buildpackage -us -uc -b -j2
	mv $(DEB_DIR)/stage/*.deb $(DEB_DIR)/
	@ls $(DEB_DIR)/*.deb

# DKMS against the cached headers, into $(DEB_TEST); then the bench's
# module tree with the DKMS builds in place of its own.
deb-dkms: deb initramfs
	$(TOP)/tests/deb/dkms-build.sh $(DEB_DIR) $(DEB_TEST) $(KREL) $(KDIR) \
		$(LIBCOMPSC) $(DEB_VM)/lib-compsc
	$(BENCH)/mkinitramfs.sh $(DEB_VM)/initrd.img $(KROOT) $(KREL) $(AGENT) $(DEB_VM)/lib-compsc

deb-apt: deb $(KSTAMP)
	$(TOP)/tests/deb/chroot-base.sh $(DEB_CHROOT) $(KCACHE)/debs $(KREL)
	nice $(TOP)/tests/deb/apt-install.sh $(DEB_DIR) $(DEB_CHROOT) $(KREL) $(DEB_DIR)/apt

# The VM tests find their modules through COMPSC_MODULES (host side, for
# build IDs) and COMPSC_INITRD (what the guest boots with). The packages
# carry igb and igbvf only: the 82599 cases skip (no COMPSC_QEMU_82599).
deb-test: deb-dkms deb-apt
	cd $(BENCH) && $(BENCH_ENV) COMPSC_QEMU_82599= COMPSC_INITRD=$(DEB_VM)/initrd.img \
		COMPSC_MODULES=$(DEB_VM)/lib-compsc $(PYTHON) -m pytest -p no:cacheprovider \
		-v -rs --durations=0 $(PYTEST_TIMEOUT) $(PYTEST_ARGS) $(DEB_TESTS)
