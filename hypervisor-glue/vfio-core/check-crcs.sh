#!/bin/sh
# usage: check-crcs.sh DEBIAN_SYMVERS REBUILT_SYMVERS
# Debian's vfio_iommu_type1, vfio-pci-core and vfio-pci load on top of the
# rebuilt vfio.ko only if every symbol Debian's vfio.ko exports comes back
# with the same CRC (modversions). The headers' Module.symvers holds
# Debian's. Prints each mismatch and fails on any. A kernel built without
# MODVERSIONS (the nested bench's debug L1) records every CRC as 0: then
# there is nothing to compare, only that every export is still there,
# and the message says so rather than claiming a match.
set -eu
awk 'NR == FNR { if ($3 == "drivers/vfio/vfio") want[$2] = $1; next }
     { got[$2] = $1 }
     END {
	for (s in want) {
		n++
		if (want[s] !~ /^0x0+$/)
			crcs++
		if ((s in got) && got[s] == want[s])
			continue
		printf "check-crcs: %s: Debian %s, rebuilt %s\n", s, want[s],
		       (s in got) ? got[s] : "none"
		bad++
	}
	if (!n)
		print "check-crcs: no vfio.ko exports in the Debian symvers"
	else if (!bad && !crcs)
		printf "check-crcs: no CRCs to compare (built without MODVERSIONS); all %d vfio.ko exports present\n", n
	else if (!bad)
		printf "check-crcs: all %d vfio.ko exports match Debian\n", n
	exit !n || bad
     }' "$1" "$2"
