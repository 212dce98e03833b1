#!/usr/bin/env bash
# Fetch and unpack one of Debian's source packages into a cache, once.
#
# usage: debsrc-fetch.sh CACHE POOL_URL FILE SHA256 [NAME]
#   FILE  a .dsc (the source package: unpacked by dpkg-source, with
#         Debian's patches), or an .orig.tar.* (the upstream tarball alone,
#         unpacked by tar, for a package whose .dsc the archive does not
#         serve; mk/qemu.version says when and why)
#   SHA256 of FILE, pinned in mk/*.version; the .dsc in turn pins its
#         tarballs' sums, which dpkg-source checks when it unpacks
#   NAME  for messages (default: the package name from FILE)
#
# Leaves in CACHE:
#   src/          the downloaded files (kept: re-unpacking is offline)
#   tree/         the unpacked source, never modified: builds copy it
#   .unpacked     stamp written last (make adds its own, named by the hash
#                 of this script and the version pin)
set -euo pipefail

CACHE=$1 POOL=$2 FILE=$3 SHA=$4 NAME=${5:-${3%%_*}}

mkdir -p "$CACHE/src"
cd "$CACHE/src"

fetch() {
	[ -e "$1" ] && return 0
	# -f: an HTTP error fails instead of leaving an error page on disk
	curl -sSfL --retry 3 -o "$1.part" "$POOL/$1" && mv "$1.part" "$1"
}

if ! fetch "$FILE"; then
	echo "$NAME-fetch: cannot download $POOL/$FILE; see mk/$NAME.version" >&2
	exit 1
fi
if ! echo "$SHA  $FILE" | sha256sum -c --quiet -; then
	echo "$NAME-fetch: $FILE does not match the SHA-256 pinned in mk/$NAME.version" >&2
	rm -f "$FILE"
	exit 1
fi

rm -rf "$CACHE/tree" "$CACHE"/.unpacked* "$CACHE/tree.part"
case $FILE in
*.dsc)
	# The tarballs the .dsc names (dpkg-source checks their sums below).
	for f in $(sed -n '/^Checksums-Sha256:/,/^[A-Z]/s/^ [0-9a-f]\{64\} [0-9]* //p' "$FILE"); do
		fetch "$f" || { echo "$NAME-fetch: cannot download $POOL/$f" >&2; exit 1; }
	done
	# dpkg-source checks every tarball against the sums in the .dsc (the
	# .dsc itself is checked above; its uploader's key is not in the
	# archive keyring, so the signature warning is expected and not
	# relied on).
	dpkg-source -x "$FILE" "$CACHE/tree.part" >/dev/null
	;;
*.orig.tar.*)
	mkdir "$CACHE/tree.part"
	tar -xf "$FILE" -C "$CACHE/tree.part" --strip-components=1
	;;
*)
	echo "$NAME-fetch: $FILE is neither a .dsc nor an .orig.tar.*" >&2
	exit 1
	;;
esac
mv "$CACHE/tree.part" "$CACHE/tree"
echo "$FILE" > "$CACHE/.unpacked"
echo "$NAME-fetch: $FILE ready in $CACHE/tree"
