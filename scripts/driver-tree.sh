#!/usr/bin/env bash
# One Intel driver out of tree: make its patched source tree, or build it.
# Shared by the bench (build-driver.sh) and the Debian packages (the DKMS
# trees carry this script and build with it), so both build alike.
#
# usage: driver-tree.sh prepare SRC DRIVER SERIES OUT [COMPSC_LIB]
#   SRC     unpacked kernel source root holding drivers/net/ethernet/intel/
#   DRIVER  directory name under drivers/net/ethernet/intel (igbvf, igb, ...)
#   SERIES  directory of `git format-patch` output; every *.patch, sorted,
#           is applied with `git am` (an empty or missing directory is fine)
#   OUT     new directory (must not exist): a small git repository laid out
#           like the kernel tree, so patches made with `git format-patch` in
#           a full kernel tree apply unchanged, and `git -C OUT log` shows
#           exactly what was applied. The driver is OUT/drivers/net/
#           ethernet/intel/DRIVER.
#   COMPSC_LIB  libcompsc source dir. A patched driver whose Makefile names
#           $(COMPSC_VF_OBJS) gets a copy in DRIVER/compsc/ (git ignores
#           it): the VF helper and the core it uses (COMPSC_VF_SRCS in
#           sources.mk) are linked into the driver's own module, which then
#           needs neither compsc.ko nor its symbols.
#
# usage: driver-tree.sh build KDIR DIR DRIVER [COMPSC_INC [COMPSC_SYMVERS]]
#   KDIR    kernel headers (or build tree) to build against
#   DIR     a driver directory made by `prepare` (or a copy of it)
#   COMPSC_INC, COMPSC_SYMVERS  for a driver that calls compsc.ko instead
#           (the PF): libcompsc's include dir and compsc.ko's Module.symvers
#   The module ends up as DIR/DRIVER.ko. With COMPSC_FAULTS=y in the
#   environment (the bench's builds; never the packages') a driver that
#   links the VF helper gets its test hooks (libcompsc/kernel/fault.h).
#
# usage: driver-tree.sh vf-objs COMPSC_LIB
#   the Kbuild object list of the VF helper, relative to the driver
#   directory (compsc/<src>.o), for a build of one's own (tests/vendor)
set -euo pipefail

usage() { sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }

# The helper's object list, relative to DIR: compsc/<src>.o for each source;
# with COMPSC_FAULTS=y its test hooks as well.
vf_objs() {
	local srcs='$(COMPSC_VF_SRCS)'
	[ "${COMPSC_FAULTS:-}" != y ] || srcs+=' $(COMPSC_VF_FAULT_SRCS)'
	printf 'include %s/sources.mk\nall:;@echo %s\n' "$1" "$srcs" |
		make -s --no-print-directory -f - | tr ' ' '\n' | sed 's|^|compsc/|; s|$|.o|' | tr '\n' ' '
}

prepare() {
	local src=$1 driver=$2 series=$3 out=$4 lib=${5:-}
	local rel=drivers/net/ethernet/intel/$driver
	[ -d "$src/$rel" ] || { echo "driver-tree: no $rel in $src" >&2; exit 1; }
	[ ! -e "$out" ] || { echo "driver-tree: $out exists" >&2; exit 1; }
	mkdir -p "$out/$(dirname "$rel")"
	cp -a "$src/$rel" "$out/$rel"

	# Fixed identity and dates: the upstream commit gets the same hash every run.
	export GIT_AUTHOR_NAME="linux-source" GIT_AUTHOR_EMAIL="linux-source@localhost"
	export GIT_COMMITTER_NAME="compsc-bench" GIT_COMMITTER_EMAIL="bench@localhost"
	export GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z"
	git() { command git -C "$out" -c init.defaultBranch=main -c core.autocrlf=false "$@"; }
	git init -q
	git add -A
	git commit -q -m "$driver: upstream linux-source"
	git tag upstream

	# Patches keep their own author and date.
	unset GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_AUTHOR_DATE
	local n=0 p
	while IFS= read -r p; do
		echo "driver-tree: git am $p"
		if ! git am -q --committer-date-is-author-date "$p"; then
			git am --abort || true
			echo "driver-tree: $p does not apply on upstream $driver" >&2
			exit 1
		fi
		n=$((n + 1))
	done < <([ -d "$series" ] && find "$(realpath "$series")" -maxdepth 1 -name '*.patch' | LC_ALL=C sort)
	echo "driver-tree: $driver with $n patch(es) from ${series:-<none>}"

	if [ -n "$lib" ] && grep -q 'COMPSC_VF_OBJS' "$out/$rel/Makefile"; then
		# The helper is our library, not part of the driver: copied next
		# to it, built with the driver's flags, never exported.
		rsync -a --exclude='*.o' --exclude='.*.cmd' "$lib/" "$out/$rel/compsc/"
		echo compsc/ >> "$out/.git/info/exclude"
	fi
}

build() {
	local kdir=$1 dir=$2 driver=$3 inc=${4:-} symvers=${5:-}
	local config faults=
	config=CONFIG_$(echo "$driver" | tr '[:lower:]' '[:upper:]')
	[ "${COMPSC_FAULTS:-}" != y ] || faults=" -DCOMPSC_FAULTS"
	dir=$(realpath "$dir")
	if [ -f "$dir/compsc/sources.mk" ]; then
		make -C "$kdir" M="$dir" "$config=m" COMPSC_VF_OBJS="$(vf_objs "$dir/compsc")" \
			KCFLAGS="-I$dir/compsc/include -DCOMPSC_LINKED$faults" modules
	else
		make -C "$kdir" M="$dir" "$config=m" \
			${inc:+KCFLAGS=-I$inc} ${symvers:+KBUILD_EXTRA_SYMBOLS=$symvers} modules
	fi
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
prepare) [ $# -ge 4 ] || usage; prepare "$@" ;;
build) [ $# -ge 3 ] || usage; build "$@" ;;
vf-objs) [ $# -eq 1 ] || usage; vf_objs "$1" ;;
*) usage ;;
esac
