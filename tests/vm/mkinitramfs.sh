#!/usr/bin/env bash
# Build the bench VM's initramfs (an uncompressed newc cpio: the kernel
# unpacks it faster under TCG than it would decompress gzip).
#
# usage: mkinitramfs.sh OUT KROOT KREL AGENT EXTRA_DIR [CLI]
#   OUT        initramfs to write
#   KROOT      unpacked Debian kernel (lib/modules/KREL inside)
#   KREL       kernel release, e.g. 6.12.117+deb12-amd64
#   AGENT      the static compsc-agent binary
#   EXTRA_DIR  tree copied to /lib/compsc (our built modules); may be absent
#   CLI        the compsc CLI (build/compsc), installed as /usr/sbin/compsc
#   DPDK_APPS  (environment) DPDK programs to carry, e.g. dpdk-testpmd once
#              `make dpdk` built it; installed in /usr/bin
#
# Contents: busybox-static, iproute2's ip and tc, ethtool, iperf3, lspci, the compsc
# CLI (with their shared libraries, found by ldd), the stock modules the bench
# needs and everything they depend on (uncompressed, with a fresh
# modules.dep), tests/vm/guest/*.
set -euo pipefail

OUT=$(realpath -m "$1") KROOT=$2 KREL=$3 AGENT=$4 EXTRA=${5:-} CLI=${6:-}
HERE=$(cd "$(dirname "$0")" && pwd)
# Stock modules to include; their dependencies are added automatically.
# 8021q, veth, bridge: VLAN interfaces and spoofed frames in test_pf_*.
# libcrc32c, crc32c_generic: compsc.ko checksums the stream with the
# kernel's crc32c(), and libcrc32c asks the crypto API for an
# implementation when it loads.
MODULES="igb igbvf 8021q veth bridge libcrc32c crc32c_generic"
# vfio-pci: DPDK drives a VF through it, over our no-IOMMU vfio.ko, which
# the guest loads first from /lib/compsc/kmod/vfio-noiommu/. Only where
# the kernel has it: the one-VM debug kernel has no VFIO (and no DPDK).
# sch_tbf: that rate limit; e1000e: a lower of another NIC model
# (test_shadow_e1000e.py); ixgbe: what the project's ixgbe depends on
# (the 82599 cases), and Debian's ixgbe and ixgbevf themselves, the stock
# side of the 82599's mixed cases (a stock PF or VF driver beside ours).
# The debug kernel has none of them: those tests skip.
OPTIONAL_MODULES="vfio-pci sch_tbf e1000e ixgbe ixgbevf"
# Host programs to include (with their libraries).
# lspci: what `compsc devices` is checked against (test_compsc_devices.py).
# tc: a rate-limited lower with a backlog (test_shadow_quiesce.py).
PROGRAMS="/usr/sbin/ip /usr/sbin/tc /usr/sbin/ethtool /usr/bin/iperf3 /usr/bin/dash /usr/bin/mountpoint
	  /usr/bin/lspci"

STAGE=$(mktemp -d "${OUT}.stage.XXXXXX")
trap 'rm -rf "$STAGE" "$STAGE.cpio"' EXIT
mkdir -p "$STAGE"/{bin,sbin,usr/bin,usr/sbin,lib,lib64,proc,sys,dev,tmp,run,root,etc,lib/compsc}

cp /bin/busybox "$STAGE/bin/busybox"
for applet in $(/bin/busybox --list); do
	[ "$applet" = busybox ] || ln -sf busybox "$STAGE/bin/$applet"
done

# copy_with_libs FILE [DEST]: FILE at DEST (default: its own path) + its libraries
copy_with_libs() {
	local f=$1 dest=${2:-$1} lib
	install -D "$f" "$STAGE$dest"
	for lib in $(ldd "$f" | grep -oE '/[^ ]+' | sort -u); do
		[ -e "$STAGE$lib" ] || install -D "$(realpath "$lib")" "$STAGE$lib"
	done
}
for p in $PROGRAMS; do
	[ -x "$p" ] || { echo "mkinitramfs: $p missing (run .ci/install-deps.sh)" >&2; exit 1; }
	copy_with_libs "$p"
	# Prefer the real tools over busybox applets of the same name.
	ln -sf "$p" "$STAGE/bin/$(basename "$p")"
done
# /bin/sh is dash, as on Debian: Debian's busybox ash runs its own applets
# before searching PATH, so `ip` in an ash script would be busybox's (which
# cannot set VF MACs). Interactive shells use ash with aliases (etc/profile).
ln -sf /usr/bin/dash "$STAGE/bin/sh"
# The kernel's request_module() runs /sbin/modprobe: libcrc32c asks for a
# crc32c implementation that way when it loads.
ln -sf /bin/busybox "$STAGE/sbin/modprobe"

# Stock modules: walk modinfo's depends= recursively over the unpacked tree.
MODDIR=$KROOT/lib/modules/$KREL
declare -A seen=()
add_module() {
	local name=$1 path dep
	[ -n "${seen[$name]:-}" ] && return
	seen[$name]=1
	path=$(find "$MODDIR/kernel" -name "$name.ko*" -o -name "$(echo "$name" | tr _ -).ko*" | head -1)
	[ -n "$path" ] || { echo "mkinitramfs: module $name not found" >&2; exit 1; }
	for dep in $(modinfo -F depends "$path" | tr ',' ' '); do
		add_module "$dep"
	done
	local rel=${path#"$KROOT"/}
	mkdir -p "$STAGE/$(dirname "$rel")"
	case $path in
	*.xz) xz -dc "$path" > "$STAGE/${rel%.xz}" ;;
	*.zst) zstd -qdc "$path" > "$STAGE/${rel%.zst}" ;;
	*) cp "$path" "$STAGE/$rel" ;;
	esac
}
for m in $MODULES; do add_module "$m"; done
for m in $OPTIONAL_MODULES; do
	if [ -n "$(find "$MODDIR/kernel" -name "$m.ko*" -o -name "$(echo "$m" | tr - _).ko*" | head -1)" ]; then
		add_module "$m"
	else
		echo "mkinitramfs: $m not in this kernel: left out" >&2
	fi
done
cp "$MODDIR"/modules.builtin "$MODDIR"/modules.builtin.modinfo "$MODDIR"/modules.order \
	"$STAGE/lib/modules/$KREL/"
depmod -b "$STAGE" "$KREL"

install -m 0755 "$HERE/guest/init" "$STAGE/init"
install -m 0755 "$HERE/guest/bench-setup" "$STAGE/usr/sbin/bench-setup"
install -m 0755 "$HERE/guest/compsc-insmod" "$STAGE/usr/sbin/compsc-insmod"
install -m 0755 "$HERE/guest/dpdk-vf" "$STAGE/usr/sbin/dpdk-vf"
install -m 0755 "$AGENT" "$STAGE/usr/sbin/compsc-agent"
if [ -n "$CLI" ]; then
	copy_with_libs "$CLI" /usr/sbin/compsc
fi
for p in ${DPDK_APPS:-}; do
	copy_with_libs "$p" "/usr/bin/$(basename "$p")"
done
# glibc loads libgcc_s at run time for pthread_cancel, which DPDK's EAL
# cleanup calls at exit: ldd cannot see it, and without it testpmd aborts
# on its way out ("libgcc_s.so.1 must be installed for pthread_cancel").
if [ -n "${DPDK_APPS:-}" ]; then
	gcc_s=$(ldconfig -p | sed -n 's/^[[:space:]]*libgcc_s\.so\.1 (libc6,x86-64) => //p' | head -1)
	[ -n "$gcc_s" ] || { echo "mkinitramfs: libgcc_s.so.1 not found (DPDK needs it)" >&2; exit 1; }
	install -D "$(realpath "$gcc_s")" "$STAGE$gcc_s"
	# coreutils' stdbuf preload: testpmd's interactive output line-buffered
	# into a log file (tools/compsc_harness/dpdk.py)
	install -D /usr/libexec/coreutils/libstdbuf.so "$STAGE/usr/libexec/coreutils/libstdbuf.so"
fi
if [ -n "$EXTRA" ] && [ -d "$EXTRA" ]; then
	cp -a "$EXTRA/." "$STAGE/lib/compsc/"
fi
printf 'root:x:0:0:root:/root:/bin/sh\n' > "$STAGE/etc/passwd"
printf 'root:x:0:\n' > "$STAGE/etc/group"
cat > "$STAGE/etc/profile" <<'EOF'
PS1='compsc-vm:\w# '
alias ip=/usr/sbin/ip ethtool=/usr/sbin/ethtool iperf3=/usr/bin/iperf3
EOF

(cd "$STAGE" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) > "$STAGE.cpio"
mv "$STAGE.cpio" "$OUT"  # atomic: a VM booting right now keeps the old file
echo "mkinitramfs: $OUT ($(du -h "$OUT" | cut -f1)), modules: ${!seen[*]}"
