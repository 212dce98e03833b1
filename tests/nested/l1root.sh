#!/usr/bin/env bash
# The root filesystem of an L1 host that runs libvirt (nested.py
# L1(rootfs=)): a Debian 12 system as docs/operators.md sets one up. The
# base chroot of the package tests (tests/deb/chroot-base.sh: debootstrap,
# dkms, the pinned kernel and its headers), then, with apt:
#   - the project's packages compsc-host, compsc-vfio-core and
#     compsc-tools (DKMS builds igb, compsc, compsc_vfio and the VFIO core
#     into /lib/modules/KREL/updates/dkms, which the L1 loads);
#   - libvirt 11.3 and QEMU 10 from bookworm-backports (libvirt-daemon,
#     libvirt-daemon-driver-qemu, libvirt-daemon-driver-network for the
#     hostdev network of VFs, libvirt-clients, qemu-system-x86).
# L1 mounts it read-only over 9p under a tmpfs overlay (l1lib.sh l1_root)
# and runs libvirtd chrooted into it (l1_libvirt).
#
# usage: l1root.sh OUT BASE_TARBALL DEB_DIR KREL
#   OUT      the directory to make (replaced; OUT.stamp once complete)
# Downloaded packages are kept in ~/.cache/compsc/l1root-apt.
set -euo pipefail

OUT=$1 BASE=$2 DEBS=$3 KREL=$4
# mounts (proc, the apt cache) only in this script's mount namespace
if [ -z "${COMPSC_CHROOT_NS:-}" ]; then
	COMPSC_CHROOT_NS=1 exec unshare --mount --propagation private -- "$0" "$@"
fi
MIRROR=http://deb.debian.org/debian
ARCHIVES=${COMPSC_L1ROOT_APT:-$HOME/.cache/compsc/l1root-apt}
[ -f "$BASE" ] || { echo "l1root: no base chroot $BASE (make deb-apt)" >&2; exit 1; }
for p in compsc-host compsc-vfio-core compsc-tools; do
	ls "$DEBS/${p}"_*.deb >/dev/null 2>&1 || { echo "l1root: no $p in $DEBS (make deb)" >&2; exit 1; }
done

rm -f "$OUT.stamp"
rm -rf --one-file-system "$OUT"
mkdir -p "$OUT" "$ARCHIVES/partial"
chmod 0755 "$OUT"
zstd -q -dc "$BASE" | tar -x -C "$OUT" --numeric-owner
mount -t proc proc "$OUT/proc"
mount --bind "$ARCHIVES" "$OUT/var/cache/apt/archives"
mkdir -p "$OUT/tmp/debs"
cp "$DEBS"/compsc-host_*.deb "$DEBS"/compsc-vfio-core_*.deb "$DEBS"/compsc-tools_*.deb \
	"$OUT/tmp/debs/"
echo "deb $MIRROR bookworm-backports main" > "$OUT/etc/apt/sources.list.d/backports.list"

in_root() { chroot "$OUT" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
	DEBIAN_FRONTEND=noninteractive INITRD=No LC_ALL=C.UTF-8 "$@"; }
APT="apt-get -q -y -o APT::Install-Recommends=false"
log=$OUT.log
{
	in_root apt-get -q update
	in_root sh -c "$APT install /tmp/debs/*.deb"
	in_root $APT install -t bookworm-backports libvirt-daemon libvirt-daemon-driver-qemu \
		libvirt-daemon-driver-network libvirt-clients qemu-system-x86
} > "$log" 2>&1 || { tail -40 "$log" >&2; echo "l1root: apt failed (log: $log)" >&2; exit 1; }
for m in compsc compsc_vfio igb vfio; do
	[ -e "$OUT/lib/modules/$KREL/updates/dkms/$m.ko.xz" ] ||
		{ echo "l1root: DKMS built no $m for $KREL" >&2; exit 1; }
done
rm -rf "$OUT/tmp/debs"
umount "$OUT/var/cache/apt/archives" "$OUT/proc"
touch "$OUT.stamp"
echo "l1root: $OUT ($(du -sh --one-file-system "$OUT" | cut -f1))"
