#!/usr/bin/env bash
# ixgbevf series: applies, every prefix builds, checkpatch, replay-key unit
# test against the patched mbx.h, at most 300 changed lines.
# usage: check.sh KSRC KDIR OUTDIR
. "$(dirname "$0")/../lib.sh"
vendor_init "$@"
SERIES=$VENDOR_TOP/drivers/ixgbevf
vendor_budget "$SERIES" 300
vendor_apply ixgbevf "$SERIES"
vendor_checkpatch "$SERIES"
vendor_unit test_msg_key "$VENDOR_TOP/tests/vendor/ixgbevf/test_msg_key.c" -I"$DRIVER_DIR"
vendor_build_each ixgbevf
vendor_ok 300
