#!/usr/bin/env bash
# The packages as an operator installs them: `apt install ./compsc-*.deb`
# into a clean Debian 12 chroot (tests/deb/chroot-base.sh: bookworm's dkms
# 3.0.10, the pinned kernel's image and headers), then checks that
#   - apt exits 0, and DKMS's igb, vfio (compsc-host, compsc-vfio-core) and
#     igbvf (compsc-guest) are the modules modinfo finds for the pinned
#     kernel: /lib/modules/<krel>/updates/dkms, not the stock ones;
#   - `dkms status` shows them installed, with no WARNING;
#   - a later kernel the sources do not fit (bookworm's default 6.1 image
#     and headers) installs with apt exiting 0, each package saying it
#     skipped that kernel, and leaves apt and dpkg sound (apt-get check,
#     dpkg --audit); likewise with compsc-guest installed;
#   - the packages purge cleanly, taking their modules with them;
#   - lintian reports no error or warning on the .debs.
#
# usage: apt-install.sh DEBS TARBALL KREL WORK
#   DEBS     directory holding compsc-{host,guest,vfio-core,tools}_*.deb
#   TARBALL  the base chroot (chroot-base.sh), unpacked afresh every run
#   KREL     the pinned kernel release
#   WORK     scratch directory (recreated): root/ and one log per step
#
# Only the chroot is touched: its own /lib/modules, /var/lib/dkms and
# package database. Mounts live in this script's own mount namespace.
set -euo pipefail

DEBS=$1 TARBALL=$2 KREL=$3 WORK=$4
if [ -z "${COMPSC_CHROOT_NS:-}" ]; then
	COMPSC_CHROOT_NS=1 exec unshare --mount --propagation private -- "$0" "$@"
fi
fail() { echo "deb-apt: FAIL: $*" >&2; exit 1; }
t0=$(date +%s)
step() { echo "deb-apt: [$(( $(date +%s) - t0 ))s] $*"; }

[ -f "$TARBALL" ] || fail "no base chroot $TARBALL (tests/deb/chroot-base.sh)"
for p in compsc-host compsc-guest compsc-vfio-core compsc-tools; do
	ls "$DEBS/${p}"_*.deb >/dev/null 2>&1 || fail "no $p package in $DEBS (make deb)"
done
VER=$(dpkg-deb -f "$DEBS"/compsc-host_*.deb Version)

R=$WORK/root
[ -d "$R" ] && rm -rf --one-file-system "$R"
rm -rf "$WORK"
mkdir -p "$R"
step "unpacking $(basename "$TARBALL")"
zstd -q -dc "$TARBALL" | tar -x -C "$R" --numeric-owner
chmod 0755 "$R"
mount -t proc proc "$R/proc"
mkdir -p "$R/tmp/debs"
cp "$DEBS"/compsc-*.deb "$R/tmp/debs/"

in_root() { chroot "$R" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
	DEBIAN_FRONTEND=noninteractive INITRD=No LC_ALL=C.UTF-8 "$@"; }
# run_logged NAME CMD...: the command in the chroot, its output in
# WORK/NAME.log; its exit status is returned, never fatal here.
run_logged() {
	local name=$1 rc=0
	shift
	in_root "$@" > "$WORK/$name.log" 2>&1 || rc=$?
	return $rc
}
apt_ok() {  # apt_ok NAME ARGS...: apt-get ARGS must exit 0
	local name=$1 rc=0
	shift
	run_logged "$name" apt-get -q -y -o APT::Install-Recommends=false "$@" || rc=$?
	if [ $rc != 0 ]; then
		tail -40 "$WORK/$name.log" >&2
		fail "apt-get $* exited $rc (log: $WORK/$name.log)"
	fi
}
sound() {  # apt and dpkg have nothing half-done
	local audit
	in_root apt-get check > "$WORK/check.log" 2>&1 || {
		cat "$WORK/check.log" >&2; fail "$1: apt-get check failed"; }
	audit=$(in_root dpkg --audit 2>&1) || true
	[ -z "$audit" ] || { echo "$audit" >&2; fail "$1: dpkg --audit is not clean"; }
}
no_warning() {  # dkms status lists the modules, none with a WARNING
	# (its stderr carries readelf's complaints about the headers' vmlinux)
	in_root dkms status > "$WORK/dkms-status.log" 2>/dev/null || true
	if grep -q WARNING "$WORK/dkms-status.log"; then
		cat "$WORK/dkms-status.log" >&2; fail "$1: dkms status has a WARNING"
	fi
}
dkms_installed() {  # dkms_installed PACKAGE
	grep -q "^$1/$VER, $KREL, x86_64: installed\$" "$WORK/dkms-status.log" || {
		cat "$WORK/dkms-status.log" >&2; fail "dkms status: $1 is not installed for $KREL"; }
}
from_dkms() {  # from_dkms MODULE: modinfo finds DKMS's copy for KREL
	local path
	path=$(in_root modinfo -k "$KREL" -n "$1" 2>&1) || fail "modinfo -k $KREL -n $1: $path"
	case $path in
	"/lib/modules/$KREL/updates/dkms/$1.ko"*) ;;
	*) fail "modinfo -k $KREL -n $1 names $path, not DKMS's copy in /lib/modules/$KREL/updates/dkms" ;;
	esac
	echo "deb-apt: $1 -> $path (version $(in_root modinfo -k "$KREL" -F version "$1"))"
}
stock() {  # stock MODULE: modinfo finds the kernel's own module
	local path
	path=$(in_root modinfo -k "$KREL" -n "$1" 2>&1) || fail "modinfo -k $KREL -n $1: $path"
	case $path in
	"/lib/modules/$KREL/kernel/"*) ;;
	*) fail "modinfo -k $KREL -n $1 names $path, want the stock module back" ;;
	esac
}
refused() {  # DKMS's version check kept a stock module (its messages)
	if grep -E "DKMS will not replace this module|is not newer than what is already found" "$WORK/$1.log"; then
		fail "$1: DKMS refused to replace a stock module (log: $WORK/$1.log)"
	fi
}
skipped() {  # skipped LOG PACKAGE KERNEL: the package said it skipped KERNEL
	grep -q "^$2: skipped for kernel $3:" "$WORK/$1.log" || {
		tail -40 "$WORK/$1.log" >&2; fail "$1: no skip message from $2 for $3"; }
}

step "apt-get update"
apt_ok update update
DKMSVER=$(in_root dpkg-query -W -f='${Version}' dkms)

step "apt install compsc-host, compsc-vfio-core, compsc-tools $VER (DKMS builds for $KREL)"
apt_ok host install /tmp/debs/compsc-host_"$VER"_all.deb \
	/tmp/debs/compsc-vfio-core_"$VER"_all.deb \
	"/tmp/debs/$(basename "$DEBS"/compsc-tools_"$VER"_*.deb)"
refused host
no_warning host
dkms_installed compsc-host
dkms_installed compsc-vfio-core
for m in igb vfio compsc compsc_vfio; do from_dkms $m; done
sound "after installing compsc-host"
in_root compsc --version >/dev/null || fail "compsc --version does not run"
in_root sh -c 'compsc-bench --help' >/dev/null 2>&1 || fail "compsc-bench --help does not run"
in_root sh -c "compsc-domxml --vf 0000:01:10.0 | grep -q compsc_vfio" || fail "compsc-domxml does not run"
in_root sh -c 'man -w compsc >/dev/null 2>&1 || test -e /usr/share/man/man1/compsc.1.gz' ||
	fail "no compsc(1) man page"
zcat "$R/usr/share/man/man1/compsc.1.gz" | grep -q '^\.B compsc devices' ||
	fail "compsc(1) does not document compsc devices"

# A kernel these sources do not fit: bookworm's default (6.1), image and
# headers, as `apt install linux-image-amd64 linux-headers-amd64` brings.
step "apt install linux-image-amd64 linux-headers-amd64 (a kernel the sources do not fit)"
apt_ok other-kernel install linux-image-amd64 linux-headers-amd64
other=$(in_root dpkg-query -W -f='${Depends}' linux-headers-amd64 | sed 's/^linux-headers-\([^ ,]*\).*/\1/')
[ -n "$other" ] && [ "$other" != "$KREL" ] && [ -d "$R/lib/modules/$other" ] ||
	fail "could not tell which kernel linux-headers-amd64 installed ($other)"
skipped other-kernel compsc-host "$other"
skipped other-kernel compsc-vfio-core "$other"
grep -E "^compsc-(host|vfio-core): (skipped|WARNING)" "$WORK/other-kernel.log" | sort -u
sound "after installing kernel $other"
no_warning "after installing kernel $other"
! grep -q "$other" "$WORK/dkms-status.log" || {
	cat "$WORK/dkms-status.log" >&2; fail "dkms status lists a build for $other"; }
for m in igb vfio; do from_dkms $m >/dev/null; done

# The guest package replaces the host's (Conflicts): DKMS's igbvf, the
# stock igb and vfio.ko come back, and the 6.1 kernel is skipped again.
step "apt install compsc-guest $VER (replaces compsc-host and compsc-vfio-core)"
apt_ok guest install /tmp/debs/compsc-guest_"$VER"_all.deb
refused guest
no_warning guest
dkms_installed compsc-guest
grep -q "compsc-host\|compsc-vfio-core" "$WORK/dkms-status.log" &&
	fail "compsc-host or compsc-vfio-core still in dkms status after compsc-guest replaced them"
for m in igbvf compsc; do from_dkms $m; done
stock igb
stock vfio
sound "after installing compsc-guest"

step "apt install --reinstall linux-headers-$other (the kernel hooks run again, compsc-guest's now)"
apt_ok reinstall install --reinstall "linux-headers-$other"
skipped reinstall compsc-guest "$other"
sound "after reinstalling linux-headers-$other"
no_warning "after reinstalling linux-headers-$other"

step "apt purge compsc-guest compsc-tools"
apt_ok purge purge compsc-guest compsc-tools
[ -z "$(ls "$R/lib/modules/$KREL/updates/dkms" 2>/dev/null)" ] ||
	fail "modules left in /lib/modules/$KREL/updates/dkms after purge: $(ls "$R/lib/modules/$KREL/updates/dkms")"
stock igbvf
[ ! -e "$R/etc/kernel/postinst.d/compsc-guest" ] || fail "compsc-guest's kernel hook left after purge"
sound "after purging"

umount "$R/proc"
rm -rf --one-file-system "$R"

step "lintian"
lintian --fail-on error,warning --display-info "$DEBS"/compsc-*_"$VER"_*.deb > "$WORK/lintian.log" 2>&1 || {
	cat "$WORK/lintian.log" >&2; fail "lintian reports errors or warnings"; }
grep -E '^[EW]: ' "$WORK/lintian.log" && fail "lintian reports errors or warnings"
grep -v '^running with root privileges' "$WORK/lintian.log" | sed 's/^/deb-apt: lintian: /' || true

step "compsc $VER: apt install on Debian 12 with dkms $DKMSVER: DKMS's igb, igbvf and vfio replace the stock modules for $KREL; kernel $other skipped, apt and dpkg sound; lintian clean"
