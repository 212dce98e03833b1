#!/usr/bin/env bash
# Build QEMU with the project's patch series: a git copy of the cached
# Debian tree, `git am` of the series, configure for x86_64-softmmu only,
# ninja for the emulator and the qtest binary.
#
# usage: build.sh TREE SERIES TOOLS OUT
#   TREE    the unpacked source (scripts/debsrc-fetch.sh); never modified
#   SERIES  qemu/patches: `series` names the patches in order
#   TOOLS   where build tools from Debian .debs are unpacked (QEMU_TOOL_DEBS)
#   OUT     OUT/src (the patched copy, a git repo), OUT/build, and
#           OUT/qemu-system-x86_64 once everything is built
#
# OUT is named by the hash of the series, this script and the version pin
# (mk/qemu.mk), so a built OUT is never rebuilt; the caller holds its lock.
set -euo pipefail

TREE=$1 SERIES=$2 TOOLS=$3 OUT=$4
JOBS=${QEMU_JOBS:-2}
SRC=$OUT/src B=$OUT/build
GIT="git -C $SRC -c user.name=compsc-build -c user.email=build@compsc.invalid"

# The emulator the bench's command lines need (q35, TCG and KVM, tap and
# socket netdevs, pcie-root-port, virtio-serial, igb) and nothing optional:
# no display, no audio, no block drivers beyond the built-ins. Firmware
# comes from Debian's qemu-system-data and seabios, as for Debian's QEMU
# (the +ds tarball carries no prebuilt images).
CONFIGURE=(
	--target-list=x86_64-softmmu
	--without-default-features
	--enable-tcg --enable-kvm
	--disable-docs --disable-download --disable-install-blobs
	--firmwarepath=/usr/share/qemu:/usr/share/seabios:/usr/lib/ipxe/qemu
)

[ -x "$OUT/qemu-system-x86_64" ] && [ -x "$OUT/qos-test" ] &&
	[ -x "$OUT/ixgbe-sriov-test" ] && exit 0

missing=""
for t in ninja:ninja-build flex:flex bison:bison git:git ccache:ccache \
	 pkg-config:pkg-config; do
	command -v "${t%%:*}" >/dev/null || missing="$missing ${t#*:}"
done
pkg-config --exists glib-2.0 || missing="$missing libglib2.0-dev"
pkg-config --exists pixman-1 || missing="$missing libpixman-1-dev"
[ -e /usr/share/seabios/bios-256k.bin ] || missing="$missing seabios"
if [ -n "$missing" ]; then
	echo "qemu-build: missing Debian packages; apt-get install$missing" >&2
	exit 1
fi

# meson >= 1.5 and pycotap from bookworm-backports, unpacked beside the
# cache and found by QEMU's build venv through PYTHONPATH and a .pth file
# (bookworm's meson 1.0 stays the system's, for DPDK's build).
TOOLS_PY=$TOOLS/usr/lib/python3/dist-packages
if [ ! -e "$TOOLS/.unpacked" ]; then
	rm -rf "$TOOLS" && mkdir -p "$TOOLS/debs"
	(cd "$TOOLS/debs" && apt-get -q download ${QEMU_TOOL_DEBS:?})
	for d in "$TOOLS"/debs/*.deb; do dpkg -x "$d" "$TOOLS"; done
	touch "$TOOLS/.unpacked"
fi

rm -rf "$SRC" "$B"
mkdir -p "$OUT"
cp -a "$TREE" "$SRC"
$GIT init -q
$GIT add -A
$GIT commit -q -m "Debian qemu source (scripts/debsrc-fetch.sh)"
while read -r p; do
	case $p in ''|'#'*) continue ;; esac
	$GIT am -q "$SERIES/$p"
done < "$SERIES/series"

export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/compsc/ccache}
export CCACHE_BASEDIR=$OUT CCACHE_NOHASHDIR=1
mkdir -p "$B"
(cd "$B" && PYTHONPATH=$TOOLS_PY "$SRC/configure" "${CONFIGURE[@]}" \
	--cc="ccache gcc" --cxx="ccache g++" >configure.log 2>&1) || {
	tail -20 "$B/configure.log" >&2
	exit 1
}
echo "$TOOLS_PY" > "$(echo "$B"/pyvenv/lib/python3*/site-packages)/compsc-tools.pth"
ninja -C "$B" -j "$JOBS" qemu-system-x86_64 tests/qtest/qos-test \
	tests/qtest/ixgbe-sriov-test
# Run from its build tree, QEMU looks for firmware in qemu-bundle/ only:
# there, the configured firmware path leads to Debian's.
for d in usr/share/qemu usr/share/seabios usr/lib/ipxe/qemu; do
	mkdir -p "$B/qemu-bundle/$(dirname $d)"
	ln -sfn "/$d" "$B/qemu-bundle/$d"
done
ln -sf build/qemu-system-x86_64 "$OUT/qemu-system-x86_64"
ln -sf build/tests/qtest/qos-test "$OUT/qos-test"
ln -sf build/tests/qtest/ixgbe-sriov-test "$OUT/ixgbe-sriov-test"
echo "qemu-build: $OUT/qemu-system-x86_64"
