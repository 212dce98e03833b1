#!/usr/bin/env bash
# libcompsc's KUnit suite (libcompsc/kernel/selftest_kunit.c) in a UML
# kernel built by KUnit's own tool from the pinned kernel source.
#
# usage: run.sh KSRC LIBCOMPSC OUT [JOBS]
#   KSRC       unpacked kernel source (the L2 kernel's, mk/l2kernel.mk);
#              never written: the scratch tree links to its files
#   LIBCOMPSC  the library's source directory
#   OUT        cache directory: OUT/linux is the scratch tree (KSRC hard
#              linked, the library laid in as lib/compsc), OUT/build the
#              UML build, kept so the next run only rebuilds what changed
#
# Debian's kernels are built without CONFIG_KUNIT, so the suite cannot run
# in the bench VM; compsc_selftest.ko runs the same checks there.
set -euo pipefail

src=$1 lib=$2 out=$3 jobs=${4:-$(nproc)}
here=$(dirname "$(realpath "$0")")
tree=$out/linux

mkdir -p "$out"
exec 9>"$out.lock"
flock 9

# The tree: hard links to KSRC (same filesystem as the cache: cp -al; a
# copy elsewhere), so make sees KSRC's own mtimes and stays incremental.
if [ ! -e "$tree/.compsc-linked" ]; then
	rm -rf "$tree"
	cp -al "$src" "$tree" 2>/dev/null || { rm -rf "$tree"; cp -a "$src" "$tree"; }
	touch "$tree/.compsc-linked"
	# lib/Kconfig and lib/Makefile get one line each: replaced, never
	# written through, so KSRC's own files stay as they are
	for f in Kconfig Makefile; do
		cp "$tree/lib/$f" "$tree/lib/$f.new"
		case $f in
		Kconfig) echo 'source "lib/compsc/Kconfig"' >> "$tree/lib/$f.new" ;;
		Makefile) echo 'obj-y += compsc/' >> "$tree/lib/$f.new" ;;
		esac
		mv "$tree/lib/$f.new" "$tree/lib/$f"
	done
fi

# The library and the suite's build files, mtimes kept (rsync -a)
mkdir -p "$tree/lib/compsc/kernel"
rsync -a --delete "$lib/src/" "$tree/lib/compsc/src/"
rsync -a --delete "$lib/include/" "$tree/lib/compsc/include/"
rsync -a "$lib/sources.mk" "$lib/kernel/selftest_kunit.c" "$tree/lib/compsc/"
mv "$tree/lib/compsc/selftest_kunit.c" "$tree/lib/compsc/kernel/"
rsync -a "$here/Kbuild" "$here/Kconfig" "$here/.kunitconfig" "$tree/lib/compsc/"

cd "$tree"
exec python3 tools/testing/kunit/kunit.py run --arch=um --jobs="$jobs" \
	--build_dir="$out/build" --kunitconfig=lib/compsc/.kunitconfig
