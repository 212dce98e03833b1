# devices: the SR-IOV listing on this machine, checked against sysfs (the
# kernel publishes sriov_totalvfs for every function with the capability),
# and the refusal without root. Sourced by run.sh with $cli and $v set.

run "$cli" devices --help
expect_ok "$v/devices help" 'compsc devices \[--json\]' 'Needs root' 'Exit: 0 listed'

run "$cli" devices --bogus
expect_err "$v/devices bad argument" 2 "devices: unknown argument '--bogus'"

# What the kernel says: every PF, sorted like the CLI prints them.
sysfs_pfs=$(for f in /sys/bus/pci/devices/*/sriov_totalvfs; do
	[ -e "$f" ] && basename "$(dirname "$f")"; done | LC_ALL=C sort)
sysfs_fns=$(ls /sys/bus/pci/devices | wc -l)

if [ "$(id -u)" -eq 0 ]; then
	run "$cli" devices
	if [ -z "$sysfs_pfs" ]; then
		expect_ok "$v/devices none found" \
			"^no SR-IOV physical functions found \($sysfs_fns PCI functions? scanned\)\$"
	else
		# shellcheck disable=SC2046
		expect_ok "$v/devices lists the PFs sysfs has" \
			$(for p in $sysfs_pfs; do printf '^PF %s ' "$p"; done)
	fi

	run "$cli" devices --json
	if [ "$rc" -eq 0 ] && [ ! -s "$tmp/err" ] && python3 - "$tmp/out" "$sysfs_fns" $sysfs_pfs <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert set(d) == {"pci_functions", "pfs", "areas_error"}, d
assert d["pci_functions"] == int(sys.argv[2]), d
assert [p["bdf"] for p in d["pfs"]] == sys.argv[3:], d
for p in d["pfs"]:
    s = p["sriov"]
    assert s["num_vfs"] <= s["total_vfs"] and len(p["vfs"]) == s["num_vfs"], p
    total = open(f"/sys/bus/pci/devices/{p['bdf']}/sriov_totalvfs").read()
    assert s["total_vfs"] == int(total), (p, total)
PY
	then ok "$v/devices --json matches sysfs"
	else bad "$v/devices --json matches sysfs" "rc $rc: $(head -c 300 "$tmp/err")"
	fi

	# nobody may not reach the build tree (a clone under /root): a copy
	mkdir -p "$tmp/nobody" && chmod 755 "$tmp" "$tmp/nobody" &&
		cp "$cli" "$tmp/nobody/compsc"
	run setpriv --reuid=nobody --regid=nogroup --clear-groups "$tmp/nobody/compsc" devices
	expect_err "$v/devices as nobody" 2 'devices: PCI config space beyond 64 bytes is readable by root only.*run as root'
	run setpriv --reuid=nobody --regid=nogroup --clear-groups "$tmp/nobody/compsc" devices --json
	expect_err "$v/devices --json as nobody" 2 'readable by root only'
else
	run "$cli" devices
	expect_err "$v/devices without root" 2 'readable by root only.*run as root'
fi
