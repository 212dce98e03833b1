#!/usr/bin/env bash
# Build the nested bench's L2 kernel once: tinyconfig + FRAGMENT, bzImage,
# and the tree out-of-tree modules are built against (modules_prepare,
# Module.symvers).
#
# usage: l2kernel-build.sh TARBALL SRC OUT FRAGMENT
#   TARBALL   Debian's linux-source-*.tar.xz (see mk/kernel.version)
#   SRC       where to unpack it; shared by every OUT of that version
#   OUT       the build tree (make O=OUT); OUT/arch/x86/boot/bzImage
#   FRAGMENT  config lines merged onto tinyconfig; each must survive
#
# OUT is keyed by the fragment's hash (mk/l2kernel.mk), so a finished OUT
# (OUT/.built) is never rebuilt. An interrupted build resumes where it
# stopped: make is incremental, and .built is written last.
set -euo pipefail

TARBALL=$1 SRC=$(realpath -m "$2") OUT=$(realpath -m "$3") FRAG=$(realpath "$4")
JOBS=${L2K_JOBS:-$(nproc)}

# One build per OUT, one unpack per SRC (several checkouts share the cache).
mkdir -p "$(dirname "$OUT")" "$(dirname "$SRC")"
exec 9>"$OUT.lock"
flock 9
[ -f "$OUT/.built" ] && exit 0

exec 8>"$SRC.lock"
flock 8
if [ ! -f "$SRC/.unpacked" ]; then
	echo "l2kernel: unpacking $TARBALL"
	rm -rf "$SRC" "$SRC.tmp"
	mkdir -p "$SRC.tmp"
	tar -xJf "$TARBALL" -C "$SRC.tmp" --strip-components=1
	mv "$SRC.tmp" "$SRC"
	touch "$SRC/.unpacked"
fi
flock -u 8

t0=$(date +%s)
mkdir -p "$OUT"
make -s -C "$SRC" O="$OUT" tinyconfig
# -n: options the fragment newly exposes stay off unless it names them
# (alldefconfig would switch on every default-y driver behind NET and PCI).
(cd "$SRC" && scripts/kconfig/merge_config.sh -n -O "$OUT" "$OUT/.config" "$FRAG") >/dev/null

# merge_config only warns about requests Kconfig dropped (an unmet
# dependency): fail instead, naming them.
bad=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=*)
		grep -qxF -- "$line" "$OUT/.config" || { echo "l2kernel: not in .config: $line" >&2; bad=1; } ;;
	"# CONFIG_"*" is not set")
		sym=${line#\# }; sym=${sym%% *}
		! grep -q "^$sym=" "$OUT/.config" || { echo "l2kernel: still set: $sym" >&2; bad=1; } ;;
	esac
done < "$FRAG"
[ "$bad" = 0 ] || exit 1

# `all`: vmlinux, bzImage, modules_prepare and Module.symvers.
make -C "$SRC" O="$OUT" -j"$JOBS" all
[ -f "$OUT/Module.symvers" ] && [ -f "$OUT/arch/x86/boot/bzImage" ]
touch "$OUT/.built"
echo "l2kernel: $(cat "$OUT/include/config/kernel.release") in $OUT," \
	"$(du -h "$OUT/arch/x86/boot/bzImage" | cut -f1), built in $(( $(date +%s) - t0 )) s"
