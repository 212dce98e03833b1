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
#
# OUT is a small git repository laid out like the kernel tree, so patches
# made with `git format-patch` in a full kernel tree apply unchanged, and
# `git -C OUT log` shows exactly what was applied. Never commit OUT.
set -euo pipefail

SRC=$1 KDIR=$2 DRIVER=$3 SERIES=$4 OUT=$(realpath -m "$5")
REL_DIR=drivers/net/ethernet/intel/$DRIVER
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
inputs=$( { echo "$KDIR $DRIVER $COMPSC_INC $COMPSC_SYMVERS $COMPSC_LIB"; cat "$KDIR/Module.symvers" "$0";
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
mkdir -p "$OUT/$(dirname "$REL_DIR")"
cp -a "$SRC/$REL_DIR" "$OUT/$REL_DIR"

# Fixed identity and dates: the upstream commit gets the same hash every run.
export GIT_AUTHOR_NAME="linux-source" GIT_AUTHOR_EMAIL="linux-source@localhost"
export GIT_COMMITTER_NAME="compsc-bench" GIT_COMMITTER_EMAIL="bench@localhost"
export GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z"
git() { command git -C "$OUT" -c init.defaultBranch=main -c core.autocrlf=false "$@"; }
git init -q
git add -A
git commit -q -m "$DRIVER: upstream $(basename "$KDIR" | sed 's/^linux-headers-//')"
git tag upstream

# Patches keep their own author and date.
unset GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_AUTHOR_DATE
n=0
while IFS= read -r p; do
	echo "build-driver: git am $p"
	if ! git am -q --committer-date-is-author-date "$p"; then
		git am --abort || true
		echo "build-driver: $p does not apply on upstream $DRIVER" >&2
		exit 1
	fi
	n=$((n + 1))
done < <(series_files)
echo "build-driver: $DRIVER with $n patch(es) from ${SERIES:-<none>}"

CONFIG=CONFIG_$(echo "$DRIVER" | tr '[:lower:]' '[:upper:]')
if [ -n "$COMPSC_LIB" ] && grep -q 'COMPSC_VF_OBJS' "$OUT/$REL_DIR/Makefile"; then
	# The helper is our library, not part of the driver: copied next to
	# it (git ignores it), built with the driver's flags, never exported.
	rsync -a --exclude='*.o' --exclude='.*.cmd' "$COMPSC_LIB/" "$OUT/$REL_DIR/compsc/"
	echo compsc/ >> "$OUT/.git/info/exclude"
	objs=$(printf 'include %s/sources.mk\nall:;@echo $(COMPSC_VF_SRCS)\n' "$COMPSC_LIB" |
		make -s -f - | tr ' ' '\n' | sed 's|^|compsc/|; s|$|.o|' | tr '\n' ' ')
	make -C "$KDIR" M="$OUT/$REL_DIR" "$CONFIG=m" COMPSC_VF_OBJS="$objs" \
		KCFLAGS="-I$OUT/$REL_DIR/compsc/include -DCOMPSC_LINKED" modules
else
	make -C "$KDIR" M="$OUT/$REL_DIR" "$CONFIG=m" \
		${COMPSC_INC:+KCFLAGS=-I$COMPSC_INC} ${COMPSC_SYMVERS:+KBUILD_EXTRA_SYMBOLS=$COMPSC_SYMVERS} modules
fi
cp "$OUT/$REL_DIR/$DRIVER.ko" "$OUT/$DRIVER.ko"
echo "$inputs" > "$OUT/.inputs"
rm -rf "$FINAL.old"
[ ! -e "$FINAL" ] || mv "$FINAL" "$FINAL.old"
mv "$OUT" "$FINAL"
rm -rf "$FINAL.old"
