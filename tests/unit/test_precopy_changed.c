/* Pre-copy configuration: unchanged, the stop-copy stream only names the pre-copy stream and the destination takes the configuration from it; changed in the PF or in the guest's log between pre-copy and stop-copy, it is detected and sent again in full; a destination without that very pre-copy stream refuses. */
#include "check.h"
#include "precopy_fixture.h"

static u8 pre[COMPSC_PRECOPY_MAX], stop[COMPSC_HOST_STREAM_MAX];
static u8 full[COMPSC_HOST_STREAM_MAX], other[COMPSC_PRECOPY_MAX];
static struct hx src, dst;

/* Destination: the stop-copy stream loaded and merged with @pre. */
static int merged(int len, const u8 *p, int plen, struct compsc_stream_view *v)
{
	struct compsc_stream_view pv;

	CHECK_EQ(compsc_host_load(&dst.a, stop, (u32)len, &hx_id, v), 0);
	if (!p)
		return compsc_precopy_merge(v, NULL, 0, NULL);
	CHECK_EQ(compsc_precopy_load(p, (u32)plen, &hx_id, &pv), 0);
	return compsc_precopy_merge(v, p, (u32)plen, &pv);
}

static void check_unchanged(int plen, int flen)
{
	struct compsc_host_save s;
	struct compsc_stream_view v;
	int len = px_stopcopy(&src, pre, (u32)plen, stop, sizeof(stop), &s);

	CHECK(len > 0);
	CHECK_EQ(s.config_sent, 0);
	printf("  pre-copy %d bytes; stop-copy %d bytes after it, %d without\n",
	       plen, len, flen);
	CHECK(len < flen);
	CHECK_EQ(merged(len, pre, plen, &v), 1);
	CHECK(v.rec[COMPSC_REC_PF_VF].data != NULL);
	CHECK(px_pf_is(&v.rec[COMPSC_REC_PF_VF]));
	CHECK_EQ(v.rec[COMPSC_REC_DRIVER].len, s.driver_bytes);
	CHECK(!memcmp(v.rec[COMPSC_REC_DRIVER].data, px_replay, s.driver_bytes));
	/* not the pre-copy stream it names, or none at all: refused */
	memcpy(other, pre, (size_t)plen);
	other[40] ^= 1;
	CHECK_EQ(merged(len, NULL, 0, &v), -COMPSC_EPRECOPY);
	CHECK_EQ(compsc_host_load(&dst.a, stop, (u32)len, &hx_id, &v), 0);
	CHECK_EQ(compsc_precopy_merge(&v, other, (u32)plen, &v), -COMPSC_EPRECOPY);
}

/* A record the guest added to its log after the pre-copy stream. */
static void guest_adds_record(void)
{
	struct compsc_replay log;
	u32 vlan = 20;

	CHECK_EQ(compsc_replay_attach(&log, compsc_area_replay(src.area),
				      src.area->replay_len, NULL, 0), 0);
	CHECK_EQ(compsc_replay_put(&log, HX_REPLAY_KEY + 1, &vlan, sizeof(vlan)), 0);
}

static void check_changed(int plen, const char *what)
{
	struct compsc_host_save s;
	struct compsc_stream_view v;
	int len = px_stopcopy(&src, pre, (u32)plen, stop, sizeof(stop), &s);

	CHECK(len > 0);
	CHECK_EQ(s.config_sent, 1);
	printf("  %s changed: stop-copy %d bytes, configuration sent again\n",
	       what, len);
	CHECK_EQ(merged(len, pre, plen, &v), 0);
	CHECK(v.rec[COMPSC_REC_PRECOPY].data == NULL);
	CHECK(px_pf_is(&v.rec[COMPSC_REC_PF_VF]));
	CHECK_EQ(v.rec[COMPSC_REC_DRIVER].len, s.driver_bytes);
	CHECK(!memcmp(v.rec[COMPSC_REC_DRIVER].data, px_replay, s.driver_bytes));
}

int main(void)
{
	struct compsc_host_save s;
	int plen, flen;

	CHECK_EQ(hx_setup(&src), 0);
	CHECK_EQ(hx_setup(&dst), 0);
	hx_running(&src);
	flen = px_stopcopy(&src, NULL, 0, full, sizeof(full), &s);
	CHECK(flen > 0 && s.config_sent == 1 && s.driver_bytes > 0);

	plen = px_precopy(&src, pre, sizeof(pre));
	CHECK(plen > 0);
	check_unchanged(plen, flen);

	/* the PF's state changed (the guest joined a multicast group) */
	px_pf.nr_mc = 1;
	px_pf.mc_hashes[0] = cpu_to_le16(0x1f3);
	check_changed(plen, "PF_VF");

	/* a new pre-copy stream, then the guest's log changed */
	plen = px_precopy(&src, pre, sizeof(pre));
	CHECK(plen > 0);
	check_unchanged(plen, flen);
	guest_adds_record();
	check_changed(plen, "replay log");
	hx_teardown(&src);
	hx_teardown(&dst);
	CHECK_DONE();
}
