#!/usr/bin/env bash
# iavf series: applies, every prefix builds, checkpatch, the virtchnl
# replay encoding unit-tested against the kernel's virtchnl.h, at most 300
# changed lines. iavf runs on no emulated device: built and tested only.
# usage: check.sh KSRC KDIR OUTDIR
. "$(dirname "$0")/../lib.sh"
vendor_init "$@"
SERIES=$VENDOR_TOP/drivers/iavf
HERE=$VENDOR_TOP/tests/vendor/iavf
vendor_budget "$SERIES" 300
vendor_apply iavf "$SERIES"
vendor_checkpatch "$SERIES"

# virtchnl.h ships in the headers (the -common package), not in KSRC
VC=
for d in "$KSRC" "$KDIR" "$KDIR"/../linux-headers-*-common; do
	[ -f "$d/include/linux/avf/virtchnl.h" ] && VC=$d/include/linux/avf/virtchnl.h && break
done
[ -n "$VC" ] || vendor_die "no include/linux/avf/virtchnl.h in $KSRC or $KDIR"
mkdir -p "$OUT/vc/linux/avf" "$OUT/unit"
ln -sf "$(realpath "$VC")" "$OUT/vc/linux/avf/virtchnl.h"
# the encoder alone, with shim/iavf.h instead of the driver's: the shim
# must declare what the patched iavf.h declares
cp "$DRIVER_DIR/iavf_cs_log.c" "$OUT/unit/"
grep '^int iavf_cs_' "$HERE/shim/iavf.h" | while IFS= read -r proto; do
	grep -Fqx "$proto" "$DRIVER_DIR/iavf.h" ||
		vendor_die "patched iavf.h does not declare: $proto"
done
vendor_unit test_vc_log "$HERE/test_vc_log.c" -I"$HERE/shim" -I"$OUT/vc" \
	-Wno-missing-field-initializers \
	"$OUT/unit/iavf_cs_log.c"
vendor_build_each iavf
vendor_ok 300
