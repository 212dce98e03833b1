#!/usr/bin/env bash
# Install everything CompSC's build, tests and bench need on a fresh Debian 12.
# Idempotent: safe to re-run; only installs what is missing.
set -euo pipefail

APT="apt-get -o DPkg::Lock::Timeout=600 -y -q"
export DEBIAN_FRONTEND=noninteractive

have_backports() {
	grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/
}

if ! have_backports; then
	cat > /etc/apt/sources.list.d/compsc-backports.sources <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	NEED_UPDATE=1
fi

# Debian packages the project uses (build, unit tests, fuzzing, bench).
# The bench also needs: git (driver series), binutils (readelf: module build
# IDs), util-linux (setpriv), dash (the guest's /bin/sh). The kernel itself is
# never installed: mk/bench.mk downloads and unpacks it (tests/vm/README.md).
# The nested bench's L2 kernel is built from source (mk/l2kernel.mk): bc,
# bison, flex, libelf-dev, libssl-dev, and lz4 for its compressed image.
# libpci-dev: `compsc devices` (libpci); pciutils: lspci, in the bench VM too.
# python3-pip: the PyPI packages below.
# The Debian packages (mk/deb.mk): debhelper, dh-dkms, and dkms, which the
# test runs against the cached headers (nothing lands in the host's kernel);
# debootstrap makes the clean Debian 12 chroot the packages are installed
# into with apt (tests/deb/apt-install.sh), lintian checks the packages.
# DPDK's build for the bench image (mk/dpdk.mk, drivers/dpdk/scripts/build.sh):
# meson, ninja-build, pkg-config, python3-pyelftools, libnuma-dev, and ccache,
# which meson picks up by itself: a second checkout's DPDK build then takes
# seconds instead of minutes (build.sh keeps its cache in ~/.cache/compsc).
# gawk: DPDK's devtools/checkpatches.sh (make dpdk-check) needs GNU awk.
# The 82599 model's QEMU (mk/qemu.mk, qemu/README.md): libglib2.0-dev and
# libpixman-1-dev beside flex, bison, ninja-build, ccache and git above;
# its meson and pycotap come from bookworm-backports .debs unpacked into
# the cache, not installed here.
PKGS="build-essential make gcc clang llvm libclang-rt-14-dev python3 python3-pytest
      kmod cpio busybox-static iproute2 iperf3 iputils-ping xz-utils zstd bc bison flex
      libelf-dev libssl-dev lz4 dwarves rsync ethtool git binutils util-linux dash
      python3-matplotlib python3-jsonschema python3-pip
      python3-pytest-timeout python3-pytest-xdist libpci-dev pciutils debhelper dh-dkms dkms debootstrap lintian
      meson ninja-build pkg-config python3-pyelftools libnuma-dev ccache gawk
      libglib2.0-dev libpixman-1-dev"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
qemu_ok() {
	command -v qemu-system-x86_64 >/dev/null &&
		qemu-system-x86_64 -device help 2>/dev/null | grep -q '"igb"'
}

# libvirt's schema checker (make libvirt-check): the domain XML uses
# <hostdev><driver model=...>, which bookworm's libvirt 9.0 does not know.
libvirt_ok() {
	command -v virt-xml-validate >/dev/null &&
		[ "$(virt-xml-validate --version | sed -n 's/.* \([0-9]*\)\.[0-9.]*$/\1/p')" -ge 10 ] 2>/dev/null
}

if [ -n "$missing" ] || ! qemu_ok || ! libvirt_ok || [ -n "${NEED_UPDATE:-}" ]; then
	$APT update
fi
if [ -n "$missing" ]; then
	echo "install-deps: installing$missing"
	# shellcheck disable=SC2086
	$APT install --no-install-recommends $missing
fi
if ! qemu_ok; then
	echo "install-deps: installing qemu-system-x86 from bookworm-backports (igb model)"
	$APT install --no-install-recommends -t bookworm-backports qemu-system-x86 qemu-utils
fi
if ! libvirt_ok; then
	echo "install-deps: installing libvirt-clients from bookworm-backports (virt-xml-validate)"
	$APT install --no-install-recommends -t bookworm-backports libvirt-clients
fi

# PyPI packages Debian 12 does not carry: qemu.qmp, the QMP client of the
# nested harness (tests/nested/nested.py). Installed for python3 on PATH and
# for Debian's own, which make picks where the other lacks matplotlib
# (mk/demo.mk py_with); pip puts Debian's copy under /usr/local, beside
# rather than over Debian's packages, hence --break-system-packages.
PYPI="qemu.qmp==0.0.6"
for py in $(printf '%s\n' "$(command -v python3)" /usr/bin/python3 | sort -u); do
	for req in $PYPI; do
		"$py" -c "import ${req%%==*}" 2>/dev/null && continue
		echo "install-deps: installing $req for $py (PyPI)"
		"$py" -m pip install -q --disable-pip-version-check --root-user-action=ignore \
			--break-system-packages "$req"
	done
done
echo "install-deps: ok"
