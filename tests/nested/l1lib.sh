#!/bin/sh
# Helpers for the L1 host of the nested bench; sourced by each command the
# harness runs in L1 (. /usr/sbin/l1lib.sh; ...). QEMU and the L2 images
# come over 9p at /mnt/share.
S=/mnt/share
Q="$S/qemu/bin/qemu-system-x86_64 -L $S/qemu/fw"
export QEMU_MODULE_DIR=$S/qemu/mod
export LD_LIBRARY_PATH=$S/qemu/lib

l1_mount() {
	mountpoint -q /mnt/share && return 0
	for m in netfs 9pnet 9pnet_virtio 9p; do insmod /lib/compsc/nested/$m.ko 2>/dev/null; done
	mkdir -p /mnt/share /lib64
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 share /mnt/share
	ln -sf $S/qemu/lib/ld-linux-x86-64.so.2 /lib64/ld-linux-x86-64.so.2
}

l1_vfio() {
	for m in irqbypass vfio vfio_iommu_type1 vfio-pci-core vfio-pci; do
		[ -d /sys/module/$(echo $m | tr - _) ] || insmod /lib/compsc/nested/$m.ko
	done
	[ -d /sys/module/compsc_vfio ] || insmod /lib/compsc/nested/compsc_vfio.ko "$@"
}

# bind BDF to compsc_vfio
l1_bind() {
	echo compsc_vfio > /sys/bus/pci/devices/$1/driver_override
	[ -e /sys/bus/pci/devices/$1/driver ] && echo $1 > /sys/bus/pci/devices/$1/driver/unbind
	echo $1 > /sys/bus/pci/drivers_probe
	basename "$(readlink /sys/bus/pci/devices/$1/driver)"
}

# hmp PORT command...: one monitor command, its output
hmp() {
	p=$1; shift
	(echo "$*"; sleep ${HMPWAIT:-1}) | nc 127.0.0.1 $p | tr -d '\r' |
		sed 's/\x1b\[[0-9;]*[A-Za-z]//g' | grep -v -e '^(qemu)' -e 'QEMU .* monitor'; true
}

# l2_start NAME VF IP MONPORT [extra qemu args]: one L2 VM in the background
l2_start() {
	name=$1 vf=$2 ip=$3 port=$4; shift 4
	# a previous VM's log would satisfy wait_l2_up before QEMU truncates it
	rm -f /run/$name.log /run/$name.qemu
	$Q -M q35 -accel tcg -m ${L2MEM:-256} -display none -nodefaults -no-reboot \
		-kernel $S/l2/vmlinuz -initrd $S/l2/initrd.img \
		-append "console=ttyS0 quiet panic=-1 l2ip=$ip" \
		-device pcie-root-port,id=rp1,slot=1,chassis=1 \
		-serial file:/run/$name.log \
		-monitor tcp:127.0.0.1:$port,server=on,wait=off \
		-device vfio-pci,host=$vf,id=hostdev0,bus=rp1,enable-migration=on,x-no-mmap=on \
		"$@" > /run/$name.qemu 2>&1 &
	echo $! > /run/$name.pid
}
