/* Model lookup by PCI ID: 82576 and 82599 VFs found, within the maxima (the registry holds every VF's area); any other refused. */
#include <compsc/dev_82576vf.h>
#include <compsc/dev_82599vf.h>
#include "check.h"

/* A host sizes its arrays by the maxima; a model must fit them. */
static void fits(const struct compsc_devmodel *dm)
{
	CHECK(dm->nr_qctl <= COMPSC_HOST_MAX_QCTL);
	CHECK(dm->nr_stats <= COMPSC_HOST_MAX_STATS);
	CHECK(dm->nr_rings <= COMPSC_HOST_MAX_RINGS);
	CHECK(dm->nr_pf_vflre >= 1);
	CHECK(dm->pf_vlans >= 1);
	/* the registry has room for every VF the PF enables ... */
	CHECK(dm->pf_max_vfs >= 1 && dm->pf_max_vfs <= COMPSC_PF_MAX_VFS);
	/* ... and the PF reports each one's reset */
	CHECK(dm->pf_max_vfs <= 32 * dm->nr_pf_vflre);
	CHECK(dm->rx0_base == dm->ring_base[0]);	/* RX queue 0 leads */
}

int main(void)
{
	const struct compsc_devmodel *dm;

	dm = compsc_devmodel_find(0x8086, 0x10ca);
	CHECK(dm == &compsc_82576vf_model);
	fits(dm);
	CHECK_EQ(dm->pf_vflre[0], 0x0c88u);
	CHECK_EQ(dm->pf_vlans, 31u);
	CHECK_EQ(dm->pf_max_vfs, 7u);

	dm = compsc_devmodel_find(0x8086, 0x10ed);
	CHECK(dm == &compsc_82599vf_model);
	fits(dm);
	CHECK_EQ(dm->nr_rings, 16u);
	CHECK_EQ(dm->pf_vflre[0], 0x0600u);	/* VFs 0..31 */
	CHECK_EQ(dm->pf_vflre[1], 0x01c0u);	/* VFs 32..63 */
	CHECK_EQ(dm->pf_vlans, 63u);
	CHECK_EQ(dm->pf_max_vfs, 63u);
	CHECK_EQ(dm->rx0_head, 0x1010u);
	CHECK_EQ(dm->rx0_tail, 0x1018u);

	/* another Intel VF (X540, 82576's PF), another vendor, nothing */
	CHECK(!compsc_devmodel_find(0x8086, 0x1515));
	CHECK(!compsc_devmodel_find(0x8086, 0x10c9));
	CHECK(!compsc_devmodel_find(0x15b3, 0x10ca));
	CHECK(!compsc_devmodel_find(0, 0));
	CHECK(!compsc_devmodel_find(0xffff, 0xffff));
	CHECK_DONE();
}
