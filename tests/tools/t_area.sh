# area show/validate: a good area's contents, JSON, policy refusals, hostile
# dumps. Sourced by run.sh with $cli, $v (variant) and $samples set.
S=$samples

run "$cli" area --help
expect_ok "$v/area help" 'compsc area show FILE' '--policy NAME' 'Exit: 0 valid'

run "$cli" area validate "$S/good.area"
expect_ok "$v/area validate good" '^ok: 1152 bytes, 6 registers, 2 counters, 3 replay records \(policy 82576vf\)$'

run "$cli" area show "$S/good.area"
expect_ok "$v/area show good" '^abi +1\.0$' '^size +1152 bytes$' \
	'^ +slots +128 +192 \(3 slots\)$' '^ +regs +320 +64 \(6 of 8 used\)$' \
	'^control +writer held \(1\), version 3, dirty_gen 4$' \
	'flags 0x00000001 dirty_log$' 'host_status 0 \(success\)$' \
	'^readers +1 inside$' '^policy +82576vf: ok$' \
	'^ +2 +0 +0x00002800 4 +plain +0x00000000deadb000 RDBAL\(0\)$' \
	'^ +0 +0 +0x00000f10 counter_ro +yes +0xfffffff0 8589934576 +VFGPRC$' \
	'^replay log: capacity 4, 3 records, last seq 3$' \
	'^ +0 +SET_MAC \(0x00000002\) +1 +12 +02000000 52540012 34560000$' \
	'^ +2 +SET_VLAN\(10\) \(0x000a0004\) +3 +8 +04000100 0a000000$'

run "$cli" area show "$S/good.area" --json
if [ "$rc" -eq 0 ] && python3 - "$tmp/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["abi"] == {"major": 1, "minor": 0} and d["size"] == 1152
assert d["layout"]["reg_count"] == 6 and d["layout"]["nr_slots"] == 3
c = d["control"]
assert c["writer"] == "held" and c["version"] == 3 and c["flag_names"] == ["dirty_log"]
assert c["host_status"] == 0 and d["readers_inside"] == 1
assert d["policy"] == {"name": "82576vf", "ok": True, "error": None}
assert d["regs"][2] == {"bar": 0, "offset": 0x2800, "width": 4, "kind": "plain",
                        "kind_id": 1, "flags": 0, "saved": 0xdeadb000, "name": "RDBAL(0)"}
assert d["counters"][0]["total"] == 0x1fffffff0 and d["counters"][0]["saved"] is True
assert d["replay"]["count"] == 3
assert d["replay"]["records"][0]["data_hex"] == "020000005254001234560000"
assert [(x["key"], x["name"]) for x in d["replay"]["records"]] == [
    (0x2, "SET_MAC"), (0x5, "SET_LPE"), (0x000a0004, "SET_VLAN(10)")]
assert d["replay_error"] is None
PY
then ok "$v/area show --json: parses, values right"
else bad "$v/area show --json" "exit $rc or JSON check failed"; fi

# Replay keys are named for the 82576 VF only, as registers are.
run "$cli" area show "$S/good.area" --policy structure
expect_ok "$v/area show --policy structure: raw replay keys" \
	'^ +0 +0x00000002 +1 +12 +02000000 ' '^ +2 +0x000a0004 +3 +8 '
run "$cli" area show "$S/good.area" --policy structure --json
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert [x["name"] for x in d["replay"]["records"]] == [None] * 3' "$tmp/out" &&
	ok "$v/area show --json --policy structure: replay names null" ||
	bad "$v/area show --json --policy structure" "JSON check failed"

run "$cli" area validate "$S/denied.area"
expect_err "$v/area validate denied" 1 'denied.area: area: register not allowed \(register 6: bar 0 offset 0x0 width 4 kind plain\)$'
run "$cli" area validate "$S/denied.area" --policy structure
expect_ok "$v/area validate denied, structure policy" '^ok: 1152 bytes, 7 registers'
run "$cli" area show "$S/denied.area"
expect_err "$v/area show denied: exit 1, one line" 1 'area: register not allowed'
grep -qE '^policy +82576vf: area: register not allowed' "$tmp/out" &&
	grep -qE '^ +6 +0 +0x00000000 4 .* CTRL$' "$tmp/out" &&
	ok "$v/area show denied: still shows the list" ||
	bad "$v/area show denied" "list or verdict missing"
run "$cli" area show "$S/denied.area" --json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["policy"]["ok"] is False and "not allowed" in d["policy"]["error"]' "$tmp/out" &&
	ok "$v/area show --json denied: policy.ok false" ||
	bad "$v/area show --json denied" "JSON check failed"

# A hostile replay log makes the area invalid: validate refuses it, show
# prints all it can and exits 1, both naming the field or the record.
replay_refusal() {
	case $1 in
	capacity) echo "replay log: capacity exceeds the log's room \(capacity 4294967295, room for 4 in 528 bytes\)$" ;;
	count) echo 'replay log: more records than its capacity \(count 4294967295, capacity 4\)$' ;;
	len) echo "replay log: record length exceeds a record's room \(record 1: length 65535, at most 112\)$" ;;
	esac
}
for r in capacity count len; do
	re=$(replay_refusal $r)
	run "$cli" area validate "$S/replay-$r.area"
	expect_err "$v/area validate replay $r" 1 "replay-$r.area: $re"
	run "$cli" area show "$S/replay-$r.area"
	expect_err "$v/area show replay $r: exit 1, one line" 1 "replay-$r.area: $re"
	grep -qE "^invalid $re" "$tmp/out" && grep -qE '^policy +82576vf: ok$' "$tmp/out" &&
		grep -qE '^counters +2$' "$tmp/out" &&
		ok "$v/area show replay $r: still shows the area and why" ||
		bad "$v/area show replay $r" "area or refusal missing"
done
run "$cli" area show "$S/replay-len.area" --json
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["policy"]["ok"] is True
assert d["replay"] is None and "record 1: length 65535" in d["replay_error"]' "$tmp/out" &&
	ok "$v/area show --json replay record length: replay null, replay_error" ||
	bad "$v/area show --json replay record length" "JSON check failed"

for cmd in validate show; do
	run "$cli" area $cmd "$S/bad-reg.area" --policy structure
	expect_err "$v/area $cmd bad width" 1 'area: bad register width \(register 1: '
	run "$cli" area $cmd "$S/bad-layout.area"
	expect_err "$v/area $cmd bad layout" 1 'area: sections outside the area, misaligned or overlapping \(1152 bytes read\)$'
	run "$cli" area $cmd "$S/truncated.area"
	expect_err "$v/area $cmd truncated" 1 'area: sections outside .*\(100 bytes read\)$'
	run "$cli" area $cmd "$S/garbage.bin"
	expect_err "$v/area $cmd garbage" 1 'garbage.bin: area: bad magic'
	run "$cli" area $cmd "$S/good.stream"
	expect_err "$v/area $cmd stream file" 1 'area: bad magic'
	run "$cli" area $cmd "$S/empty.bin"
	expect_err "$v/area $cmd empty" 1 'empty.bin: area: .*\(0 bytes read\)$'
	run "$cli" area $cmd "$S/no-such-file"
	expect_err "$v/area $cmd nonexistent" 2 'No such file or directory$'
	run "$cli" area $cmd "$S/good.area" --policy nope
	expect_err "$v/area $cmd bad --policy" 2 '--policy wants'
	run "$cli" area $cmd
	expect_err "$v/area $cmd no file" 2 'missing FILE'
done
run "$cli" area validate "$S/good.area" --json
expect_err "$v/area validate --json refused" 2 "unknown option '--json'"
run "$cli" area frob
expect_err "$v/area unknown subcommand" 2 "unknown subcommand 'frob'"

# Hostile dumps: every header/control byte flipped, a sample of the rest,
# cuts at many lengths. Refused or shown, never a crash or a second line.
python3 - "$S/good.area" "$tmp/mut" <<'PY'
import os, sys
data = open(sys.argv[1], "rb").read()
os.makedirs(sys.argv[2], exist_ok=True)
offs = list(range(0, 128)) + list(range(128, len(data), 16))
for i in offs:
    b = bytearray(data); b[i] ^= 0xff if i % 2 else 0x80
    open(f"{sys.argv[2]}/{i}", "wb").write(b)
for n in range(0, len(data), 97):
    open(f"{sys.argv[2]}/cut{n}", "wb").write(data[:n])
PY
mfail=
mkdir -p "$tmp/json"
for f in "$tmp"/mut/*; do
	run "$cli" area show "$f" --json
	if [ "$rc" -gt 1 ] || [ "$(wc -l <"$tmp/err")" -gt 1 ]; then
		mfail="$(basename "$f"): exit $rc $(head -c 300 "$tmp/err")"
		break
	fi
	[ -s "$tmp/out" ] && cp "$tmp/out" "$tmp/json/$(basename "$f")"
done
[ -z "$mfail" ] && ! python3 -c '
import json, sys
for f in sys.argv[1:]:
    json.load(open(f))' "$tmp"/json/* 2>"$tmp/err" &&
	mfail="output is not JSON: $(tail -1 "$tmp/err")"
[ -z "$mfail" ] && ok "$v/hostile areas: exit 0/1, at most one error line, JSON" ||
	bad "$v/hostile areas" "$mfail"
rm -rf "$tmp/mut" "$tmp/json"
