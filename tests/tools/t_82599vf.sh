# The 82599 VF (8086:10ed): register and replay key names taken by the
# stream's PCI ID or by --policy 82599vf; raw offsets for an ID with no
# model. Sourced by run.sh with $cli, $v (variant) and $samples set.
S=$samples

run "$cli" stream validate "$S/ixgbevf.stream" --expect 8086:10ed
expect_ok "$v/82599vf: validate" '^ok: 232 bytes, 4 records$'

run "$cli" stream decode "$S/ixgbevf.stream"
expect_ok "$v/82599vf: decode names registers and replay keys by PCI ID" \
	'^device +8086:10ed \(subsystem 8086:7a11\)$' \
	'^ +0 +0 +0x00001010 4 +plain +0x0000007f +VFRDH\(0\)$' \
	'^ +3 +0 +0x000021d0 4 +plain +0x000001ff +VFTDH\(7\)$' \
	'^ +1 +0 +0x00001020 counter_ro +0xfffffff0 +VFGORC_LSB$' \
	'^ +2 +0 +0x0000201c counter_ro +0x000010e1 +VFGPTC$' \
	'^ +1 +SET_VLAN\(100\) \(0x00640004\) +2 +8 ' \
	'^ +2 +SET_MACVLAN\(1\) \(0x00010006\) +3 +12 ' \
	'^ +3 +UPDATE_XCAST \(0x0000000c\) +4 +8 '

run "$cli" stream decode "$S/ixgbevf.stream" --json
if [ "$rc" -eq 0 ] && python3 - "$tmp/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = {x["type"]: x for x in d["records"]}
assert d["device"]["id"] == "8086:10ed"
assert [x["name"] for x in r["REGS"]["regs"]] == ["VFRDH(0)", "VFTDH(0)", "VFRDH(7)", "VFTDH(7)"]
assert [x["name"] for x in r["COUNTERS"]["counters"]] == ["VFGPRC", "VFGORC_LSB", "VFGPTC"]
assert [(x["key"], x["name"]) for x in r["DRIVER"]["replay"]["records"]] == [
    (0x2, "SET_MAC"), (0x00640004, "SET_VLAN(100)"), (0x00010006, "SET_MACVLAN(1)"),
    (0xc, "UPDATE_XCAST")]
PY
then ok "$v/82599vf: decode --json names"
else bad "$v/82599vf: decode --json" "exit $rc or JSON check failed"; fi

# A VF libcompsc has no model for: offsets and keys raw, as for any
# register the CLI has no name for.
run "$cli" stream decode "$S/unknown-dev.stream"
expect_ok "$v/unknown device: raw offsets and keys" \
	'^device +8086:1515 ' '^ +0 +0 +0x00001010 4 +plain +0x0000007f +-$' \
	'^ +1 +0 +0x00001020 counter_ro +0xfffffff0 +-$' \
	'^ +1 +0x00640004 +2 +8 '
run "$cli" stream decode "$S/unknown-dev.stream" --json
python3 -c '
import json, sys
r = {x["type"]: x for x in json.load(open(sys.argv[1]))["records"]}
assert [x["name"] for x in r["REGS"]["regs"]] == [None] * 4
assert [x["name"] for x in r["DRIVER"]["replay"]["records"]] == [None] * 4' "$tmp/out" &&
	ok "$v/unknown device: --json names null" ||
	bad "$v/unknown device: --json" "exit $rc or JSON check failed"

run "$cli" area validate "$S/ixgbevf.area" --policy 82599vf
expect_ok "$v/82599vf: area validate" '^ok: 1344 bytes, 4 registers, 3 counters, 4 replay records \(policy 82599vf\)$'
run "$cli" area show "$S/ixgbevf.area" --policy 82599vf
expect_ok "$v/82599vf: area show names by policy" '^policy +82599vf: ok$' \
	'^ +2 +0 +0x000011d0 4 +plain +0x0000000000000001 VFRDH\(7\)$' \
	'^ +0 +0 +0x0000101c counter_ro +yes +0x00010000 4295032832 +VFGPRC$' \
	'^ +0 +SET_MAC \(0x00000002\) +1 +12 +02000000 52540021 65430000$' \
	'^ +2 +SET_MACVLAN\(1\) \(0x00010006\) +3 +12 '
run "$cli" area show "$S/ixgbevf.area" --policy 82599vf --json
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["policy"] == {"name": "82599vf", "ok": True, "error": None}
assert d["regs"][3]["name"] == "VFTDH(7)" and d["counters"][1]["name"] == "VFGORC_LSB"
assert d["replay"]["records"][1]["name"] == "SET_VLAN(100)"' "$tmp/out" &&
	ok "$v/82599vf: area show --json" ||
	bad "$v/82599vf: area show --json" "exit $rc or JSON check failed"

# Each VF's allow-list refuses the other's registers.
run "$cli" area validate "$S/ixgbevf.area"
expect_err "$v/82599vf: area under the 82576vf policy" 1 \
	'ixgbevf.area: area: register not allowed \(register 0: bar 0 offset 0x1010 width 4 kind plain\)$'
run "$cli" area validate "$S/good.area" --policy 82599vf
expect_err "$v/82599vf: 82576 area under the 82599vf policy" 1 \
	'good.area: area: register not allowed \(register 0: bar 0 offset 0x1524 width 4 kind plain\)$'
run "$cli" area validate "$S/good.area" --policy 82598vf
expect_err "$v/82599vf: unknown --policy" 2 '--policy wants 82576vf, 82599vf or structure'
