#!/usr/bin/env bash
# ixgbe PF series: applies, every prefix builds against compsc.ko's API,
# checkpatch, unit test of the area request and of the PF_VF/PF_VF_EXT
# encoding (flags, MAC filter requests, mailbox API) against the real
# ixgbe headers.
# usage: check.sh KSRC KDIR OUTDIR
. "$(dirname "$0")/../lib.sh"
vendor_init "$@"
SERIES=$VENDOR_TOP/drivers/ixgbe
vendor_budget "$SERIES" 475
vendor_apply ixgbe "$SERIES"
vendor_checkpatch "$SERIES"
# ixgbe.h cannot be built in userspace: take its xcast enum (the mailbox
# ABI) as it is, and the VF's request type from the ixgbevf series.
mkdir -p "$OUT/gen"
sed -n '/^enum ixgbevf_xcast_modes {/,/^};/p' "$DRIVER_DIR/ixgbe.h" >"$OUT/gen/ixgbe_xcast.h"
grep -q IXGBEVF_XCAST_MODE_PROMISC "$OUT/gen/ixgbe_xcast.h" || vendor_die "no xcast enum in ixgbe.h"
vf_type=$(sed -n 's/^+#define IXGBE_VF_COMPSC_AREA[[:space:]]*\(0x[0-9a-f]*\).*/\1/p' \
	"$VENDOR_TOP"/drivers/ixgbevf/*.patch)
[ -n "$vf_type" ] || vendor_die "no IXGBE_VF_COMPSC_AREA in the ixgbevf series"
# The APIs ixgbe_negotiate_vf_api() accepts, as the source lists them:
# vf_check takes a PF_VF_EXT's API only up to the newest of them.
sed -n '/^static int ixgbe_negotiate_vf_api(/,/^}/p' "$DRIVER_DIR/ixgbe_sriov.c" |
	sed -n 's/^[[:space:]]*case \(ixgbe_mbox_api_[0-9]*\):.*/\1,/p' |
	{ echo '#define NEGOTIATED_APIS \'; tr -d '\n'; echo; } >"$OUT/gen/ixgbe_apis.h"
grep -q 'ixgbe_mbox_api_1[0-9],' "$OUT/gen/ixgbe_apis.h" ||
	vendor_die "no APIs found in ixgbe_negotiate_vf_api()"
vendor_unit test_pf_state "$VENDOR_TOP/tests/vendor/ixgbe/test_pf_state.c" \
	-I"$OUT/gen" -I"$DRIVER_DIR" -DVF_COMPSC_AREA="$vf_type"
vendor_build_each ixgbe
vendor_ok 475
