// SPDX-License-Identifier: GPL-2.0
/*
 * Host side of a migration shared by the VFIO variant driver and the bench
 * stand-in (see compsc/host.h): one implementation of what a hypervisor
 * does with the guest's area, whatever moves the stream.
 */
#include <linux/io.h>
#include <linux/module.h>
#include <linux/string.h>
#include <compsc/host.h>
#include <compsc/kernel.h>

/**
 * compsc_host_lists_get() - copy and check the area's lists
 * @va: the area; @size: its size; @hdr: its checked header copy
 * @p: the device's register policy
 * @l: filled with the checked copies
 * @bad: the refused entry, or U32_MAX
 *
 * Return: 0 or -COMPSC_E* (the guest changed its header meanwhile:
 * -COMPSC_EAREA_LAYOUT).
 */
int compsc_host_lists_get(const void *va, u32 size,
			  const struct compsc_area_hdr *hdr,
			  const struct compsc_policy *p,
			  struct compsc_host_lists *l, u32 *bad)
{
	int n;

	*bad = U32_MAX;
	n = compsc_area_snapshot_regs(va, size, p, l->regs, COMPSC_MAX_REGS,
				      bad);
	if (n < 0)
		return n;
	l->nr_regs = n;
	n = compsc_area_snapshot_counters(va, size, p, l->ctrs,
					  COMPSC_MAX_COUNTERS, bad);
	if (n < 0)
		return n;
	l->nr_ctrs = n;
	/* the snapshot read the live header: it must fit the checked copy */
	if (l->nr_regs > le16_to_cpu(hdr->reg_max) ||
	    l->nr_ctrs > le16_to_cpu(hdr->counter_max))
		return -COMPSC_EAREA_LAYOUT;
	return 0;
}
EXPORT_SYMBOL_GPL(compsc_host_lists_get);

static u32 compsc_host_reg(void __iomem *bar,
			   const struct compsc_host_override *ovr, u32 off)
{
	u32 i;

	for (i = 0; ovr && i < ovr->nr; i++)
		if (off == ovr->offset[i])
			return ovr->value[i];
	return readl(bar + off);
}

/**
 * compsc_host_read_state() - the listed registers and counters, as records
 * @va: the area; @hdr: its checked header copy; @l: its checked lists
 * @bar: the VF's register BAR, device held by the host
 * @ovr: registers to report from saved values instead (may be NULL)
 * @regs: @l->nr_regs records out; @ctrs: @l->nr_ctrs records out
 */
void compsc_host_read_state(void *va, const struct compsc_area_hdr *hdr,
			    const struct compsc_host_lists *l,
			    void __iomem *bar,
			    const struct compsc_host_override *ovr,
			    struct compsc_rec_reg *regs,
			    struct compsc_rec_counter *ctrs)
{
	struct compsc_counter_desc *live = compsc_host_sec(va, hdr->counter_off);
	u32 i, off;

	for (i = 0; i < l->nr_regs; i++) {
		off = le32_to_cpu(l->regs[i].offset);
		memcpy(&regs[i], &l->regs[i], sizeof(l->regs[i]));
		regs[i].value = cpu_to_le64(compsc_host_reg(bar, ovr, off));
	}
	for (i = 0; i < l->nr_ctrs; i++) {
		off = le32_to_cpu(l->ctrs[i].offset);
		memcpy(&ctrs[i], &l->ctrs[i], sizeof(struct compsc_reg));
		ctrs[i].rsvd = 0;
		ctrs[i].hw_final = cpu_to_le32(readl(bar + off));
		ctrs[i].total = READ_ONCE(live[i].total);
	}
}
EXPORT_SYMBOL_GPL(compsc_host_read_state);

/**
 * compsc_host_pack_replay() - the replay log, packed for the stream
 * @va: the area; @hdr: its checked header copy
 * @out: hdr->replay_len bytes for the packed log
 * @scratch: hdr->replay_len bytes: the guest may rewrite its log at any
 *	moment, so it is copied here and checked on the copy
 *
 * Return: the packed length (0: the driver never formatted a log) or
 * -COMPSC_E*.
 */
int compsc_host_pack_replay(void *va, const struct compsc_area_hdr *hdr,
			    u8 *out, u8 *scratch)
{
	u32 room = le32_to_cpu(hdr->replay_len);
	struct compsc_replay log;
	int ret;

	memcpy(scratch, compsc_host_sec(va, hdr->replay_off), room);
	if (room < sizeof(struct compsc_replay_hdr) ||
	    !memchr_inv(scratch, 0, sizeof(struct compsc_replay_hdr)))
		return 0;
	ret = compsc_replay_attach(&log, scratch, room, NULL, 0);
	if (ret)
		return ret;
	return compsc_replay_pack(&log, out, room);
}
EXPORT_SYMBOL_GPL(compsc_host_pack_replay);

static bool compsc_host_same_reg(const void *rec, const void *ent)
{
	const struct compsc_reg *a = rec, *b = ent;

	return a->offset == b->offset && a->bar == b->bar &&
	       a->width == b->width && a->kind == b->kind;
}

/**
 * compsc_host_matches() - does every stream entry name the area's entry
 * at the same index?
 * @l: the destination area's checked lists; @v: a parsed stream
 */
bool compsc_host_matches(const struct compsc_host_lists *l,
			 const struct compsc_stream_view *v)
{
	const struct compsc_stream_rec *rr = &v->rec[COMPSC_REC_REGS];
	const struct compsc_stream_rec *rc = &v->rec[COMPSC_REC_COUNTERS];
	u32 i;

	if (rr->len != l->nr_regs * sizeof(struct compsc_rec_reg) ||
	    rc->len != l->nr_ctrs * sizeof(struct compsc_rec_counter))
		return false;
	for (i = 0; i < l->nr_regs; i++)
		if (!compsc_host_same_reg(rr->data +
					  i * sizeof(struct compsc_rec_reg),
					  &l->regs[i]))
			return false;
	for (i = 0; i < l->nr_ctrs; i++)
		if (!compsc_host_same_reg(rc->data +
					  i * sizeof(struct compsc_rec_counter),
					  &l->ctrs[i]))
			return false;
	return true;
}
EXPORT_SYMBOL_GPL(compsc_host_matches);

/**
 * compsc_host_apply() - saved values and counter finals into the area
 * @va: the area; @hdr: its checked header copy; @l: its checked lists
 * @v: a parsed stream that compsc_host_matches() accepted
 */
void compsc_host_apply(void *va, const struct compsc_area_hdr *hdr,
		       const struct compsc_host_lists *l,
		       const struct compsc_stream_view *v)
{
	const struct compsc_stream_rec *rr = &v->rec[COMPSC_REC_REGS];
	const struct compsc_stream_rec *rc = &v->rec[COMPSC_REC_COUNTERS];
	struct compsc_counter_desc *live = compsc_host_sec(va, hdr->counter_off);
	__le64 *saved = compsc_host_sec(va, hdr->saved_off);
	struct compsc_rec_counter c;
	struct compsc_rec_reg r;
	u32 i;

	for (i = 0; i < l->nr_regs; i++) {
		memcpy(&r, rr->data + i * sizeof(r), sizeof(r));
		WRITE_ONCE(saved[i], r.value);
	}
	for (i = 0; i < l->nr_ctrs; i++) {
		memcpy(&c, rc->data + i * sizeof(c), sizeof(c));
		WRITE_ONCE(live[i].hw_final, c.hw_final);
		smp_wmb();	/* hw_final before the flag that makes it valid */
		WRITE_ONCE(live[i].flags, live[i].flags | COMPSC_CTR_F_SAVED);
	}
}
EXPORT_SYMBOL_GPL(compsc_host_apply);

/* The VF's PF completes its reset handshake; false if it cannot. */
static bool compsc_host_vf_enable(struct pci_dev *vfdev)
{
	const struct compsc_pf_ops *ops;
	struct pci_dev *pf = NULL;
	int vf = -1, err = -EOPNOTSUPP;

	ops = compsc_vf_pf_ops_get(vfdev, &pf, &vf);
	if (ops && ops->vf_enable)
		err = ops->vf_enable(pf, vf);
	compsc_vf_pf_ops_put(ops);
	return !err;
}

/**
 * compsc_host_vf_handover() - destination, just before the hand-over: make
 * the guest's restore need no mailbox message if this host can
 * @vfdev: the destination VF, its reset handled by its PF
 * @imported: the stream's PF_VF record was imported into the VF's PF
 * @gpa: the guest's area, as the stream names it
 * @size: its size
 * @ctl: the area's control line (the host holds the device)
 *
 * The area is published for the next migration as if the guest had
 * registered it. Only a PF that holds the VF's whole configuration (the
 * imported PF_VF record: every filter the VF asked for and every
 * administrator setting) and completes the VF's reset handshake lets the
 * guest skip its own reset and replay; anything less leaves
 * COMPSC_F_HOST_CONFIGURED clear and the guest restores the old way.
 *
 * Return: whether the flag was set.
 */
bool compsc_host_vf_handover(struct pci_dev *vfdev, bool imported, u64 gpa,
			     u32 size, struct compsc_area_ctl *ctl)
{
	bool done = imported && !compsc_vf_area_set(vfdev, gpa, size) &&
		    compsc_host_vf_enable(vfdev);
	u32 flags = le32_to_cpu(READ_ONCE(ctl->flags));

	if (done)
		flags |= COMPSC_F_HOST_CONFIGURED;
	else
		flags &= ~COMPSC_F_HOST_CONFIGURED;
	WRITE_ONCE(ctl->flags, cpu_to_le32(flags));
	return done;
}
EXPORT_SYMBOL_GPL(compsc_host_vf_handover);

/*
 * Host-emulated counters: the host keeps a 32-bit base per statistics
 * register and adds it to every guest read (wrapping, as the registers
 * do), so the registers a guest reads continue across a migration even
 * when its driver keeps no totals of its own. These two functions are the
 * whole rule: what the source sends, and the base the destination derives.
 */

/**
 * compsc_host_read_stats() - the statistics registers as the guest reads
 * them, as COMPSC_REC_HOST_COUNTERS records
 * @bar: the VF's register BAR; @regs: @nr register offsets
 * @base: the bases this host adds now (NULL: none)
 * @out: @nr records
 */
void compsc_host_read_stats(void __iomem *bar, const u32 *regs, u32 nr,
			    const u32 *base, struct compsc_rec_counter *out)
{
	u32 i;

	for (i = 0; i < nr; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		out[i].offset = cpu_to_le32(regs[i]);
		out[i].width = 4;
		out[i].kind = COMPSC_REG_COUNTER_RO;
		out[i].hw_final = cpu_to_le32(readl(bar + regs[i]) +
					      (base ? base[i] : 0));
	}
}
EXPORT_SYMBOL_GPL(compsc_host_read_stats);

/**
 * compsc_host_stats_check() - a COMPSC_REC_HOST_COUNTERS record is exactly
 * this device's statistics list @regs (@nr offsets), in order
 *
 * Return: 0 or -COMPSC_EMALFORMED (a stream from a host with another list:
 * refuse it whole, before anything is applied).
 */
int compsc_host_stats_check(const u32 *regs, u32 nr,
			    const struct compsc_stream_rec *rec)
{
	struct compsc_rec_counter c;
	u32 i;

	if (rec->len != nr * sizeof(c))
		return -COMPSC_EMALFORMED;
	for (i = 0; i < nr; i++) {
		memcpy(&c, rec->data + i * sizeof(c), sizeof(c));
		if (le32_to_cpu(c.offset) != regs[i] || c.bar || c.total)
			return -COMPSC_EMALFORMED;
	}
	return 0;
}
EXPORT_SYMBOL_GPL(compsc_host_stats_check);

/**
 * compsc_host_stats_base() - destination: the base for each statistics
 * register that makes it continue from the source's last value
 * @bar: the VF's register BAR; @regs: @nr register offsets
 * @rec: a record compsc_host_stats_check() accepted
 * @base: @nr bases out
 */
void compsc_host_stats_base(void __iomem *bar, const u32 *regs, u32 nr,
			    const struct compsc_stream_rec *rec, u32 *base)
{
	struct compsc_rec_counter c;
	u32 i;

	for (i = 0; i < nr; i++) {
		memcpy(&c, rec->data + i * sizeof(c), sizeof(c));
		base[i] = le32_to_cpu(c.hw_final) - readl(bar + regs[i]);
	}
}
EXPORT_SYMBOL_GPL(compsc_host_stats_base);
