#!/usr/bin/env bash
# Boot the bench kernel under TCG on the 82599 model with Debian's stock
# ixgbe, and check what it says: probe, MAC, link up, pings answered by a
# stand-in peer on the other end of the netdev, TCP checksums the model
# filled in (TX checksum offload). With IPERF=1 (root: a netns and a tap)
# the peer is the host kernel's stack in a netns instead, and iperf3 runs
# both ways (TSO, checksums, multi-descriptor frames). With VF=1 the
# traffic goes through a VF instead: the PF's ixgbe enables two VFs
# (sriov_numvfs), gives VF 0 a MAC, and Debian's stock ixgbevf drives it.
# With COMPSC="compsc.ko ixgbe.ko ixgbevf.ko" (implies VF=1) the project's
# modules replace Debian's: the VF registers its CompSC area with the PF,
# compsc.ko's debugfs lists it, ethtool -S shows the compsc_* counters.
#
# usage: vm-probe.sh QEMU KROOT KREL OUT
#   QEMU   the patched qemu-system-x86_64 (make qemu)
#   KROOT  the unpacked Debian kernel (make kernel), KREL its release
#   OUT    where the initramfs, console.log and peer.log go
set -euo pipefail

QEMU=$1 KROOT=$2 KREL=$3 OUT=$4
[ -z "${COMPSC:-}" ] || VF=1
HERE=$(cd "$(dirname "$0")" && pwd)
MAC=52:54:00:82:59:01
VFMAC=52:54:00:82:59:10
mkdir -p "$OUT"
OUT=$(realpath "$OUT")

# The initramfs: busybox, ixgbe and what it depends on, an init script
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"; [ -z "${PEER:-}" ] || kill "$PEER" 2>/dev/null || true' EXIT
mkdir -p "$STAGE"/{bin,proc,sys,dev,mod}
cp /bin/busybox "$STAGE/bin/"
for a in sh mount insmod rmmod ip sleep dmesg poweroff nc ping; do
	ln -s busybox "$STAGE/bin/$a"
done
# install_bin BIN DEST: BIN as DEST, the libraries it needs where they are
install_bin() {
	install -D "$(realpath "$1")" "$STAGE$2"
	for f in $(ldd "$1" | grep -oE '/[^ ]+' | sort -u); do
		install -D "$(realpath "$f")" "$STAGE$f"
	done
}
if [ -n "${IPERF:-}" ]; then
	for f in /usr/bin/iperf3 $(ldd /usr/bin/iperf3 | grep -oE '/[^ ]+' | sort -u); do
		install -D "$(realpath "$f")" "$STAGE$f"
	done
	mkdir -p "$STAGE/tmp"
	PEER_IP=10.0.3.1 GUEST_IP=10.0.3.2
	TRAFFIC="/usr/bin/iperf3 -c $PEER_IP -t 8 -f m; /usr/bin/iperf3 -c $PEER_IP -t 8 -f m -R"
else
	PEER_IP=10.0.2.2 GUEST_IP=10.0.2.15
	TRAFFIC="echo x | nc -w 2 $PEER_IP 9999"
fi
MODS=""
# The project's modules by name (COMPSC): they replace Debian's
declare -A OWN=()
for ko in ${COMPSC:-}; do
	[ -f "$ko" ] || { echo "vm-probe: $ko not built (make drivers)" >&2; exit 1; }
	OWN[$(basename "$ko" .ko)]=$ko
done
add_module() {
	local p
	p=${OWN[$1]:-$(find "$KROOT/lib/modules/$KREL/kernel" -name "$1.ko*" | head -1)}
	[ -n "$p" ] || { echo "vm-probe: module $1 not found" >&2; exit 1; }
	for d in $(modinfo -F depends "$p" | tr ',' ' '); do
		case " $MODS " in *" $d "*) ;; *) add_module "$d" ;; esac
	done
	case " $MODS " in *" $1 "*) return ;; esac
	xz -dcf "$p" > "$STAGE/mod/$1.ko"
	MODS="$MODS $1"
}
# compsc.ko's libcrc32c needs a crc32c (a softdep; no modprobe here)
[ -z "${COMPSC:-}" ] || add_module crc32c_generic
add_module ixgbe
DEV=eth0
if [ -n "${VF:-}" ]; then
	# iproute2's ip for "ip link set eth0 vf 0 mac", which busybox lacks
	install_bin "$(command -v ip)" /sbin/ip2
	PFMODS=$MODS
	add_module ixgbevf
	DEV=eth1
	SETUP="ip link set eth0 up
sleep 8
echo 2 > /sys/class/net/eth0/device/sriov_numvfs
for d in /sys/bus/pci/devices/*; do echo \"pci \$(basename \$d) \$(cat \$d/vendor):\$(cat \$d/device)\"; done
/sbin/ip2 link set eth0 vf 0 mac $VFMAC
insmod /mod/ixgbevf.ko
sleep 3
ip link set eth1 up"
	# Then the VF, alone in a netns, pings the PF: the model's switch
	# (PFDTXGSWC) loops those frames between the pools, off the wire
	PF_IP=${GUEST_IP%.*}.14
	LOOP="echo '=== VF to PF'
ip addr add $PF_IP/24 dev eth0
mkdir -p /run/netns
/sbin/ip2 netns add vf
/sbin/ip2 link set eth1 netns vf
/sbin/ip2 -n vf link set eth1 up
/sbin/ip2 -n vf addr add $GUEST_IP/24 dev eth1
sleep 5
/sbin/ip2 netns exec vf ping -c 3 -W 2 $PF_IP
/sbin/ip2 -n vf -s link show eth1"
	MODS=$PFMODS
	if [ -n "${COMPSC:-}" ]; then
		install_bin "$(command -v ethtool)" /sbin/ethtool
		LOOP="echo '=== CompSC'
mount -t debugfs none /sys/kernel/debug
echo \"compsc areas: \$(cat /sys/kernel/debug/compsc/areas)\"
/sbin/ethtool -S eth1 | grep compsc_
$LOOP
rmmod ixgbevf
echo \"compsc areas after rmmod: \$(grep -c . /sys/kernel/debug/compsc/areas)\"
dmesg | grep -i 'compsc.*leaking'"
	fi
else
	SETUP="ip link set eth0 up"
fi
cat > "$STAGE/init" <<INIT
#!/bin/sh
mount -t proc p /proc; mount -t sysfs s /sys; mount -t devtmpfs d /dev
for m in $MODS; do insmod /mod/\$m.ko; done
sleep 2
$SETUP
sleep 8
ip addr add $GUEST_IP/24 dev $DEV
ping -c 3 -W 2 $PEER_IP
$TRAFFIC
echo "=== ixgbe"
dmesg | grep -i -e ixgbe -e compsc
dmesg | grep -A3 -e 'WARNING:' -e 'BUG:' -e 'Call Trace' | sed 's/^/splat: /'
ip -s link show $DEV
[ ! -x /sbin/ip2 ] || /sbin/ip2 -s link show eth0
${LOOP:-}
poweroff -f
INIT
chmod +x "$STAGE/init"
(cd "$STAGE" && find . | cpio -o -H newc -R 0:0 --quiet) > "$OUT/initrd.img"

QEMU_ARGS=(-M q35 -accel tcg -m 512 -smp 2 -nodefaults -no-reboot
	-display none -kernel "$KROOT/boot/vmlinuz-$KREL" -initrd "$OUT/initrd.img"
	-append "console=ttyS0 panic=-1 quiet"
	-device pcie-root-port,id=rp1,slot=1,chassis=1
	-device ixgbe,bus=rp1,netdev=n0,mac=$MAC
	-d unimp -D "$OUT/unimp.log" -serial stdio)
if [ -n "${IPERF:-}" ]; then
	NS=compsc-ixgbe-probe
	ip netns del $NS 2>/dev/null || true
	ip netns add $NS
	trap 'rm -rf "$STAGE"; ip netns pids $NS | xargs -r kill; ip netns del $NS' EXIT
	ip netns exec $NS ip tuntap add dev ixtap0 mode tap
	ip netns exec $NS ip addr add $PEER_IP/24 dev ixtap0
	ip netns exec $NS ip link set ixtap0 up
	ip netns exec $NS iperf3 -s -D
	timeout 300 ip netns exec $NS "$QEMU" "${QEMU_ARGS[@]}" \
		-netdev tap,id=n0,ifname=ixtap0,script=no,downscript=no \
		> "$OUT/console.log" 2>&1
else
	SOCK=$OUT/net.sock
	rm -f "$SOCK"
	python3 "$HERE/probe-peer.py" "$SOCK" > "$OUT/peer.log" 2>&1 &
	PEER=$!
	timeout 300 "$QEMU" "${QEMU_ARGS[@]}" \
		-netdev stream,id=n0,server=on,addr.type=unix,addr.path="$SOCK" \
		> "$OUT/console.log" 2>&1
fi

fail=0
check() {
	if grep -q "$2" "$OUT/$1"; then
		echo "vm-probe: ok: $(grep -m1 "$2" "$OUT/$1" | sed 's/^\[[ 0-9.]*\] //')"
	else
		echo "vm-probe: FAILED: no '$2' in $OUT/$1" >&2
		fail=1
	fi
}
check console.log "ixgbe .*MAC: 2, PHY: 1"
check console.log "ixgbe .*: $MAC"
check console.log "NIC Link is Up 10 Gbps"
if [ -n "${VF:-}" ]; then
	check console.log "pci .* 0x8086:0x10ed"
	check console.log "ixgbevf .*: $VFMAC"
	check console.log "ixgbevf .*NIC Link is Up"
	check console.log "vf 0 .*link/ether $VFMAC"
	if [ "$(grep -c "3 packets transmitted, 3 packets received" \
		"$OUT/console.log")" = 2 ]; then
		echo "vm-probe: ok: the VF's pings to the PF answered (internal switch)"
	else
		echo "vm-probe: FAILED: the VF's pings to the PF were not answered" >&2
		fail=1
	fi
fi
if [ -n "${COMPSC:-}" ]; then
	check console.log "ixgbe .*VF Reset msg received from vf 0"
	check console.log "ixgbevf .*CompSC: shared area of [0-9]* bytes registered"
	check console.log "compsc areas: [0-9a-f:.]* 0 0x[0-9a-f]* [1-9]"
	check console.log "compsc_mode: 1"
	# ixgbevf's remove withdraws both VFs' areas through the mailbox
	check console.log "compsc areas after rmmod: 0"
fi
check console.log "3 packets transmitted, 3 packets received"
if grep -q "^splat: " "$OUT/console.log"; then
	echo "vm-probe: FAILED: a kernel warning or BUG in the guest (splat: in console.log)" >&2
	fail=1
fi
if [ -n "${IPERF:-}" ]; then
	check console.log "Reverse mode"
	tr -d '\r' < "$OUT/console.log" | grep -E " (sender|receiver)$" |
		sed 's/^/vm-probe: iperf3: /'
	[ "$(tr -d '\r' < "$OUT/console.log" | grep -c " receiver$")" = 2 ] || {
		echo "vm-probe: FAILED: iperf3 did not finish both ways" >&2
		fail=1
	}
else
	check peer.log "tcp segment .* checksum ok"
	if grep -q "checksum BAD" "$OUT/peer.log"; then
		echo "vm-probe: FAILED: a bad TCP checksum reached the peer" >&2
		fail=1
	fi
fi
exit $fail
