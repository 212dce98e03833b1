# shellcheck shell=bash
# Shared checks of a vendor patch series, sourced by tests/vendor/<name>/check.sh.
#
#   vendor_init KSRC KDIR OUT      set up; OUT is this driver's scratch dir
#   vendor_apply DRIVER SERIES     fresh copy of Debian's driver dir + git am
#   vendor_build_each DRIVER       build every prefix of the series (1..n)
#   vendor_checkpatch SERIES       checkpatch.pl --strict --no-tree, each patch
#   vendor_unit NAME FILE.c [-I..] build a userspace unit test and run it
#   vendor_budget SERIES MAX       changed lines of the series, fail over MAX
#   vendor_ok NAME                 the contract's last line
#
# Environment (set by mk/vendor.mk, defaults for a run by hand):
#   COMPSC_LIB      libcompsc source dir (VF drivers link the helper in)
#   COMPSC_INC      libcompsc headers for a PF driver (compsc.ko's API)
#   COMPSC_SYMVERS  compsc.ko's Module.symvers (optional: without it the
#                   PF module links with modpost warnings only)
#   LINUX_SOURCE    the linux-source tarball checkpatch.pl comes from
# Every failure prints one line saying what failed and exits non-zero.
set -euo pipefail

VENDOR_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
INTEL=drivers/net/ethernet/intel

vendor_die() { echo "vendor ${VENDOR_NAME:-?}: FAILED: $*" >&2; exit 1; }

vendor_init() {
	[ $# -eq 3 ] || vendor_die "usage: check.sh KSRC KDIR OUTDIR"
	KSRC=$1 KDIR=$2 OUT=$(realpath -m "$3")
	VENDOR_NAME=$(basename "$(dirname "$(realpath "$0")")")
	[ -d "$KSRC/$INTEL" ] || vendor_die "no $INTEL in $KSRC"
	[ -f "$KDIR/Makefile" ] || vendor_die "no kernel headers at $KDIR"
	COMPSC_LIB=${COMPSC_LIB:-$VENDOR_TOP/libcompsc}
	COMPSC_INC=${COMPSC_INC:-$COMPSC_LIB/include}
	COMPSC_SYMVERS=${COMPSC_SYMVERS:-}
	LINUX_SOURCE=${LINUX_SOURCE:-$(ls "$KDIR"/../linux-source-*.tar.xz 2>/dev/null | head -1)}
	rm -rf "$OUT"
	mkdir -p "$OUT"
	VENDOR_NOTES=()
}

# checkpatch.pl and its data files, extracted once next to every driver's
# OUT (they share the parent directory), under a lock.
vendor_checkpatch_get() {
	local dir
	dir=$(dirname "$OUT")/checkpatch
	CHECKPATCH=$dir/scripts/checkpatch.pl
	exec 8>"$dir.lock"
	flock 8
	if [ ! -f "$CHECKPATCH" ]; then
		[ -f "$LINUX_SOURCE" ] || vendor_die "no linux-source tarball (LINUX_SOURCE=$LINUX_SOURCE)"
		rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
		tar -xJf "$LINUX_SOURCE" -C "$dir.tmp" --strip-components=1 --wildcards \
			'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
			'*/scripts/const_structs.checkpatch' ||
			vendor_die "cannot extract checkpatch.pl from $LINUX_SOURCE"
		rm -rf "$dir" && mv "$dir.tmp" "$dir"
	fi
	flock -u 8
}

vendor_series() { find "$1" -maxdepth 1 -name '*.patch' | LC_ALL=C sort; }

# A git repository laid out like the kernel tree holding only DRIVER, with
# the series applied: OUT/tree, tag upstream, one commit per patch.
vendor_apply() {
	local driver=$1 series=$2 p
	TREE=$OUT/tree
	mkdir -p "$TREE/$INTEL"
	cp -a "$KSRC/$INTEL/$driver" "$TREE/$INTEL/$driver"
	vgit() { git -C "$TREE" -c init.defaultBranch=main -c core.autocrlf=false \
		-c user.name=vendor-check -c user.email=vendor-check@localhost "$@"; }
	vgit init -q
	vgit add -A
	vgit commit -q -m "$driver: upstream"
	vgit tag upstream
	VENDOR_PATCHES=0
	while IFS= read -r p; do
		if ! vgit am -q "$p" >"$OUT/am.log" 2>&1; then
			cat "$OUT/am.log" >&2
			vendor_die "$(basename "$p") does not apply to Debian's $driver"
		fi
		VENDOR_PATCHES=$((VENDOR_PATCHES + 1))
	done < <(vendor_series "$series")
	[ "$VENDOR_PATCHES" -gt 0 ] || vendor_die "no patches in $series"
	DRIVER_DIR=$TREE/$INTEL/$driver
}

# One Kbuild run in the applied tree, with libcompsc as build-driver.sh
# passes it: linked in for a VF driver naming $(COMPSC_VF_OBJS), headers
# and compsc.ko's symbols for the others.
vendor_make() {
	local driver=$1 config objs
	config=CONFIG_$(echo "$driver" | tr '[:lower:]' '[:upper:]')
	if grep -q 'COMPSC_VF_OBJS' "$DRIVER_DIR/Makefile"; then
		rsync -a --delete --exclude='*.o' --exclude='.*.cmd' "$COMPSC_LIB/" "$DRIVER_DIR/compsc/"
		objs=$("$VENDOR_TOP/scripts/driver-tree.sh" vf-objs "$COMPSC_LIB")
		make -s -C "$KDIR" M="$DRIVER_DIR" "$config=m" COMPSC_VF_OBJS="$objs" \
			KCFLAGS="-I$DRIVER_DIR/compsc/include -DCOMPSC_LINKED -Werror" modules
	elif [ -n "$COMPSC_SYMVERS" ]; then
		make -s -C "$KDIR" M="$DRIVER_DIR" "$config=m" KCFLAGS="-I$COMPSC_INC -Werror" \
			KBUILD_EXTRA_SYMBOLS="$COMPSC_SYMVERS" modules
	else	# compsc.ko not built: its symbols stay undefined, as a warning
		make -s -C "$KDIR" M="$DRIVER_DIR" "$config=m" KCFLAGS="-I$COMPSC_INC -Werror" \
			KBUILD_MODPOST_WARN=1 modules
	fi
}

# Every prefix of the series builds (warnings are errors); incremental,
# oldest first, ending at the whole series. Leaves DRIVER.ko in OUT.
vendor_build_each() {
	local driver=$1 i=0 sha shas
	shas=$(vgit rev-list --reverse upstream..HEAD)
	for sha in $shas; do
		i=$((i + 1))
		vgit checkout -q "$sha"
		vendor_make "$driver" >"$OUT/build-$i.log" 2>&1 || {
			tail -30 "$OUT/build-$i.log" >&2
			vendor_die "$driver does not build with patches 1..$i"
		}
	done
	cp "$DRIVER_DIR/$driver.ko" "$OUT/$driver.ko"
	VENDOR_NOTES+=("$VENDOR_PATCHES prefixes build")
}

# checkpatch --strict on each patch: errors and warnings fail, except the
# MAINTAINERS reminder for a new file; CHECKs are counted and shown.
vendor_checkpatch() {
	local series=$1 p log bad checks=0
	vendor_checkpatch_get
	for p in $(vendor_series "$series"); do
		log=$OUT/checkpatch-$(basename "$p" .patch).log
		# in OUT: checkpatch leaves a camelcase cache in its working dir
		(cd "$OUT" && perl "$CHECKPATCH" --strict --no-tree --no-color \
			--show-types "$p") >"$log" 2>&1 || true
		bad=$(grep -E '^(ERROR|WARNING):' "$log" | grep -vc '^WARNING:FILE_PATH_CHANGES:' || true)
		if [ "$bad" != 0 ]; then
			grep -E -A4 '^(ERROR|WARNING):' "$log" >&2
			vendor_die "checkpatch: $(basename "$p")"
		fi
		checks=$((checks + $(grep -c '^CHECK:' "$log" || true)))
		grep -A3 '^CHECK:' "$log" || true
	done
	VENDOR_NOTES+=("checkpatch clean ($checks CHECKs)")
}

# cc a unit test against the userspace libcompsc (its sources, built with
# the test) and the given include dirs (the applied driver's headers, the
# stub linux/ headers in tests/vendor/shim), then run it.
vendor_unit() {
	local name=$1 src=$2 srcs
	shift 2
	srcs=$(printf 'include %s/sources.mk\nall:;@echo $(COMPSC_SRCS)\n' "$COMPSC_LIB" |
		make -s -f - | tr ' ' '\n' | sed "s|^|$COMPSC_LIB/src/|; s|\$|.c|")
	# shellcheck disable=SC2086
	${CC:-cc} -std=gnu11 -O1 -g -Wall -Wextra -Werror -D_GNU_SOURCE \
		-I"$VENDOR_TOP/tests/vendor/shim" -I"$VENDOR_TOP/tests/vendor" \
		-I"$COMPSC_LIB/include" "$@" "$src" $srcs -o "$OUT/$name" ||
		vendor_die "unit test $name does not build"
	"$OUT/$name" || vendor_die "unit test $name"
	VENDOR_NOTES+=("$name passed")
}

# Changed lines of the series: every +/- line inside its diffs, new files
# included, so a later patch rewriting an earlier one counts twice.
vendor_budget() {
	local series=$1 max=$2
	# shellcheck disable=SC2046
	VENDOR_LINES=$(awk '/^diff --git /{d=1; next} /^-- $/{d=0; next}
		d && /^(\+\+\+|---) /{next} d && /^[-+]/{n++} END{print n+0}' \
		$(vendor_series "$series"))
	[ "$VENDOR_LINES" -le "$max" ] ||
		vendor_die "series changes $VENDOR_LINES lines, budget $max"
}

vendor_ok() {
	local notes
	notes=$(printf '; %s' "${VENDOR_NOTES[@]}")
	echo "vendor $VENDOR_NAME: ok, $VENDOR_PATCHES patches, $VENDOR_LINES changed lines (budget $1)$notes"
}
