#!/usr/bin/env bash
# Build one Intel driver out of tree: upstream source + our patch series.
#
# usage: build-driver.sh SRC KDIR DRIVER SERIES OUT
#   SRC     unpacked kernel source root holding drivers/net/ethernet/intel/
#   KDIR    linux-headers directory matching SRC
#   DRIVER  directory name under drivers/net/ethernet/intel (igbvf, igb, ...)
#   SERIES  directory of `git format-patch` output; every *.patch, sorted,
#           is applied with `git am` (an empty or missing directory is fine)
#   OUT     work tree to (re)create; the module ends up as OUT/DRIVER.ko
#
# Optional environment, for drivers that use libcompsc (set by mk/bench.mk):
#   COMPSC_INC      libcompsc include dir, added with KCFLAGS=-I...
#   COMPSC_SYMVERS  compsc.ko's Module.symvers, passed as KBUILD_EXTRA_SYMBOLS
#   COMPSC_LIB      libcompsc source dir. A patched driver whose Makefile
#                   names $(COMPSC_VF_OBJS) links the VF helper and the core
#                   it uses (COMPSC_VF_SRCS in sources.mk) into its own
#                   module: it then needs neither compsc.ko nor its symbols.
#   COMPSC_FAULTS   y: with the VF helper's test hooks (driver-tree.sh)
#
# OUT is a small git repository laid out like the kernel tree (see
# driver-tree.sh, which makes and builds it; the Debian packages' DKMS
# trees build with it too). Never commit OUT.
set -euo pipefail

SRC=$1 KDIR=$2 DRIVER=$3 SERIES=$4 OUT=$(realpath -m "$5")
REL_DIR=drivers/net/ethernet/intel/$DRIVER
TREE=$(dirname "$(realpath "$0")")/driver-tree.sh
[ -d "$SRC/$REL_DIR" ] || { echo "build-driver: no $REL_DIR in $SRC" >&2; exit 1; }

# One build per OUT at a time (several people may run make in one checkout).
mkdir -p "$(dirname "$OUT")"
exec 9>"$OUT.lock"
flock 9

# Skip everything when the inputs are the same as for the existing build.
series_files() {
	[ -d "$SERIES" ] && find "$(realpath "$SERIES")" -maxdepth 1 -name '*.patch' | LC_ALL=C sort
	return 0
}
COMPSC_INC=${COMPSC_INC:-} COMPSC_SYMVERS=${COMPSC_SYMVERS:-} COMPSC_LIB=${COMPSC_LIB:-}
COMPSC_FAULTS=${COMPSC_FAULTS:-}
inputs=$( { echo "$KDIR $DRIVER $COMPSC_INC $COMPSC_SYMVERS $COMPSC_LIB $COMPSC_FAULTS"; cat "$KDIR/Module.symvers" "$0" "$TREE";
	    [ -z "$COMPSC_LIB" ] || find "$COMPSC_LIB" -type f \( -name '*.[ch]' -o -name '*.mk' \) |
		LC_ALL=C sort | xargs cat;
	    [ -z "$COMPSC_SYMVERS" ] || cat "$COMPSC_SYMVERS";
	    [ -z "$COMPSC_INC" ] || find "$COMPSC_INC" -type f | LC_ALL=C sort | xargs cat;
	    series_files | while IFS= read -r p; do echo "$p"; cat "$p"; done; } | sha256sum)
if [ -f "$OUT/$DRIVER.ko" ] && [ "$(cat "$OUT/.inputs" 2>/dev/null)" = "$inputs" ]; then
	exit 0
fi

# Build next to OUT and swap at the end: a test reading OUT/DRIVER.ko while
# someone rebuilds sees the old build or the new one, never none.
FINAL=$OUT
OUT=$FINAL.new
rm -rf "$OUT"
"$TREE" prepare "$SRC" "$DRIVER" "$SERIES" "$OUT" $COMPSC_LIB
"$TREE" build "$KDIR" "$OUT/$REL_DIR" "$DRIVER" "$COMPSC_INC" "$COMPSC_SYMVERS"
cp "$OUT/$REL_DIR/$DRIVER.ko" "$OUT/$DRIVER.ko"
echo "$inputs" > "$OUT/.inputs"
rm -rf "$FINAL.old"
[ ! -e "$FINAL" ] || mv "$FINAL" "$FINAL.old"
mv "$OUT" "$FINAL"
rm -rf "$FINAL.old"
