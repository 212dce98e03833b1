#!/usr/bin/env bash
# A program built with `pkg-config --cflags --libs libcompsc` against a
# DESTDIR install links the shared library by its soname and runs.
# Usage: pkgconfig_consumer.sh ROOT LIBDIR SONAME VERSION OUT
set -eu
root=$1 libdir=$2 soname=$3 version=$4 out=$5
CC=${CC:-cc}

# Only the install's libcompsc.pc, its paths under ROOT. With prefix /usr
# the paths are the system's: keep them, or pkg-config drops them (and the
# sysroot with them) and the build would look in the real /usr.
export PKG_CONFIG_LIBDIR=$root$libdir/pkgconfig PKG_CONFIG_PATH=
export PKG_CONFIG_SYSROOT_DIR=$root
export PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1 PKG_CONFIG_ALLOW_SYSTEM_LIBS=1

got=$(pkg-config --modversion libcompsc)
[ "$got" = "$version" ] || { echo "pkgconfig: version $got, want $version" >&2; exit 1; }
flags=$(pkg-config --cflags --libs libcompsc)
mkdir -p "$(dirname "$out")"
# shellcheck disable=SC2086  # flags are words
"$CC" -std=c11 -Wall -Wextra -Werror -pedantic "$(dirname "$0")/consumer.c" \
	$flags -o "$out"
readelf -d "$out" | grep -q "NEEDED.*\[$soname\]" ||
	{ echo "pkgconfig: $out does not need $soname" >&2; exit 1; }
LD_LIBRARY_PATH=$root$libdir "$out"
echo "pkgconfig: consumer built with: $flags"
