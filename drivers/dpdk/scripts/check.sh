#!/usr/bin/env bash
# The PMD's checks that need no device, on the tree `make dpdk` built:
#   1. the built e1000 driver carries the series (libcompsc and the glue)
#   2. tests/dpdk/test_igb_compsc.c, linked with that DPDK, under a real
#      EAL without hugepages or PCI (root: EAL wants it here)
#   3. with CHECKPATCH=path/to/checkpatch.pl, DPDK's own
#      devtools/checkpatches.sh on every patch of the series
#
# usage: check.sh OUT SERIES LIBCOMPSC_A
#   OUT as for build.sh; LIBCOMPSC_A the userspace libcompsc (the test's
#   host side: compsc_area_check() is not in the PMD)
set -euo pipefail

OUT=$1 SERIES=$2 LIBA=$3
TOP=$(cd "$(dirname "$0")/../../.." && pwd)
SRC=$OUT/src B=$OUT/build
E1000=$SRC/drivers/net/e1000

# (nm into a variable: grep -q closing the pipe early would fail pipefail)
syms=$(nm "$B/drivers/librte_net_e1000.a")
grep -q ' T igb_compsc_create$' <<<"$syms" || {
	echo "dpdk-check: librte_net_e1000.a has no igb_compsc_create: series not built" >&2
	exit 1; }
grep -q ' T compsc_uvf_register$' <<<"$syms" || {
	echo "dpdk-check: librte_net_e1000.a has no libcompsc" >&2; exit 1; }
echo "dpdk-check: librte_net_e1000.a carries libcompsc and the CompSC glue"

export PKG_CONFIG_PATH=$B/meson-uninstalled
T=$OUT/test_igb_compsc
# two units: the fake port includes the e1000 base code, the test
# libcompsc, whose u32/u64 differ (as igb_compsc.c keeps them apart)
# shellcheck disable=SC2046
cc -O1 -g -Wall -Wextra -Werror $(pkg-config --cflags libdpdk) \
	-I"$E1000" -I"$SRC/lib/ethdev" -I"$TOP/tests/dpdk" \
	-c "$TOP/tests/dpdk/igb_fake_port.c" -o "$T.port.o"
# shellcheck disable=SC2046
cc -O1 -g -Wall -Wextra -Werror $(pkg-config --cflags libdpdk) \
	-I"$E1000" -I"$E1000/compsc/include" -I"$SRC/lib/ethdev" \
	"$TOP/tests/dpdk/test_igb_compsc.c" "$T.port.o" -o "$T" \
	$(pkg-config --static --libs libdpdk) "$LIBA"
# bounded: a test that hangs (a restore that never comes) fails instead
timeout 300 "$T"

if [ -z "${CHECKPATCH:-}" ]; then
	echo "dpdk-check: style not checked (set CHECKPATCH=.../checkpatch.pl)"
elif ! command -v gawk >/dev/null; then
	# its forbidden-token scripts need GNU awk; mawk rejects their patterns
	echo "dpdk-check: style not checked: DPDK's checkpatches.sh needs gawk" >&2
	exit 1
else
	# DPDK's script, from its tree, with the kernel's checkpatch.pl; no
	# codespell unless asked for (DPDK_CHECKPATCH_CODESPELL=path)
	(cd "$SRC" && DPDK_CHECKPATCH_PATH=$CHECKPATCH \
		DPDK_CHECKPATCH_CODESPELL=${DPDK_CHECKPATCH_CODESPELL:-disable} \
		devtools/checkpatches.sh "$SERIES"/*.patch)
fi
