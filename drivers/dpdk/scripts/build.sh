#!/usr/bin/env bash
# Build the patched DPDK: a git copy of the cached Debian tree, libcompsc
# next to the e1000 driver, `git am` of the series, meson + ninja.
#
# usage: build.sh TREE SERIES LIBCOMPSC OUT
#   TREE       the unpacked source (scripts/debsrc-fetch.sh); read only, never modified
#   SERIES     folder of *.patch (may hold none: stock DPDK)
#   LIBCOMPSC  the libcompsc folder; copied to drivers/net/e1000/compsc
#   OUT        OUT/src (the patched copy, a git repo), OUT/build (meson)
#
# A second run with the same inputs only lets ninja check; a changed series
# or libcompsc is re-applied onto the pristine commit, and git rewrites only
# the files that differ, so ninja rebuilds only what they feed.
set -euo pipefail

TREE=$1 SERIES=$2 LIB=$3 OUT=$4
SRC=$OUT/src B=$OUT/build
JOBS=${DPDK_JOBS:-2}
GIT="git -C $SRC -c user.name=compsc-build -c user.email=build@compsc.invalid"

# Only what the PMD and testpmd need: the PCI bus, the ring mempool, the
# e1000 driver (igb VF PMD: net_e1000_igb_vf), testpmd, static libraries,
# and for `make bench-dpdk`'s baseline (DPDK's documented live migration:
# an active-backup bond over the VF and a backup port) the bonding PMD and
# af_packet, the backup on a kernel netdev of the bench guest, the virtio
# PMD (`make bench-dpdk-nested`'s dpdk-virtio: testpmd on virtio-net),
# a generic CPU (the binaries run in the bench guest, not only here), and
# none of the optional libraries testpmd can do without.
MESON_OPTS=(
	-Ddefault_library=static
	-Dplatform=generic
	-Denable_drivers=bus/pci,bus/vdev,mempool/ring,net/e1000,net/bonding,net/af_packet,net/virtio
	-Denable_apps=test-pmd
	-Ddisable_libs=bitratestats,cfgfile,flow_classify,gpudev,gro,gso,kni,jobstats,latencystats,metrics,node,pdump,pipeline,port,power,table,vhost
	-Dtests=false
	-Dexamples=
	-Denable_docs=false
	-Denable_kmods=false
)

inputs_id() {
	{ cat "$SERIES"/*.patch 2>/dev/null || true
	  find "$LIB/include" "$LIB/src" "$LIB/user" -type f -print0 | sort -z | xargs -0 cat
	} | sha256sum | cut -c1-16
}

# Debian's build tools for DPDK: say what is missing in one line (Debian's
# python: the one python3-pyelftools installs into)
missing=""
for t in meson:meson ninja:ninja-build pkg-config:pkg-config git:git; do
	command -v "${t%%:*}" >/dev/null || missing="$missing ${t#*:}"
done
/usr/bin/python3 -c 'import elftools' 2>/dev/null || missing="$missing python3-pyelftools"
[ -e /usr/include/numa.h ] || missing="$missing libnuma-dev"
if [ -n "$missing" ]; then
	echo "dpdk-build: missing Debian packages; apt-get install$missing" >&2
	exit 1
fi

if [ ! -d "$SRC/.git" ]; then
	rm -rf "$SRC" "$B"
	mkdir -p "$OUT"
	cp -a "$TREE" "$SRC.part"
	rm -rf "$SRC.part/.pc"		# quilt's state: Debian's patches are applied
	mv "$SRC.part" "$SRC"
	$GIT init -q
	$GIT add -A
	$GIT commit -qm "dpdk $(cat "$TREE/VERSION") (Debian source package)"
	$GIT tag pristine
fi

ID=$(inputs_id)
if [ "$(cat "$OUT/.applied" 2>/dev/null)" != "$ID" ]; then
	rm -f "$OUT/.applied"
	$GIT am --abort >/dev/null 2>&1 || true
	$GIT checkout -qf -B build pristine
	$GIT clean -qfdx
	mkdir -p "$SRC/drivers/net/e1000/compsc"
	cp -r "$LIB/include" "$LIB/src" "$LIB/user" "$SRC/drivers/net/e1000/compsc/"
	$GIT add -A
	$GIT commit -qm "net/e1000: libcompsc (copied by make dpdk, not upstream)"
	n=0
	for p in "$SERIES"/*.patch; do
		[ -e "$p" ] || continue
		$GIT am -q "$p" || { echo "dpdk-build: $p does not apply" >&2; exit 1; }
		n=$((n + 1))
	done
	echo "dpdk-build: $n patches applied"
	echo "$ID" > "$OUT/.applied"
fi

# meson keeps the options of its first setup: new options, new build dir
if [ "$(cat "$OUT/.meson-opts" 2>/dev/null)" != "${MESON_OPTS[*]}" ]; then
	rm -rf "$B" "$OUT/.meson-opts"
fi
if [ ! -e "$B/build.ninja" ]; then
	rm -rf "$B"
	meson setup "${MESON_OPTS[@]}" "$B" "$SRC" > "$OUT/meson-setup.log" || {
		tail -30 "$OUT/meson-setup.log" >&2; exit 1; }
	echo "${MESON_OPTS[*]}" > "$OUT/.meson-opts"
fi
# meson compiles through ccache when it is installed (.ci/install-deps.sh).
# The cache is the machine's, next to the DPDK source: every checkout
# builds the same inputs, so it hits when only the checkout's path
# differs (paths relative to OUT, the build directory not hashed).
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/compsc/ccache}
export CCACHE_BASEDIR=$OUT CCACHE_NOHASHDIR=1
nice -n 19 ninja -C "$B" -j "$JOBS"
