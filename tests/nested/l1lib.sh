#!/bin/sh
# Helpers for the L1 host of the nested bench; sourced by each command the
# harness runs in L1 (. /usr/sbin/l1lib.sh; ...). QEMU and the L2 images
# come over 9p at /mnt/share, or in L1's initrd where L1's QEMU has no 9p
# (nested.py share_files()).
S=/mnt/share
Q="$S/qemu/bin/qemu-system-x86_64 -L $S/qemu/fw"
export QEMU_MODULE_DIR=$S/qemu/mod
export LD_LIBRARY_PATH=$S/qemu/lib

l1_mount() {
	if ! mountpoint -q /mnt/share && [ ! -e $S/l2/vmlinuz ]; then
		for m in netfs 9pnet 9pnet_virtio 9p; do
			insmod /lib/compsc/nested/$m.ko 2>/dev/null
		done
		mkdir -p /mnt/share
		mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 share /mnt/share
	fi
	mkdir -p /lib64
	ln -sf $S/qemu/lib/ld-linux-x86-64.so.2 /lib64/ld-linux-x86-64.so.2
}

# A module the harness did not copy in is built into this kernel
# (nested.py l1_modules): nothing to load.
l1_insmod() {
	[ -d /sys/module/$(echo $1 | tr - _) ] || [ ! -e /lib/compsc/nested/$1.ko ] ||
		insmod /lib/compsc/nested/$1.ko
}

l1_vfio() {
	for m in irqbypass vfio vfio_iommu_type1 vfio-pci-core vfio-pci; do
		l1_insmod $m
	done
	[ -d /sys/module/compsc_vfio ] ||
		insmod "${L1_CVF_KO:-/lib/compsc/nested/compsc_vfio.ko}" "$@"
}

# l1_root: the Debian root filesystem with the project's packages and
# libvirt installed by apt (tests/nested/l1root.sh, nested.py
# L1(rootfs=)), read-only over 9p under a tmpfs overlay at /sysroot, with
# L1's /proc, /sys, /dev, /run and the share inside: libvirtd and its QEMU
# run chrooted there, on L1's devices, and write the L2's console where
# the harness reads it (/run/NAME.log)
l1_root() {
	mountpoint -q /sysroot && return 0
	mkdir -p /ro /ov /sysroot
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,ro rootfs /ro || return 1
	[ -d /sys/module/overlay ] ||
		insmod /ro/lib/modules/$(uname -r)/kernel/fs/overlayfs/overlay.ko.xz
	mount -t tmpfs tmpfs /ov && mkdir /ov/u /ov/w
	mount -t overlay overlay -o lowerdir=/ro,upperdir=/ov/u,workdir=/ov/w /sysroot ||
		return 1
	mkdir -p /sysroot/mnt/share
	for d in proc sys dev run mnt/share; do
		mount -o rbind /$d /sysroot/$d || return 1
	done
	mount -t tmpfs tmpfs /sysroot/tmp
}

# l1_dkms_ko MODULE: the module DKMS built when apt installed the packages
l1_dkms_ko() {
	echo /sysroot/lib/modules/$(uname -r)/updates/dkms/$1.ko.xz
}

# l1_dkms: the packages' VFIO core and compsc.ko in place of the bench's
# (before l1_vfio and bench-setup, which then find them loaded)
l1_dkms() {
	for m in vfio compsc; do
		[ -d /sys/module/$m ] || compsc-insmod "$(l1_dkms_ko $m)" || return 1
	done
}

# l1_libvirt N: virtlogd and libvirtd from the root filesystem, as host N
# of a two-host test: a host UUID and name of its own (libvirt refuses to
# migrate to its own host), TCP without authentication (the bench's
# private link; an operator uses TLS or SSH), and a QEMU driver for an L1
# without systemd, cgroups or a security module, running QEMU as root
l1_libvirt() {
	cat >> /sysroot/etc/libvirt/qemu.conf <<-EOF
		security_driver = "none"
		namespaces = [ ]
		cgroup_controllers = [ ]
		user = "root"
		group = "root"
	EOF
	cat >> /sysroot/etc/libvirt/libvirtd.conf <<-EOF
		listen_tls = 0
		listen_tcp = 1
		auth_tcp = "none"
		host_uuid = "00000000-0000-4000-8000-00000000000$(($1 + 1))"
	EOF
	hostname host$1
	echo host$1 > /sysroot/etc/hostname
	chroot /sysroot /usr/sbin/virtlogd -d || return 1
	l1_libvirtd
}

# l1_libvirtd: start libvirtd (configured by l1_libvirt) and wait until it
# answers; it takes up the guests whose QEMU still runs
l1_libvirtd() {
	chroot /sysroot /usr/sbin/libvirtd -d --listen || return 1
	i=0
	until l1_virsh version > /dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt 120 ] || { echo "l1: libvirtd does not answer" >&2; return 1; }
		sleep 0.5
	done
}

# l1_virsh ARGS: virsh on this host's libvirtd
l1_virsh() {
	chroot /sysroot virsh -q -c qemu:///system "$@"
}

# l1_kvm: /dev/kvm for the L2s (L2ACCEL=kvm): kvm-amd over the SVM and
# nested paging L1's CPU model carries (nested.py L1_KVM_CPU)
l1_kvm() {
	for m in irqbypass ccp kvm kvm-amd; do
		l1_insmod $m
	done
	[ -c /dev/kvm ] || { echo "l1: no /dev/kvm after kvm-amd" >&2; return 1; }
	grep -qx Y /sys/module/kvm_amd/parameters/npt ||
		{ echo "l1: kvm-amd without nested paging" >&2; return 1; }
}

# bind BDF to compsc_vfio
l1_bind() {
	echo compsc_vfio > /sys/bus/pci/devices/$1/driver_override
	[ -e /sys/bus/pci/devices/$1/driver ] && echo $1 > /sys/bus/pci/devices/$1/driver/unbind
	echo $1 > /sys/bus/pci/drivers_probe
	basename "$(readlink /sys/bus/pci/devices/$1/driver)"
}

# l1_fingerprint: what a test module may change in this host and must
# leave as L1.setup() made it before the next module gets the host
# (tests/nested/conftest.py, L1Pool): the modules loaded, the VFs' drivers
# and the PF's view of them, compsc_vfio's and compsc.ko's parameters and
# test knobs, and the guest areas the host knows (none with no L2 running)
l1_fingerprint() {
	pf=$(l1_pf)
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	lsmod | awk 'NR > 1 { print "module", $1 }' | sort
	for d in /sys/class/net/$pf/device/virtfn*; do
		echo "$(basename $d) $(basename "$(readlink $d)")" \
			"$(basename "$(readlink $d/driver)")"
	done
	ip link show "$pf" | sed -n 's/^ *\(vf [0-9].*\)/\1/p'
	cat /sys/class/net/$pf/mtu
	grep -H . /sys/module/compsc_vfio/parameters/* /sys/module/compsc/parameters/* \
		2>/dev/null
	find /sys/kernel/debug/compsc_vfio /sys/kernel/debug/compsc -type f -perm -u+w \
		2>/dev/null | sort | xargs -r grep -H .
	sed 's/^/area /' /sys/kernel/debug/compsc/areas
}

# l1_if_of MAC: the name of L1's interface with MAC
l1_if_of() {
	dev=$(grep -lsx "$1" /sys/class/net/*/address) ||
		{ echo "l1: no NIC with MAC $1" >&2; return 1; }
	basename "$(dirname "$dev")"
}

# l1_pf: the name of L1's PF, whichever NIC it is: its one netdev whose
# PCI function can have VFs
l1_pf() {
	for n in /sys/class/net/*; do
		[ -e "$n/device/sriov_totalvfs" ] && { basename "$n"; return 0; }
	done
	echo "l1: no PF" >&2
	return 1
}

# l1_mgmt MAC IP: the management NIC (the one with MAC) up at IP; the L2
# QEMUs' QMP servers listen there, and L1's QEMU forwards their ports
# from the harness's side (tests/nested/nested.py)
l1_mgmt() {
	for m in failover net_failover virtio_net; do
		l1_insmod $m
	done
	# virtio_net probes while insmod runs: the NIC is there now or never
	l1_nic_up "$1" "$2"
}

# l1_nic_up MAC IP: L1's NIC with MAC up at IP/24
l1_nic_up() {
	dev=$(l1_if_of "$1") || return 1
	ip addr add "$2/24" dev "$dev"
	ip link set "$dev" up
}

# l2_tap NAME: the tap of the L2 NAME's virtio-net NIC, on br0 (the
# paravirtual baseline; l2guest.py adds the NIC)
l2_tap() {
	l1_bridge
	ip tuntap add dev tap-$1 mode tap 2>/dev/null
	ip link set tap-$1 master br0 up
}

# the bridge and tap modules (nested.py L1_NET_MODULES)
l1_net_modules() {
	for m in llc stp bridge tun; do
		[ -d /sys/module/$m ] || insmod /lib/compsc/nested/$m.ko 2>/dev/null
	done
}

# br0: the PF's port to the wire, shared by the virtio-net baseline's taps.
# No learning on the PF's port: QEMU's emulated 82576 switches a frame the
# PF sends to every pool that takes it, the PF's own included (a switch
# never returns a frame to its ingress port; igb_receive_assign() is not
# told the source pool), so each broadcast br0 floods out of the PF (a
# guest's ARP, QEMU's RARP announce after a migration) comes straight back
# in on it and br0 moves the guest's MAC to the PF's port. The peer's
# frames for the guest, which arrive there, are then dropped until the
# guest sends through its tap again: 17-38 s of a virtio-net
# migration under TCG. Frames to MACs learnt nowhere are flooded, the PF's
# port included.
l1_bridge() {
	[ -d /sys/class/net/br0 ] && return 0
	l1_net_modules
	pf=$(l1_pf)
	ip link add br0 type bridge
	ip link set br0 type bridge forward_delay 0 stp_state 0
	ip link set $pf master br0
	echo 0 > /sys/class/net/$pf/brport/learning
	ip link set br0 up
}

# l1_vf_mac N MAC: the PF gives VF N the MAC (a VF whose guest sets its
# own MAC needs none: trust). The hot-plug moves (nested.py
# hotplug_migrate): the VF a guest arrives on gets its MAC, the VF it left
# another, or the PF would still switch the guest's frames to the old VF.
l1_vf_mac() {
	pf=$(l1_pf)
	ip link set "$pf" vf "$1" mac "$2"
}

# l1_vf_trust N on|off: whether the PF lets VF N's guest set its own MAC
# over an administrator's (guest-shadow with a standby gives a new VF the
# VM's MAC itself, once the VF is ready: test_shadow_nested.py).
l1_vf_trust() {
	pf=$(l1_pf)
	ip link set "$pf" vf "$1" trust "$2"
}

# l1_tap NAME [MTU]: a tap in br0 for a virtio-net NIC that QEMU opens
# later (a standby beside a VF); MTU for the bridge's egress check
# (default 1500).
l1_tap() {
	l1_bridge
	ip tuntap add dev "$1" mode tap 2>/dev/null
	ip link set "$1" mtu "${2:-1500}"
	ip link set "$1" master br0 up
}

# l1_uplink_tap NAME MAC [MTU]: a tap in br1 for a virtio-net NIC that
# QMP's netdev_add opens later (a destination with no free VF), with L1's
# uplink (the NIC with MAC, nested.py L1(uplink=True)) as br1's port to
# the wire. Not through the PF: with VFs, QEMU's emulated 82576 ignores
# the PF's multicast-promiscuous bit (VMOLR.MPME) and gives a multicast
# frame only to pools with ROMPE and a hit in the MTA, which igb sets for
# the PF's own list only outside promiscuous mode (a bridge port is
# promiscuous); and it hands a tagged broadcast only to the pools of a
# VLVF entry for its VLAN, which igb never makes for the PF's own VLANs
# (igb_vlan_rx_add_vid). A real 82576 honours MPME and gives such frames
# to the default pool. The uplink, a promiscuous virtio-net, filters
# nothing: tagged frames cross br1 (no VLAN filtering) as they are.
l1_uplink_tap() {
	l1_net_modules
	up=$(l1_if_of "$2") || return 1
	mtu=${3:-1500}
	if [ ! -d /sys/class/net/br1 ]; then
		ip link add br1 type bridge forward_delay 0 stp_state 0
	fi
	ip link set "$up" mtu "$mtu"
	ip link set "$up" master br1 up
	ip tuntap add dev "$1" mode tap 2>/dev/null
	ip link set "$1" mtu "$mtu"
	ip link set "$1" master br1 up
	ip link set br1 mtu "$mtu" up
}

# l2_cmd NAME ID CMD...: run CMD in the L2 (l2-init's command loop on
# ttyS1); its console says "l2ctl: ID start" and "l2ctl: ID rc=RC up=T"
l2_cmd() {
	name=$1; shift
	printf '%s\n' "$*" > /run/$name.ctl.in
}

# l2_exec NAME ARGS...: the L2 NAME's QEMU in the background, with the
# arguments l2guest.py built (qemucmd.q35() and the L2's devices): its
# console is /run/NAME.log, its command pipe (ttyS1, l2_cmd) /run/NAME.ctl,
# QEMU's own output /run/NAME.qemu, its pid /run/NAME.pid.
l2_exec() {
	name=$1; shift
	# a previous VM's log would satisfy L2.wait_up() before QEMU truncates
	# it; kept in /run/l2logs for the harness's last scan (nested.py)
	mkdir -p /run/l2logs
	# (named by L1's uptime: busybox's date has no %N, and two restarts
	# within a second would share a name)
	read -r up _ < /proc/uptime
	[ ! -e /run/$name.log ] || mv /run/$name.log /run/l2logs/$name.$up.log
	rm -f /run/$name.qemu /run/$name.ctl.in /run/$name.ctl.out
	mkfifo /run/$name.ctl.in /run/$name.ctl.out
	$Q "$@" > /run/$name.qemu 2>&1 &
	echo $! > /run/$name.pid
}

# l1_cpu_sample OUT STOPFILE: until STOPFILE exists, every ~100 ms one line
# per thread of the L2 QEMUs (/run/src.pid, /run/dst.pid) and one for L1 as
# a whole: "uptime src|dst tid comm utime stime" (clock ticks) and
# "uptime l1 - cpu busy idle". One awk per sample: a fork per thread would
# load the L1 it measures. bench_e2e.py (BENCH_E2E_L1CPU=1) reads it.
l1_cpu_sample() {
	out=$1 stop=$2
	rm -f "$stop" "$out"
	while [ ! -e "$stop" ]; do
		read up _ < /proc/uptime
		src= dst=
		[ -e /run/src.pid ] && read src < /run/src.pid
		[ -e /run/dst.pid ] && read dst < /run/dst.pid
		set -- /proc/stat
		for p in $src $dst; do
			[ -d /proc/$p ] && set -- "$@" /proc/$p/task/*/stat
		done
		awk -v up="$up" -v src="$src" '
			FILENAME == "/proc/stat" {
				if ($1 == "cpu")
					print up, "l1", "-", "cpu", $2 + $3 + $4 + $7 + $8, $5 + $6
				next
			}
			{
				split(FILENAME, p, "/"); who = p[3] == src ? "src" : "dst"
				c = $0; sub(/^[^(]*\(/, "", c); sub(/\) [^)]*$/, "", c)
				gsub(/ /, "_", c)
				r = $0; sub(/^.*\) /, "", r); split(r, a, " ")
				print up, who, p[5], c, a[12], a[13]
			}' "$@" 2>/dev/null >> "$out"
		usleep 100000
	done
}
