#!/usr/bin/env bash
# Run unit test programs; each is one behaviour and exits 0 on success.
# Prints one line per program and ends with "N passed, N failed".
set -u
pass=0 fail=0
for t in "$@"; do
	variant=$(basename "$(dirname "$(dirname "$t")")")
	name="$variant/$(basename "$t")"
	out=$(timeout 300 "$t" 2>&1)
	rc=$?
	if [ $rc -eq 0 ]; then
		pass=$((pass + 1))
		printf 'PASS %s\n' "$name"
	else
		fail=$((fail + 1))
		printf 'FAIL %s (exit %d)\n%s\n' "$name" "$rc" "$out" | sed 's/^/  /'
	fi
done
echo "unit: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
