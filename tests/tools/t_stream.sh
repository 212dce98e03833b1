# stream decode/validate: values of a good stream, JSON, one-line refusals.
# Sourced by run.sh with $cli, $v (variant) and $samples set.
S=$samples

run "$cli" --version
expect_ok "$v/version" '^compsc [0-9.]+ \(stream format 2\.0, area ABI 1\.0\)$'
run "$cli" stream --help
expect_ok "$v/stream help" 'compsc stream decode FILE' '--expect' 'Exit: 0 valid'

run "$cli" stream validate "$S/good.stream"
expect_ok "$v/validate good" '^ok: 296 bytes, 6 records$'
run "$cli" stream validate "$S/good.stream" --expect 8086:10ca
expect_ok "$v/validate good --expect right device" '^ok: 296 bytes'

run "$cli" stream decode "$S/good.stream"
expect_ok "$v/decode good: header and records" \
	'^format +2\.0$' '^device +8086:10ca \(subsystem 8086:a03c\)$' \
	'^total_len +296 bytes$' '1 unknown optional skipped' \
	'^REGS at offset 32: 88 bytes, mandatory, 7 entries$' \
	'^ +2 +0 +0x00002800 4 +plain +0xdeadb000 +RDBAL\(0\)$' \
	'^ +6 +3 +0x00000000 8 +plain +0x0123456789abcdef -$' \
	'^ +0 +0 +0x00000f10 counter_ro +0xfffffff0 +VFGPRC$' \
	'^ +mac +52:54:00:12:34:56$' '^ +vlans +2: 10 4094$' \
	'replay log \(packed\): 3 records' \
	'^ +0 +SET_MAC \(0x00000002\) +1 +12 +02000000 52540012 34560000$' \
	'^ +1 +SET_LPE \(0x00000005\) +2 +8 +05000000 f2050000$' \
	'^ +2 +SET_VLAN\(10\) \(0x000a0004\) +3 +8 +04000100 0a000000$' \
	'^END at offset 280: crc32c 0x[0-9a-f]{8} ok$'

run "$cli" stream decode "$S/opaque.stream"
expect_ok "$v/decode opaque DRIVER: says why it is no replay log" \
	'^DRIVER at offset 72: 17 bytes$' \
	'^ +opaque \(replay log: bad magic, not a replay log\):$' '6e 6f 74 20'

run "$cli" stream decode "$S/good.stream" --json
if [ "$rc" -eq 0 ] && python3 - "$tmp/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = {x["type"]: x for x in d["records"]}
assert d["format"] == {"major": 2, "minor": 0}
assert d["device"]["id"] == "8086:10ca" and d["device"]["subsys_device"] == 0xa03c
assert d["total_len"] == 296 and d["record_count"] == 6
assert d["unknown_optional_skipped"] == 1 and d["crc_ok"] is True
assert [x["type"] for x in d["records"]] == ["REGS", "COUNTERS", "PF_VF", "DRIVER"]
assert r["REGS"]["mandatory"] and r["REGS"]["regs"][2] == {"bar": 0, "offset": 0x2800,
    "width": 4, "kind": "plain", "value": 0xdeadb000, "name": "RDBAL(0)"}
assert r["REGS"]["regs"][6]["value"] == 0x0123456789abcdef and r["REGS"]["regs"][6]["name"] is None
assert r["COUNTERS"]["counters"][1]["name"] == "VFGPTC"
assert r["COUNTERS"]["counters"][0]["hw_final"] == 0xfffffff0
assert "total" not in r["COUNTERS"]["counters"][0]
assert r["COUNTERS"]["counters"][0]["kind"] == "counter_ro"
p = r["PF_VF"]["pf_vf"]
assert p["mac"] == "52:54:00:12:34:56" and p["vlans"] == [10, 4094]
assert p["flag_names"] == ["spoofchk", "trust"] and p["max_frame"] == 1522
rp = r["DRIVER"]["replay"]
assert r["DRIVER"]["replay_error"] is None
assert rp["packed"] and rp["count"] == 3 and rp["records"][1]["data_hex"] == "05000000f2050000"
assert [(x["key"], x["name"]) for x in rp["records"]] == [
    (0x2, "SET_MAC"), (0x5, "SET_LPE"), (0x000a0004, "SET_VLAN(10)")]
PY
then ok "$v/decode --json: parses, values right"
else bad "$v/decode --json" "exit $rc or JSON check failed"; fi

run "$cli" stream decode "$S/opaque.stream" --json
if [ "$rc" -eq 0 ] && python3 - "$tmp/out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["records"][1]
assert r["replay"] is None
assert r["replay_error"] == "replay log: bad magic, not a replay log"
PY
then ok "$v/decode --json opaque: replay null, replay_error says why"
else bad "$v/decode --json opaque" "exit $rc or JSON check failed"; fi

# An ixgbe PF's sections: PF_VF_EXT named field by field, in both forms.
run "$cli" stream decode "$S/ixgbe.stream"
expect_ok "$v/decode PF_VF_EXT: MAC filters, API, RSS query, what was lost" \
	'^device +8086:10ed ' '^PF_VF_EXT at offset 72: 32 bytes, mandatory, 2 entries$' \
	'^ +flags +0x0001 rss_query$' '^ +mbx_api +5$' \
	'^ +lost +0x00000001 \(the destination leaves the guest to reset\): ipsec$' \
	'^ +macs +2: 02:00:00:00:00:01 52:54:00:aa:bb:cc$'
run "$cli" stream decode "$S/ixgbe.stream" --json
if [ "$rc" -eq 0 ] && python3 - "$tmp/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert [x["type"] for x in d["records"]] == ["PF_VF", "PF_VF_EXT"]
x = d["records"][1]
assert x["type_id"] == 6 and x["len"] == 32 and x["mandatory"]
assert x["pf_vf_ext"] == {"flags": 1, "flag_names": ["rss_query"], "mbx_api": 5,
    "lost": 1, "lost_names": ["ipsec"], "macs": ["02:00:00:00:00:01", "52:54:00:aa:bb:cc"]}
PY
then ok "$v/decode --json PF_VF_EXT: values right"
else bad "$v/decode --json PF_VF_EXT" "exit $rc or JSON check failed"; fi
run "$cli" stream validate "$S/ixgbe.stream" --expect 8086:10ed
expect_ok "$v/validate PF_VF_EXT" '^ok: 128 bytes, 3 records$'
for cmd in validate decode; do
	run "$cli" stream $cmd "$S/ixgbe-bad-mac.stream"
	expect_err "$v/$cmd PF_VF_EXT with a multicast filter" 1 \
		'ixgbe-bad-mac.stream: stream: malformed record at offset 104$'
done

for cmd in validate decode; do
	run "$cli" stream $cmd "$S/truncated.stream"
	expect_err "$v/$cmd truncated" 1 'truncated.stream: stream: truncated at offset 280$'
	run "$cli" stream $cmd "$S/corrupt.stream"
	expect_err "$v/$cmd corrupt" 1 'stream: checksum mismatch \(corrupt\) at offset 288$'
	run "$cli" stream $cmd "$S/good.stream" --expect 8086:10ed
	expect_err "$v/$cmd wrong device" 1 'stream: made for a different device at offset 16$'
	run "$cli" stream $cmd "$S/v1-ixgbevf.stream"
	expect_err "$v/$cmd a stream of format 1" 1 \
		'v1-ixgbevf.stream: stream: unsupported format version at offset 4 \(format 1, this build reads 2\)$'
	run "$cli" stream $cmd "$S/garbage.bin"
	expect_err "$v/$cmd garbage" 1 'stream: bad magic, not a CompSC migration stream at offset 0$'
	run "$cli" stream $cmd "$S/empty.bin"
	expect_err "$v/$cmd empty" 1 'empty.bin: stream: truncated at offset 0$'
	run "$cli" stream $cmd "$S/good.stream" --max-len 256
	expect_err "$v/$cmd oversize" 1 'stream: larger than allowed at offset 8$'
	run "$cli" stream $cmd "$S/no-such-file"
	expect_err "$v/$cmd nonexistent" 2 'no-such-file: No such file or directory$'
	run "$cli" stream $cmd "$S"
	expect_err "$v/$cmd directory" 2 'Is a directory$'
	run "$cli" stream $cmd
	expect_err "$v/$cmd no file" 2 'missing FILE'
	run "$cli" stream $cmd "$S/good.stream" --expect 8086
	expect_err "$v/$cmd bad --expect" 2 '--expect wants'
done
run "$cli" stream validate "$S/good.stream" --json
expect_err "$v/validate --json refused" 2 "unknown option '--json'"
run "$cli" stream frob
expect_err "$v/stream unknown subcommand" 2 "unknown subcommand 'frob'"
run "$cli" frob
expect_err "$v/unknown command" 2 "unknown command 'frob'"
run "$cli"
expect_err "$v/no command" 2 'missing command'

# Large hostile inputs (the generator's --large set, too big to commit).
L=$tmp/large
[ -d "$L" ] || { mkdir -p "$L" && "$gen" --large "$L"; } || bad "$v/large inputs" "generator failed"

# A repeated key is found wherever it is: the second record of 65,535,
# the middle one, the last one.
for d in first:1 middle:32768 last:65534; do
	run "$cli" stream decode "$L/dup-${d%%:*}.stream"
	expect_ok "$v/decode 65,535 records, key repeated at the ${d%%:*}: refused as a log" \
		"^ +opaque \\(replay log: key recorded twice \\(record ${d#*:}\\)\\), first 64 bytes:$"
done
run "$cli" stream decode "$L/dup-middle.stream" --json
python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["records"][0]
assert r["replay"] is None
assert r["replay_error"] == "replay log: key recorded twice (record 32768)"' "$tmp/out" &&
	ok "$v/decode --json repeated key: replay_error names the record" ||
	bad "$v/decode --json repeated key" "exit $rc or JSON check failed"

# Memory follows what the input holds, not what it claims: under a limit
# far below what allocating by the claimed length took (437 MB for the
# 16 MiB stream, 200 MB for the 65,535-record log), the CLI still judges
# both. ASan reserves terabytes of address space: plain build only.
if [ "$v" = plain ]; then
	run bash -c 'ulimit -v 131072 && exec "$@"' sh "$cli" stream decode "$L/huge-driver.stream"
	expect_ok "$v/decode 16 MiB DRIVER under ulimit -v 128 MiB" \
		'^total_len +16777216 bytes$' \
		'^ +opaque \(replay log: checksum mismatch \(corrupt\)\), first 64 bytes:$'
	lim='ulimit -v 131072 && exec "$@"' under=' under ulimit -v 128 MiB'
else
	lim='exec "$@"' under=
fi
run bash -c "$lim" sh "$cli" stream decode "$L/many-keys.stream"
expect_ok "$v/decode a 65,535-record replay log$under" \
	'^ +replay log \(packed\): 65535 records$' \
	'^ +65534 +0x0001fffe +65535 +112 +fefefefe '

# Every single-byte change of a good stream: refused or accepted, never a crash.
python3 - "$S/good.stream" "$tmp/mut" <<'PY'
import os, sys
data = open(sys.argv[1], "rb").read()
os.makedirs(sys.argv[2], exist_ok=True)
for i in range(0, len(data), 7):
    b = bytearray(data); b[i] ^= 0xff
    open(f"{sys.argv[2]}/{i}", "wb").write(b)
for n in range(0, len(data), 61):
    open(f"{sys.argv[2]}/cut{n}", "wb").write(data[:n])
PY
mfail=
for f in "$tmp"/mut/*; do
	run "$cli" stream decode "$f" --json
	if [ "$rc" -gt 1 ] || [ "$(wc -l <"$tmp/err")" -gt 1 ]; then
		mfail="$(basename "$f"): exit $rc $(head -c 200 "$tmp/err")"
		break
	fi
done
[ -z "$mfail" ] && ok "$v/mutated streams: exit 0/1, at most one error line" ||
	bad "$v/mutated streams" "$mfail"
rm -rf "$tmp/mut"
