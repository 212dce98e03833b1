#!/usr/bin/env bash
# Run DKMS on the built packages for one kernel, in a scratch tree only,
# then make the bench's module tree with the DKMS builds swapped in.
#
# usage: dkms-build.sh DEBS WORK KREL KDIR BENCH_MODULES OUT_MODULES
#   DEBS           directory holding compsc-{host,guest,vfio-core}_*.deb
#   WORK           scratch directory (recreated): root/ (dpkg-deb -x of the
#                  packages), dkms/ (DKMS's tree), host/ and guest/ (each
#                  machine's install tree: both packages ship compsc.ko)
#   KREL, KDIR     kernel release and its headers
#   BENCH_MODULES  the bench's host copy of the guest's /lib/compsc
#   OUT_MODULES    that tree again with compsc.ko, igb and igbvf from DKMS
#
# Nothing touches the host's own /var/lib/dkms or /lib/modules: every DKMS
# call names its trees, --no-depmod keeps depmod off /lib/modules, and
# sign_file points nowhere, so DKMS neither signs nor makes a key in
# /var/lib/dkms (the bench's own modules are unsigned too).
set -euo pipefail

DEBS=$1 WORK=$2 KREL=$3 KDIR=$4 BENCH=$5 OUT=$6
fail() { echo "deb-test: $*" >&2; exit 1; }

rm -rf "$WORK"
mkdir -p "$WORK/root" "$WORK/dkms" "$WORK/host/$KREL" "$WORK/guest/$KREL"
for p in compsc-host compsc-guest compsc-vfio-core; do
	deb=$(ls "$DEBS/${p}"_*.deb 2>/dev/null) || fail "no $p package in $DEBS (make deb)"
	dpkg-deb -x "$deb" "$WORK/root"
done
VER=$(dpkg-deb -f "$DEBS"/compsc-host_*.deb Version)

export sign_file=$WORK/no-signing
# DKMS runs as apt would run it, not as a sub-make of `make deb-test`.
unset MAKEFLAGS MFLAGS MAKELEVEL
dkms_run() {  # dkms_run ACTION PACKAGE MACHINE [KERNEL]
	dkms "$1" -m "$2" -v "$VER" -k "${4:-$KREL}" --kernelsourcedir "$KDIR" \
		--dkmstree "$WORK/dkms" --sourcetree "$WORK/root/usr/src" \
		--installtree "$WORK/$3" --no-depmod -j 2 2>&1 | grep -v '^readelf: Warning'
	return "${PIPESTATUS[0]}"
}
for pm in compsc-host:host compsc-guest:guest compsc-vfio-core:host; do
	p=${pm%:*} m=${pm#*:}
	dkms_run add "$p" "$m" >/dev/null
	dkms_run install "$p" "$m" || fail "dkms install $p for $KREL failed (see $WORK/dkms/$p/$VER/build/make.log)"
done

# The VFIO core rebuild is for its own kernel ABI only: another one is
# skipped (DKMS exit status 77), never built from the wrong sources.
other=6.12.1+deb12-amd64
rc=0
dkms_run build compsc-vfio-core host "$other" >/dev/null || rc=$?
[ "$rc" = 77 ] || fail "compsc-vfio-core: dkms build for $other returned $rc, want 77 (excluded)"

# What DKMS installed, uncompressed, for the VM.
installed() {  # installed MACHINE MODULE -> path of an uncompressed copy
	local d=$WORK/$1/$KREL/updates/dkms f
	for f in "$d/$2.ko" "$d/$2.ko.xz" "$d/$2.ko.zst"; do
		case $f in
		*.xz) [ -f "$f" ] && { xz -dc "$f" > "$WORK/$1-$2.ko"; echo "$WORK/$1-$2.ko"; return; } ;;
		*.zst) [ -f "$f" ] && { zstd -qdc "$f" > "$WORK/$1-$2.ko"; echo "$WORK/$1-$2.ko"; return; } ;;
		*) [ -f "$f" ] && { echo "$f"; return; } ;;
		esac
	done
	fail "DKMS installed no $2 for $1 in $d"
}
for pm in host:compsc host:compsc_vfio host:igb host:vfio guest:compsc guest:igbvf; do
	ko=$(installed "${pm%:*}" "${pm#*:}")
	vm=$(modinfo -F vermagic "$ko" | cut -d' ' -f1)
	[ "$vm" = "$KREL" ] || fail "$ko: vermagic $vm, want $KREL"
done

# The packages' compsc_vfio carries no fault injection: the tests' build
# alone has it (hypervisor-glue/vfio/fault.h, COMPSC_FAULTS=y).
knobs=$(strings "$(installed host compsc_vfio)" |
	grep -E '^fault_(corrupt|size|take_delay_ms|give|assigned)$' || true)
[ -z "$knobs" ] || fail "DKMS's compsc_vfio has the tests' fault knobs:" $knobs
echo "deb-test: DKMS's compsc_vfio has no fault knob"

# Nor do compsc.ko and the guest's igbvf carry libcompsc's test hooks
# (libcompsc/kernel/fault.h): the bench builds them with COMPSC_FAULTS=y.
hook_re='^(pf_call_delay_ms|compsc_(assert_held|stall_ms|hold_max_ms|rx_stall_ms|rx_stall_raced|rx_stall_hold_ms))$'
for pm in host:compsc guest:igbvf; do
	knobs=$(strings "$(installed "${pm%:*}" "${pm#*:}")" | grep -E "$hook_re" || true)
	[ -z "$knobs" ] || fail "DKMS's ${pm#*:} has the tests' hooks:" $knobs
done
echo "deb-test: DKMS's compsc.ko and igbvf have no test hook"

[ -d "$BENCH" ] || fail "$BENCH missing (make initramfs)"
rm -rf "$OUT"
mkdir -p "$(dirname "$OUT")"
cp -a "$BENCH" "$OUT"
swap() {  # swap MACHINE MODULE GUEST_PATH
	local ko
	ko=$(installed "$1" "$2")
	# The VM check proves which build loaded by build ID: it proves
	# nothing if DKMS's build were indistinguishable from the bench's.
	[ "$(readelf -n "$ko" | grep 'Build ID')" != "$(readelf -n "$OUT/$3" | grep 'Build ID')" ] ||
		fail "$2: DKMS's build has the bench build's build ID"
	install -m 0644 "$ko" "$OUT/$3"
	cmp "$ko" "$OUT/$3"
	echo "deb-test: $3 <- DKMS $1 $2 ($(readelf -n "$ko" | grep -o 'Build ID: .*'))"
}
swap host compsc kmod/compsc.ko
swap host igb drivers/igb/igb.ko
swap guest igbvf drivers/igbvf/igbvf.ko
echo "deb-test: DKMS built compsc-host, compsc-guest and compsc-vfio-core $VER for $KREL"
