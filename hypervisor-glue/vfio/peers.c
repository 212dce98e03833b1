// SPDX-License-Identifier: GPL-2.0
/*
 * The other VFs of a destination VF's PF, the facts libcompsc's rule on a
 * MAC already in use needs (compsc_host_mac_in_use()): the MAC the PF
 * gives each VF (the PF's netdev, ndo_get_vf_config, under RTNL) and
 * whether this driver is migrating that VF's guest away (mig_source).
 * The rule itself is libcompsc's: this file only gathers and reports.
 */
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/pci.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include "compsc_vfio.h"

/* cvf_peers_lock protects cvf_peers: every device of this driver */
static DEFINE_MUTEX(cvf_peers_lock);
static LIST_HEAD(cvf_peers);

/* @cvf's mig_source is read by the other VFs' loads from now on. */
void cvf_peer_add(struct cvf_dev *cvf)
{
	mutex_lock(&cvf_peers_lock);
	list_add(&cvf->peer, &cvf_peers);
	mutex_unlock(&cvf_peers_lock);
}

/* ... and no longer: the device is about to be freed. */
void cvf_peer_del(struct cvf_dev *cvf)
{
	mutex_lock(&cvf_peers_lock);
	list_del(&cvf->peer);
	mutex_unlock(&cvf_peers_lock);
}

/* The PF's netdev that answers for its VFs; RTNL held. */
static struct net_device *cvf_pf_netdev(struct pci_dev *pf)
{
	struct net_device *nd;

	ASSERT_RTNL();
	for_each_netdev(&init_net, nd)
		if (nd->dev.parent == &pf->dev &&
		    nd->netdev_ops->ndo_get_vf_config)
			return nd;
	return NULL;
}

/* Each VF's MAC as the PF's netdev reports it; -ENODEV: no such netdev. */
static int cvf_peer_macs(struct pci_dev *pf, struct compsc_host_vf_mac *vfs,
			 int n)
{
	struct net_device *nd;
	struct ifla_vf_info ivi;
	int i, err = 0;

	rtnl_lock();
	nd = cvf_pf_netdev(pf);
	for (i = 0; nd && !err && i < n; i++) {
		memset(&ivi, 0, sizeof(ivi));
		err = nd->netdev_ops->ndo_get_vf_config(nd, i, &ivi);
		vfs[i].vf = i;
		memcpy(vfs[i].mac, ivi.mac, sizeof(vfs[i].mac));
	}
	rtnl_unlock();
	return nd ? err : -ENODEV;
}

/* Mark the VFs of @pf whose guest this driver is migrating away. */
static void cvf_peer_sources(struct pci_dev *pf, struct compsc_host_vf_mac *vfs,
			     int n)
{
	struct cvf_dev *p;
	int id;

	mutex_lock(&cvf_peers_lock);
	list_for_each_entry(p, &cvf_peers, peer) {
		if (pci_physfn(cvf_pdev(p)) != pf)
			continue;
		id = pci_iov_vf_id(cvf_pdev(p));
		if (id >= 0 && id < n)
			vfs[id].migrating_out = READ_ONCE(p->mig_source);
	}
	mutex_unlock(&cvf_peers_lock);
}

/*
 * Refuse the state, saying why, when libcompsc's rule finds the MAC it
 * brings in use by another VF of the PF. Facts this host cannot gather
 * (no netdev of the PF answers for its VFs) refuse nothing: the PF's own
 * check decides then, as it did before this rule.
 */
static int cvf_mac_judge(struct pci_dev *vfdev, const struct compsc_host_pf *p)
{
	struct pci_dev *pf = pci_physfn(vfdev);
	int n = pci_num_vf(pf), self = pci_iov_vf_id(vfdev), hit, err;
	struct compsc_host_vf_mac *vfs;

	if (!vfdev->is_virtfn || self < 0 || n <= 0)
		return 0;
	vfs = kcalloc(n, sizeof(*vfs), GFP_KERNEL);
	if (!vfs)
		return -ENOMEM;
	err = cvf_peer_macs(pf, vfs, n);
	if (err) {
		pci_warn(vfdev, "the other VFs' MACs cannot be read (%d): not checked for a clash\n",
			 err);
		kfree(vfs);
		return 0;
	}
	cvf_peer_sources(pf, vfs, n);
	hit = compsc_host_mac_in_use(p, self, vfs, n);
	if (hit >= 0) {
		pci_err(vfdev, "CompSC state refused: MAC %pM already in use by VF %u\n",
			p->st.mac, vfs[hit].vf);
		err = -EADDRINUSE;
	}
	kfree(vfs);
	return err;
}

/**
 * cvf_mac_check() - destination: may the VF take the MAC the PF section
 * of @v brings, with the other VFs of its PF as they are now?
 * @cvf: the destination device; state_mutex held
 * @v: a stream (pre-copy or complete) that passed its checks
 *
 * Return: 0, -EADDRINUSE (refused, said once in the log) or -errno.
 */
int cvf_mac_check(struct cvf_dev *cvf, const struct compsc_stream_view *v)
{
	struct compsc_host_pf *p;
	int err;

	lockdep_assert_held(&cvf->state_mutex);
	p = kmalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	err = compsc_host_pf_sections(v, p) ? -EINVAL : 0;
	if (!err && p->has_st)
		err = cvf_mac_judge(cvf_pdev(cvf), p);
	kfree(p);
	return err;
}
