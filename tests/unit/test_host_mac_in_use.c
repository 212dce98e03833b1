// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * The destination's rule on the MAC a stream brings for its VF
 * (compsc_host_mac_in_use()): another VF of the PF with that MAC refuses
 * the state, unless this host is migrating that VF's guest away (one PF,
 * VF to VF); the destination VF's own MAC, a VF with none and a stream
 * without a MAC never clash.
 */
#include <string.h>
#include "check.h"
#include <compsc/compsc.h>
#include <compsc/host.h>

static const u8 guest[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
static const u8 other[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x91 };

static struct compsc_host_pf pf;
static struct compsc_host_vf_mac vfs[4];

/* VF i has MAC @macs[i] (NULL: none), none of them migrating away. */
static void pf_with(const u8 *const macs[4])
{
	u32 i;

	memset(vfs, 0, sizeof(vfs));
	for (i = 0; i < 4; i++) {
		vfs[i].vf = i;
		if (macs[i])
			memcpy(vfs[i].mac, macs[i], 6);
	}
}

int main(void)
{
	const u8 *const free_pf[4] = { other, NULL, NULL, NULL };
	const u8 *const taken[4] = { other, NULL, guest, NULL };
	const u8 *const own[4] = { guest, NULL, NULL, NULL };
	const u8 *const both[4] = { guest, NULL, guest, NULL };

	memset(&pf, 0, sizeof(pf));
	memcpy(pf.st.mac, guest, 6);
	pf.has_st = true;

	/* no other VF has the guest's MAC */
	pf_with(free_pf);
	CHECK_EQ(compsc_host_mac_in_use(&pf, 0, vfs, 4), -1);

	/* VF 2 has it: refused, and the answer names VF 2 */
	pf_with(taken);
	CHECK_EQ(compsc_host_mac_in_use(&pf, 0, vfs, 4), 2);
	CHECK_EQ(compsc_host_mac_in_use(&pf, 1, vfs, 4), 2);

	/* the destination VF itself has it (given ahead of the guest) */
	CHECK_EQ(compsc_host_mac_in_use(&pf, 2, vfs, 4), -1);
	pf_with(own);
	CHECK_EQ(compsc_host_mac_in_use(&pf, 0, vfs, 4), -1);

	/* VF 2 is the source of this host's migration (one PF, VF to VF) */
	pf_with(taken);
	vfs[2].migrating_out = true;
	CHECK_EQ(compsc_host_mac_in_use(&pf, 0, vfs, 4), -1);

	/* a migrating VF exempts itself only: VF 0 has the MAC too */
	pf_with(both);
	vfs[2].migrating_out = true;
	CHECK_EQ(compsc_host_mac_in_use(&pf, 1, vfs, 4), 0);
	vfs[0].migrating_out = true;
	CHECK_EQ(compsc_host_mac_in_use(&pf, 1, vfs, 4), -1);

	/* a stream without a MAC for the VF, or without a PF section */
	pf_with(taken);
	memset(pf.st.mac, 0, 6);
	CHECK_EQ(compsc_host_mac_in_use(&pf, 0, vfs, 4), -1);
	memcpy(pf.st.mac, guest, 6);
	pf.has_st = false;
	CHECK_EQ(compsc_host_mac_in_use(&pf, 0, vfs, 4), -1);
	CHECK_DONE();
}
