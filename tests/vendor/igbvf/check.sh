#!/usr/bin/env bash
# igbvf series: applies, every prefix builds, checkpatch, at most 396
# changed lines. (Its behaviour is tested on the VM bench: make vm-test.)
# usage: check.sh KSRC KDIR OUTDIR
. "$(dirname "$0")/../lib.sh"
vendor_init "$@"
SERIES=$VENDOR_TOP/drivers/igbvf
vendor_budget "$SERIES" 396
vendor_apply igbvf "$SERIES"
vendor_checkpatch "$SERIES"
vendor_build_each igbvf
vendor_ok 396
