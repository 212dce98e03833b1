#!/usr/bin/env bash
# Build the one-VM bench's debug kernel once (tests/vm/debugkernel.config on
# tinyconfig, through tests/nested/l2kernel-build.sh, which builds and
# caches the nested L2's small kernel the same way), then lay it out like
# an unpacked Debian kernel package, so mk/bench.mk's image rules take it
# as they take Debian's: ROOT/boot/vmlinuz-REL and ROOT/lib/modules/REL
# (the stock modules the bench carries: igb, igbvf, 8021q, ...).
#
# usage: debugkernel-build.sh TARBALL SRC OUT FRAGMENT
#   as l2kernel-build.sh; ROOT is OUT/root, REL OUT's kernel.release.
set -euo pipefail

TARBALL=$1 SRC=$(realpath -m "$2") OUT=$(realpath -m "$3") FRAG=$4
HERE=$(dirname "$(realpath "$0")")
"$HERE/../nested/l2kernel-build.sh" "$TARBALL" "$SRC" "$OUT" "$FRAG"

# The same lock as the build: one install per OUT, never under a reader.
exec 9>"$OUT.lock"
flock 9
[ -f "$OUT/root/.installed" ] && exit 0
REL=$(cat "$OUT/include/config/kernel.release")
rm -rf "$OUT/root"
make -s -C "$SRC" O="$OUT" INSTALL_MOD_PATH="$OUT/root" INSTALL_MOD_STRIP=1 modules_install
mkdir -p "$OUT/root/boot"
ln -sfn ../../arch/x86/boot/bzImage "$OUT/root/boot/vmlinuz-$REL"
touch "$OUT/root/.installed"
echo "debugkernel: $REL in $OUT/root"
