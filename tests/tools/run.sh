#!/usr/bin/env bash
# CLI tests: run each compsc build on the committed samples and on hostile
# variants. One line per check; ends with "tools: N passed, N failed".
#
# usage: run.sh GEN_SAMPLES SAMPLES_DIR COMPSC [COMPSC...]
set -u
gen=$1 samples=$2
shift 2
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok()  { pass=$((pass + 1)); printf 'PASS %s\n' "$1"; }
bad() { fail=$((fail + 1)); printf 'FAIL %s: %s\n' "$1" "$2"; }

# run NAME CMD...: stdout -> $tmp/out, stderr -> $tmp/err, exit code -> $rc
run() {
	timeout 30 "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# expect_ok NAME REGEX...: rc 0, empty stderr, stdout matches every regex
expect_ok() {
	local name=$1 re
	shift
	[ "$rc" -eq 0 ] || { bad "$name" "exit $rc: $(head -c 300 "$tmp/err")"; return; }
	[ -s "$tmp/err" ] && { bad "$name" "stderr: $(head -c 300 "$tmp/err")"; return; }
	for re in "$@"; do
		grep -qE -- "$re" "$tmp/out" || { bad "$name" "no match for '$re'"; return; }
	done
	ok "$name"
}

# expect_err NAME RC REGEX: exit RC, exactly one stderr line "compsc: ..." matching REGEX
expect_err() {
	local name=$1 want=$2 re=$3 lines
	lines=$(wc -l <"$tmp/err")
	if [ "$rc" -ne "$want" ]; then
		bad "$name" "exit $rc, want $want: $(head -c 300 "$tmp/err")"
	elif [ "$lines" -ne 1 ]; then
		bad "$name" "$lines stderr lines: $(head -c 300 "$tmp/err")"
	elif ! grep -qE -- "^compsc: .*$re" "$tmp/err"; then
		bad "$name" "stderr '$(cat "$tmp/err")' does not match '$re'"
	else
		ok "$name"
	fi
}

# The committed samples are what the library's writer produces today.
check_samples() {
	local f
	mkdir -p "$tmp/gen"
	"$gen" "$tmp/gen" || { bad samples "generator failed"; return; }
	for f in "$tmp"/gen/*; do
		cmp -s "$f" "$samples/$(basename "$f")" ||
			{ bad samples "$(basename "$f") differs: make tools-samples"; return; }
	done
	ok "samples: committed samples match gen_samples"
}

# A sanitizer report is more than one stderr line; make its exit code stand out too.
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=99} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
here=$(dirname "$0")
check_samples
for cli in "$@"; do
	v=$(basename "$(dirname "$cli")")
	[ "$v" = san ] || v=plain
	for t in "$here"/t_*.sh; do
		# shellcheck source=/dev/null
		. "$t"
	done
done
echo "tools: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
