/* A pre-copy stream that is truncated, corrupt at any byte, for another device, or carries more than the configuration is refused; so is a stop-copy stream that names a pre-copy stream and carries configuration too; a guest log that fails its checks is left out of the pre-copy stream, not trusted. */
#include "check.h"
#include "precopy_fixture.h"

static u8 pre[COMPSC_PRECOPY_MAX], bad[COMPSC_PRECOPY_MAX];
static u8 stop[COMPSC_HOST_STREAM_MAX];
static struct hx src;

static void check_damaged(int plen)
{
	static const struct compsc_ident other = { 0x8086, 0x10ed, 0x8086, 0 };
	struct compsc_stream_view v;
	int i, refused = 0;

	for (i = 0; i < plen; i++)
		refused += compsc_precopy_load(pre, (u32)i, &hx_id, &v) < 0;
	CHECK_EQ(refused, plen);
	for (refused = 0, i = 0; i < plen; i++) {
		memcpy(bad, pre, (size_t)plen);
		bad[i] ^= 0x5a;
		refused += compsc_precopy_load(bad, (u32)plen, &hx_id, &v) < 0;
	}
	CHECK_EQ(refused, plen);
	CHECK_EQ(compsc_precopy_load(pre, (u32)plen, &other, &v),
		 -COMPSC_EWRONG_DEVICE);
	CHECK_EQ(compsc_precopy_load(pre, (u32)plen, &hx_id, &v), 0);
}

/* A whole stop-copy stream is no pre-copy stream: it carries registers. */
static void check_not_config(void)
{
	struct compsc_host_save s;
	struct compsc_stream_view v;
	int len = px_stopcopy(&src, NULL, 0, stop, sizeof(stop), &s);

	CHECK(len > 0);
	CHECK_EQ(compsc_precopy_load(stop, (u32)len, &hx_id, &v),
		 -COMPSC_EMALFORMED);
}

/* PRECOPY and the configuration in one stream: which one would count? */
static void check_both(int plen)
{
	struct compsc_rec_precopy ref = {
		.len = cpu_to_le32((u32)plen),
		.crc32c = cpu_to_le32(compsc_crc32c(0, pre, (u32)plen)),
	};
	u8 pf[sizeof(px_pf)];
	struct compsc_stream_view v, pv;
	struct compsc_stream_writer w;
	int len;

	compsc_stream_begin(&w, stop, sizeof(stop), &hx_id);
	compsc_stream_add(&w, COMPSC_REC_PRECOPY, COMPSC_REC_F_MANDATORY, &ref,
			  sizeof(ref));
	compsc_stream_add(&w, COMPSC_REC_PF_VF, COMPSC_REC_F_MANDATORY, pf,
			  (u32)compsc_pf_vf_pack(&px_pf, pf));
	len = compsc_stream_end(&w);
	CHECK(len > 0);
	CHECK_EQ(compsc_stream_parse(stop, (u32)len, &hx_id, sizeof(stop), &v), 0);
	CHECK_EQ(compsc_precopy_load(pre, (u32)plen, &hx_id, &pv), 0);
	CHECK_EQ(compsc_precopy_merge(&v, pre, (u32)plen, &pv), -COMPSC_EMALFORMED);
	/* and a PRECOPY record of the wrong size does not even parse */
	compsc_stream_begin(&w, stop, sizeof(stop), &hx_id);
	compsc_stream_add(&w, COMPSC_REC_PRECOPY, COMPSC_REC_F_MANDATORY, &ref, 4);
	CHECK(compsc_stream_end(&w) < 0);
}

/* A log the guest spoilt is not packed in pre-copy; the stream still builds. */
static void check_hostile_log(void)
{
	struct compsc_replay_hdr *rh = compsc_area_replay(src.area);
	struct compsc_stream_view v;
	int len;

	rh->count = cpu_to_le32(le32_to_cpu(rh->capacity) + 1);
	len = px_precopy(&src, pre, sizeof(pre));
	CHECK(len > 0);
	CHECK_EQ(compsc_precopy_load(pre, (u32)len, &hx_id, &v), 0);
	CHECK(v.rec[COMPSC_REC_DRIVER].data == NULL);
	CHECK(v.rec[COMPSC_REC_PF_VF].data != NULL);
}

int main(void)
{
	int plen;

	CHECK_EQ(hx_setup(&src), 0);
	hx_running(&src);
	plen = px_precopy(&src, pre, sizeof(pre));
	CHECK(plen > 0);
	check_damaged(plen);
	check_not_config();
	check_both(plen);
	check_hostile_log();
	hx_teardown(&src);
	CHECK_DONE();
}
