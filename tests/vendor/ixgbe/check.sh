#!/usr/bin/env bash
# ixgbe PF series: applies, every prefix builds against compsc.ko's API,
# checkpatch, unit test of the area request and the record flags against
# the real ixgbe headers.
# usage: check.sh KSRC KDIR OUTDIR
. "$(dirname "$0")/../lib.sh"
vendor_init "$@"
SERIES=$VENDOR_TOP/drivers/ixgbe
vendor_budget "$SERIES" 400
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
vendor_unit test_pf_state "$VENDOR_TOP/tests/vendor/ixgbe/test_pf_state.c" \
	-I"$OUT/gen" -I"$DRIVER_DIR" -DVF_COMPSC_AREA="$vf_type"
vendor_build_each ixgbe
vendor_ok 400
