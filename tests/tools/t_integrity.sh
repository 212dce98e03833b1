# integrity: the patterned UDP stream on loopback, clean and spoiled on
# purpose; the receiver must count exactly what the sender spoiled.
# Sourced by run.sh with $cli and $v set.

run "$cli" integrity --help
expect_ok "$v/integrity help" 'compsc integrity send ADDR PORT' \
	'integrity: blocks=B corrupt=C stale=S dup=D missing=M'

run "$cli" integrity send 127.0.0.1 9 --size 20
expect_err "$v/integrity bad size" 2 "integrity: bad --size '20'"
run "$cli" integrity send 127.0.0.1 9 --inject twice:5
expect_err "$v/integrity bad inject" 2 "integrity: bad --inject 'twice:5'"
run "$cli" integrity recv 0
expect_err "$v/integrity bad port" 2 "integrity recv: PORT"

# integ_case NAME INJECT PATTERN RC: 1000 datagrams at 2000/s over loopback
integ_case() {
	local name=$1 inject=$2 re=$3 want=$4 port=$((20000 + RANDOM % 20000))
	timeout 30 "$cli" integrity recv "$port" --idle 1 --seconds 20 \
		>"$tmp/recv" 2>"$tmp/recv.err" &
	local pid=$!
	sleep 0.5
	timeout 30 "$cli" integrity send 127.0.0.1 "$port" --rate 2000 \
		--seconds 0.5 $inject >"$tmp/send" 2>&1
	wait "$pid"
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		bad "$name" "receiver exit $rc, want $want: $(cat "$tmp/recv" "$tmp/recv.err")"
	elif ! grep -qE -- "$re" "$tmp/recv"; then
		bad "$name" "'$(cat "$tmp/recv")' does not match '$re'"
	else
		ok "$name"
	fi
}
integ_case "$v/integrity clean" "" \
	'^integrity: blocks=1000 corrupt=0 stale=0 dup=0 missing=0 last_seq=1000$' 0
integ_case "$v/integrity duplicates seen" "--inject dup:50" \
	'^integrity: blocks=1000 corrupt=0 stale=0 dup=20 missing=0 ' 1
integ_case "$v/integrity stale words seen" "--inject stale:50" \
	'^integrity: blocks=980 corrupt=0 stale=20 dup=0 ' 1
integ_case "$v/integrity corruption seen" "--inject corrupt:50" \
	'^integrity: blocks=980 corrupt=20 stale=0 dup=0 ' 1

# --progress: the line while receiving too, then the final one
port=$((20000 + RANDOM % 20000))
timeout 30 "$cli" integrity recv "$port" --idle 1 --seconds 20 --progress 0.2 \
	>"$tmp/recv" 2>"$tmp/recv.err" &
pid=$!
sleep 0.5
timeout 30 "$cli" integrity send 127.0.0.1 "$port" --rate 1000 --seconds 1 >"$tmp/send" 2>&1
wait "$pid"
rc=$?
lines=$(grep -c '^integrity: blocks=[0-9]* corrupt=0 stale=0 dup=0 ' "$tmp/recv")
if [ "$rc" -ne 0 ] || [ "$lines" -lt 4 ] ||
   ! tail -1 "$tmp/recv" | grep -q '^integrity: blocks=1000 corrupt=0 stale=0 dup=0 missing=0 '; then
	bad "$v/integrity progress" "exit $rc, $lines lines: $(cat "$tmp/recv" "$tmp/recv.err")"
else
	ok "$v/integrity progress"
fi
run "$cli" integrity recv 9 --progress 0
expect_err "$v/integrity bad progress" 2 "integrity: bad --progress '0'"

# --hold: the port bound at once, nothing read until the file exists: the
# datagrams wait in the socket's queue (/proc/net/udp's rx_queue, bytes),
# the receiver prints nothing and outlives its --idle, then reads every one.
port=$((20000 + RANDOM % 20000))
timeout 30 "$cli" integrity recv "$port" --idle 1 --seconds 20 --hold "$tmp/go" \
	--rcvbuf 131072 >"$tmp/recv" 2>"$tmp/recv.err" &
pid=$!
sleep 0.5
timeout 30 "$cli" integrity send 127.0.0.1 "$port" --rate 2000 --seconds 0.05 >"$tmp/send" 2>&1
sleep 2
queued=0
while read -r _ local _ _ txrx _; do
	[ "$local" != "00000000:$(printf '%04X' "$port")" ] || queued=$((0x${txrx#*:}))
done </proc/net/udp
early=$(wc -c <"$tmp/recv")
alive=no
kill -0 "$pid" 2>/dev/null && alive=yes
touch "$tmp/go"
wait "$pid"
rc=$?
n=$(sed -n 's/^sent=\([0-9]*\) .*/\1/p' "$tmp/send")
if [ "$alive" != yes ] || [ "$early" -ne 0 ] || [ "$queued" -eq 0 ] || [ "$rc" -ne 0 ] ||
   ! grep -q "^integrity: blocks=${n:-x} corrupt=0 stale=0 dup=0 missing=0 last_seq=${n:-x}\$" "$tmp/recv"; then
	bad "$v/integrity hold" "alive=$alive early=$early queued=$queued exit $rc: $(cat "$tmp/recv" "$tmp/recv.err")"
else
	ok "$v/integrity hold"
fi
rm -f "$tmp/go"
run "$cli" integrity recv 9 --hold "$tmp/send/x"
expect_err "$v/integrity hold not a directory" 2 "integrity: --hold .*/send/x: Not a directory"
run "$cli" integrity recv 9 --hold=
expect_err "$v/integrity bad hold" 2 "integrity: bad --hold ''"
run "$cli" integrity recv 9 --rcvbuf 100
expect_err "$v/integrity bad rcvbuf" 2 "integrity: bad --rcvbuf '100'"
# the kernel doubles SO_RCVBUF into an int, at most INT_MAX: 1 GiB is
# never granted, not even to root (SO_RCVBUFFORCE)
run "$cli" integrity recv 9 --rcvbuf 1073741824
expect_err "$v/integrity rcvbuf not granted" 2 \
	"integrity: --rcvbuf 1073741824: the kernel granted [0-9]+ bytes"
