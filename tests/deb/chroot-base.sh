#!/usr/bin/env bash
# A clean Debian 12 root filesystem as an operator's host would have it
# before installing CompSC: debootstrap from Debian's archive, dkms from
# bookworm, and the pinned kernel (image and headers, from the .debs `make
# kernel` cached). Made once and kept as a tarball; tests/deb/apt-install.sh
# unpacks a fresh copy for every run.
#
# usage: chroot-base.sh TARBALL KDEBS KREL
#   TARBALL  the .tar.zst to write (left alone if it exists)
#   KDEBS    directory holding linux-image-KREL, linux-headers-KREL,
#            linux-headers-<abi>-common and linux-kbuild-<abi> .debs
#   KREL     the pinned kernel release (6.12.117+deb12-amd64)
#
# Also downloaded into the image's apt cache (not installed): bookworm's
# default kernel, image and headers (6.1), which the test installs as "a
# later kernel the sources do not fit", and the tools package's
# dependencies, so that a run fetches little from the archive.
set -euo pipefail

TARBALL=$1 KDEBS=$2 KREL=$3

# Every mount (debootstrap's own, /proc for apt and dpkg) lives in a mount
# namespace of this script only: nothing is left mounted on the host if it
# is killed.
if [ -z "${COMPSC_CHROOT_NS:-}" ]; then
	COMPSC_CHROOT_NS=1 exec unshare --mount --propagation private -- "$0" "$@"
fi
MIRROR=http://deb.debian.org/debian
SECURITY=http://deb.debian.org/debian-security

[ -e "$TARBALL" ] && exit 0
[ "$(id -u)" = 0 ] || { echo "chroot-base: needs root (debootstrap, chroot)" >&2; exit 1; }
mkdir -p "$(dirname "$TARBALL")"
exec 9>"$TARBALL.lock"
flock 9
[ -e "$TARBALL" ] && exit 0

R=$(mktemp -d "$(dirname "$TARBALL")/root.XXXXXX")
chmod 0755 "$R"
trap 'umount -l "$R/proc" 2>/dev/null || true; rm -rf --one-file-system "$R"' EXIT

echo "chroot-base: debootstrap bookworm into $R"
debootstrap --variant=minbase bookworm "$R" "$MIRROR" > "$R.debootstrap.log" 2>&1 || {
	tail -30 "$R.debootstrap.log" >&2; rm -f "$R.debootstrap.log"; exit 1; }
rm -f "$R.debootstrap.log"

cat > "$R/etc/apt/sources.list" <<EOF
deb $MIRROR bookworm main
deb $MIRROR bookworm-updates main
deb $SECURITY bookworm-security main
EOF
# No daemon starts inside the chroot (iperf3's, for one).
printf '#!/bin/sh\nexit 101\n' > "$R/usr/sbin/policy-rc.d"
chmod 0755 "$R/usr/sbin/policy-rc.d"
mount -t proc proc "$R/proc"

in_root() { chroot "$R" env DEBIAN_FRONTEND=noninteractive INITRD=No LC_ALL=C.UTF-8 "$@"; }
APT="apt-get -q -y -o APT::Install-Recommends=false"

in_root apt-get -q update
in_root $APT install dkms
mkdir -p "$R/tmp/kdebs"
abi=${KREL%-*}
for p in "linux-image-$KREL" "linux-headers-$KREL" "linux-headers-$abi-common" "linux-kbuild-$abi"; do
	cp "$KDEBS/${p}_"*.deb "$R/tmp/kdebs/"
done
# INITRD=No: the kernel is never booted here; no initramfs is made for it.
in_root sh -c "$APT install /tmp/kdebs/*.deb"
rm -rf "$R/tmp/kdebs"
in_root $APT install --download-only linux-image-amd64 linux-headers-amd64 \
	python3 python3-jsonschema iproute2 iputils-ping iperf3 libpci3 python3-matplotlib
umount "$R/proc"

tmp=$TARBALL.tmp.$$
tar -C "$R" --numeric-owner -cf - . | zstd -q -T2 -3 -o "$tmp"
mv "$tmp" "$TARBALL"
# Older bases for this kernel (made by earlier versions of this script).
for old in "$(dirname "$TARBALL")/bookworm-$KREL-"*.tar.zst; do
	[ "$old" = "$TARBALL" ] || rm -f "$old" "$old.lock"
done
echo "chroot-base: $TARBALL ($(du -h "$TARBALL" | cut -f1))"
