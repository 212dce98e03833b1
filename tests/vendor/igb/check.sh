#!/usr/bin/env bash
# igb PF series: applies, every prefix builds against compsc.ko's API,
# checkpatch. (Its behaviour is tested on the VM bench: make vm-test.)
# usage: check.sh KSRC KDIR OUTDIR
. "$(dirname "$0")/../lib.sh"
vendor_init "$@"
SERIES=$VENDOR_TOP/drivers/igb
vendor_budget "$SERIES" 500
vendor_apply igb "$SERIES"
vendor_checkpatch "$SERIES"
vendor_build_each igb
vendor_ok 500
