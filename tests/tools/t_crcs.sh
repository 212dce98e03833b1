# check-crcs.sh (hypervisor-glue/vfio-core): the rebuilt vfio.ko must export
# what Debian's did with the same CRCs, and a kernel without MODVERSIONS
# (all CRCs 0) must not be reported as a match. Host-only, so run once,
# not per CLI build. Sourced by run.sh.
[ "$v" = plain ] || return 0
crcs=$here/../../hypervisor-glue/vfio-core/check-crcs.sh
sym() { printf '%s\t%s\t%s\tEXPORT_SYMBOL_GPL\n' "$@"; }
{ sym 0x1a2b3c4d vfio_a drivers/vfio/vfio; sym 0x00c0ffee vfio_b drivers/vfio/vfio
  sym 0x11111111 other drivers/other; } >"$tmp/deb.sv"
{ sym 0x1a2b3c4d vfio_a drivers/vfio/vfio; sym 0x00c0ffee vfio_b drivers/vfio/vfio; } >"$tmp/new.sv"

run sh "$crcs" "$tmp/deb.sv" "$tmp/new.sv"
expect_ok "check-crcs: equal CRCs match" '^check-crcs: all 2 vfio.ko exports match Debian$'

sed 's/0x00c0ffee/0x00c0ffef/' "$tmp/new.sv" >"$tmp/bad.sv"
run sh "$crcs" "$tmp/deb.sv" "$tmp/bad.sv"
[ "$rc" -eq 1 ] && grep -qx 'check-crcs: vfio_b: Debian 0x00c0ffee, rebuilt 0x00c0ffef' "$tmp/out" &&
	ok "check-crcs: a changed CRC fails" || bad "check-crcs: a changed CRC fails" "rc=$rc $(cat "$tmp/out")"

sed 's/^0x[0-9a-f]*/0x00000000/' "$tmp/deb.sv" >"$tmp/deb0.sv"
sed 's/^0x[0-9a-f]*/0x00000000/' "$tmp/new.sv" >"$tmp/new0.sv"
run sh "$crcs" "$tmp/deb0.sv" "$tmp/new0.sv"
expect_ok "check-crcs: no MODVERSIONS is not called a match" \
	'^check-crcs: no CRCs to compare \(built without MODVERSIONS\); all 2 vfio.ko exports present$'

head -1 "$tmp/new0.sv" >"$tmp/miss0.sv"
run sh "$crcs" "$tmp/deb0.sv" "$tmp/miss0.sv"
[ "$rc" -eq 1 ] && grep -q 'vfio_b: Debian 0x00000000, rebuilt none' "$tmp/out" &&
	ok "check-crcs: a missing export fails without MODVERSIONS too" ||
	bad "check-crcs: a missing export fails without MODVERSIONS too" "rc=$rc $(cat "$tmp/out")"
