#!/usr/bin/env bash
# Fetch and unpack Debian's dpdk source package into the cache, once.
#
# usage: fetch.sh CACHE PKGVER DSC_SHA256 POOL_URL
#
# Leaves in CACHE:
#   src/          the .dsc and tarballs (kept: re-unpacking is offline)
#   tree/         dpkg-source -x of the package (upstream + Debian's patches),
#                 never modified: builds copy it (see build.sh)
#   .unpacked     stamp written last (make adds its own, named by the hash
#                 of this script and the version pin)
set -euo pipefail

CACHE=$1 PKGVER=$2 SHA=$3 POOL=$4
DSC=dpdk_$PKGVER.dsc

mkdir -p "$CACHE/src"
cd "$CACHE/src"

fetch() {
	[ -e "$1" ] && return 0
	# -f: an HTTP error fails instead of leaving an error page on disk
	curl -sSfL --retry 3 -o "$1.part" "$POOL/$1" && mv "$1.part" "$1"
}

if ! fetch "$DSC"; then
	echo "dpdk-fetch: cannot download $POOL/$DSC; see mk/dpdk.version" >&2
	exit 1
fi
if ! echo "$SHA  $DSC" | sha256sum -c --quiet -; then
	echo "dpdk-fetch: $DSC does not match the SHA-256 pinned in mk/dpdk.version" >&2
	rm -f "$DSC"
	exit 1
fi
# The tarballs the .dsc names (dpkg-source checks their sums below).
for f in $(sed -n '/^Checksums-Sha256:/,/^[A-Z]/s/^ [0-9a-f]\{64\} [0-9]* //p' "$DSC"); do
	fetch "$f" || { echo "dpdk-fetch: cannot download $POOL/$f" >&2; exit 1; }
done

rm -rf "$CACHE/tree" "$CACHE"/.unpacked*
# dpkg-source checks every tarball against the sums in the .dsc (the .dsc
# itself is checked above; its uploader's key is not in the archive
# keyring, so the signature warning is expected and not relied on).
rm -rf "$CACHE/tree.part"
dpkg-source -x "$DSC" "$CACHE/tree.part" >/dev/null
mv "$CACHE/tree.part" "$CACHE/tree"
echo "$PKGVER" > "$CACHE/.unpacked"
echo "dpdk-fetch: dpdk $PKGVER ready in $CACHE/tree"
