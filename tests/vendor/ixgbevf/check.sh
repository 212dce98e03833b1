#!/usr/bin/env bash
# ixgbevf series: applies, every prefix builds, checkpatch, replay-key unit
# test against the patched mbx.h, at most 320 changed lines: 300 before it
# first ran, then 0006 (rx_drop), which the nested bench showed missing:
# without it every migration between two QEMU processes reset the VF.
# usage: check.sh KSRC KDIR OUTDIR
. "$(dirname "$0")/../lib.sh"
vendor_init "$@"
SERIES=$VENDOR_TOP/drivers/ixgbevf
vendor_budget "$SERIES" 320
vendor_apply ixgbevf "$SERIES"
vendor_checkpatch "$SERIES"
vendor_unit test_msg_key "$VENDOR_TOP/tests/vendor/ixgbevf/test_msg_key.c" -I"$DRIVER_DIR"
vendor_build_each ixgbevf
vendor_ok 320
