/*
 * A span the VF writes (the area, a ring) counts as logged only if the DMA
 * log's ranges hold every byte of it: inside one range, across touching
 * ranges, never across a gap, past either end or wrapping the address
 * space. A vIOMMU case: ranges that track just 256 MiB of guest RAM, an
 * area announced at an IOVA near 4 GiB.
 */
#include <compsc/compsc.h>
#include <compsc/host.h>
#include "check.h"

#define MIB (1ull << 20)

int main(void)
{
	/* what QEMU asks for a 256 MiB q35 guest: RAM below 4 GiB, one range */
	const struct compsc_range ram[] = { { 0, 256 * MIB - 1 } };
	const struct compsc_range split[] = {
		{ 0x2000, 0x2fff }, { 0x1000, 0x1fff }, { 0x4000, 0x4fff },
	};
	const struct compsc_range all[] = { { 0, ~0ull } };

	CHECK_EQ(compsc_host_log_covers(ram, 1, 0x7f3e000, 8192), 0);
	CHECK_EQ(compsc_host_log_covers(ram, 1, 256 * MIB - 4096, 4096), 0);
	CHECK_EQ(compsc_host_log_covers(ram, 1, 256 * MIB - 4096, 4097),
		 -COMPSC_EUNLOGGED);
	/* an IOVA the L2's intel-iommu handed out: outside guest RAM */
	CHECK_EQ(compsc_host_log_covers(ram, 1, 0xffffe000, 8192),
		 -COMPSC_EUNLOGGED);
	CHECK_EQ(compsc_host_log_covers(ram, 0, 0x1000, 1), -COMPSC_EUNLOGGED);
	CHECK_EQ(compsc_host_log_covers(ram, 0, 0x1000, 0), 0);

	/* touching ranges, in any order, cover a span across them */
	CHECK_EQ(compsc_host_log_covers(split, 3, 0x1800, 0x1000), 0);
	CHECK_EQ(compsc_host_log_covers(split, 3, 0x1000, 0x2000), 0);
	/* a gap (0x3000-0x3fff) does not */
	CHECK_EQ(compsc_host_log_covers(split, 3, 0x2800, 0x2000),
		 -COMPSC_EUNLOGGED);
	CHECK_EQ(compsc_host_log_covers(split, 3, 0x0fff, 2), -COMPSC_EUNLOGGED);
	CHECK_EQ(compsc_host_log_covers(split, 3, 0x4fff, 2), -COMPSC_EUNLOGGED);

	/* the whole address space, and a span that would wrap it */
	CHECK_EQ(compsc_host_log_covers(all, 1, ~0ull - 4095, 4096), 0);
	CHECK_EQ(compsc_host_log_covers(all, 1, ~0ull - 4095, 4097),
		 -COMPSC_EUNLOGGED);
	CHECK_EQ(compsc_errno(-COMPSC_EUNLOGGED), -95 /* EOPNOTSUPP */);
	CHECK_DONE();
}
