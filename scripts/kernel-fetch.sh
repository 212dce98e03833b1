#!/usr/bin/env bash
# Fetch and unpack the bench kernel from Debian packages (never installs them).
#
# usage: kernel-fetch.sh CACHE ABI PKGVER FLAVOUR SOURCE_PKG
#
# Leaves in CACHE:
#   debs/                  the downloaded .deb files (kept, so re-unpacking is offline)
#   root/                  dpkg -x of image, headers, headers-common, kbuild, source
#   root/boot/vmlinuz-<rel>
#   root/lib/modules/<rel>/          stock modules (.ko.xz), build -> headers
#   root/usr/src/linux-headers-<rel> KDIR for out-of-tree modules
#   src/                   drivers/net/ethernet/intel/ from the source tarball
#   .unpacked              stamp written last (make adds its own, named by
#                          the hash of this script and the version pin)
set -euo pipefail

CACHE=$1 ABI=$2 PKGVER=$3 FLAVOUR=$4 SRCPKG=$5
REL=$ABI-$FLAVOUR
PKGS="linux-image-$REL linux-headers-$REL linux-headers-$ABI-common
      linux-kbuild-$ABI $SRCPKG"

mkdir -p "$CACHE/debs"
cd "$CACHE/debs"

download() {
	local want=""
	for p in $PKGS; do
		ls "${p}_"*.deb >/dev/null 2>&1 || want="$want $p=$PKGVER"
	done
	[ -z "$want" ] && return 0
	echo "kernel-fetch: apt-get download$want"
	# shellcheck disable=SC2086
	apt-get -q download $want
}

if ! download; then
	# A fresh machine may have stale package lists: refresh once, retry.
	echo "kernel-fetch: download failed, running apt-get update and retrying" >&2
	apt-get -o DPkg::Lock::Timeout=600 -q update
	if ! download; then
		echo "kernel-fetch: version $PKGVER of$PKGS is not available from the" >&2
		echo "  configured apt sources; see mk/kernel.version for how to pick one." >&2
		exit 1
	fi
fi

# Check every .deb is exactly the pinned version (a stale cache could hold another).
for p in $PKGS; do
	v=$(dpkg-deb -f "${p}_"*.deb Version)
	[ "$v" = "$PKGVER" ] || { echo "kernel-fetch: $p is $v, want $PKGVER" >&2; exit 1; }
done

rm -rf "$CACHE/root" "$CACHE/src" "$CACHE"/.unpacked*
mkdir -p "$CACHE/root"
for d in *.deb; do
	dpkg -x "$d" "$CACHE/root"
done

R=$CACHE/root
KDIR=$R/usr/src/linux-headers-$REL
# The headers' Makefile includes the -common tree by absolute /usr/src path;
# point it at our copy. scripts/ and tools/ are relative links into
# usr/lib/linux-kbuild-*, which dpkg -x unpacked alongside: nothing to do.
sed -i "s|^include /usr/src/|include $R/usr/src/|" "$KDIR/Makefile"
grep -q "^include $R/" "$KDIR/Makefile"
ln -sfn "$KDIR" "$R/lib/modules/$REL/build"
ln -sfn "$R/usr/src/linux-headers-$ABI-common" "$R/lib/modules/$REL/source"

# Only drivers/net/ethernet/intel is ever built from source here; unpack it
# once (the tarball is ~150 MB of xz, so this is the slow part).
mkdir -p "$CACHE/src"
tar -xJf "$R/usr/src/$SRCPKG.tar.xz" -C "$CACHE/src" --strip-components=1 \
	"$SRCPKG/drivers/net/ethernet/intel"
echo "$PKGVER" > "$CACHE/.unpacked"
echo "kernel-fetch: $REL ready in $CACHE"
