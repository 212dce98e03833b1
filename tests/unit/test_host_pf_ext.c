/*
 * The host side carries a PF_VF_EXT section end to end without knowing the
 * device: the source saves it after PF_VF, the destination copies both out
 * for its PF, and the host configures the VF for the guest only when the PF
 * holds its whole state: a PF that wants the extension gets one from the
 * stream, and the source PF lost nothing.
 */
#include "check.h"
#include "host_fixture.h"
#include "stream_fixture.h"

static u8 stream[COMPSC_HOST_STREAM_MAX];
static struct compsc_host_save save;
static struct compsc_stream_view view;
static struct compsc_host_pf pf;
static struct hx src, dst;

/* Save @src with PF sections @st/@x and load the stream at @dst. */
static void save_load(const struct compsc_pf_vf_state *st,
		      const struct compsc_pf_vf_xstate *x)
{
	static uint64_t replay[2 * 65536 / 8];
	int len;

	memset(&save, 0, sizeof(save));
	save.replay = (u8 *)replay;
	save.pf = st;
	save.pf_ext = x;
	len = compsc_host_save(&src.a, &src.d, &hx_id, &save, stream,
			       sizeof(stream));
	CHECK(len > 0);
	CHECK((u32)len <= compsc_host_save_bound(&src.a, 0));
	CHECK_EQ(compsc_host_load(&dst.a, stream, (u32)len, &hx_id, &view), 0);
}

static void check_carried(void)
{
	u32 lost = 1;

	save_load(&fx_pfvf, &fx_pfext);
	CHECK_EQ(view.rec[COMPSC_REC_PF_VF_EXT].len, FX_PF_EXT_LEN);
	CHECK_EQ(view.rec[COMPSC_REC_PF_VF_EXT].flags, COMPSC_REC_F_MANDATORY);
	CHECK_EQ(compsc_host_pf_sections(&view, &pf), 0);
	CHECK(pf.has_st && pf.has_x);
	CHECK(!memcmp(&pf.st, &fx_pfvf, sizeof(fx_pfvf)));
	CHECK(!memcmp(&pf.x, &fx_pfext, sizeof(fx_pfext)));	/* zero past it */
	CHECK(compsc_host_pf_whole(&pf, true, &lost));
	CHECK_EQ(lost, 0);
}

/* What the source PF could not export keeps the guest on its own path. */
static void check_lost(void)
{
	struct compsc_pf_vf_xstate x = fx_pfext;
	u32 lost = 0;

	x.ext.lost = COMPSC_PFVF_LOST_IPSEC;
	save_load(&fx_pfvf, &x);
	CHECK_EQ(compsc_host_pf_sections(&view, &pf), 0);
	CHECK(!compsc_host_pf_whole(&pf, true, &lost));
	CHECK_EQ(lost, COMPSC_PFVF_LOST_IPSEC);
	x.ext.lost = 0x80000000u;	/* a bit this host does not know */
	save_load(&fx_pfvf, &x);
	CHECK_EQ(compsc_host_pf_sections(&view, &pf), 0);
	CHECK(!compsc_host_pf_whole(&pf, true, &lost));
}

/* The old form (PF_VF only): whole for an igb-like PF, not for ixgbe's. */
static void check_old_form(void)
{
	u32 lost = 1;

	save_load(&fx_pfvf, NULL);
	CHECK(!view.rec[COMPSC_REC_PF_VF_EXT].data);
	CHECK_EQ(compsc_host_pf_sections(&view, &pf), 0);
	CHECK(pf.has_st && !pf.has_x);
	CHECK(compsc_host_pf_whole(&pf, false, &lost));
	CHECK_EQ(lost, 0);
	CHECK(!compsc_host_pf_whole(&pf, true, &lost));
	/* no PF section at all: nothing for the PF, never configured */
	save_load(NULL, &fx_pfext);	/* an extension alone is not saved */
	CHECK(!view.rec[COMPSC_REC_PF_VF_EXT].data);
	CHECK_EQ(compsc_host_pf_sections(&view, &pf), 0);
	CHECK(!pf.has_st && !pf.has_x);
	CHECK(!compsc_host_pf_whole(&pf, false, &lost));
}

/* A hand-made stream with PF_VF_EXT and no PF_VF: the host refuses it. */
static void check_orphan(void)
{
	struct compsc_stream_writer w;
	struct compsc_stream_view v;
	int len;

	compsc_stream_begin(&w, stream, sizeof(stream), &hx_id);
	compsc_stream_add(&w, COMPSC_REC_PF_VF_EXT, COMPSC_REC_F_MANDATORY,
			  &fx_pfext, FX_PF_EXT_LEN);
	len = compsc_stream_end(&w);
	CHECK_EQ(compsc_stream_parse(stream, (u32)len, &hx_id, sizeof(stream),
				     &v), 0);
	CHECK_EQ(compsc_host_pf_sections(&v, &pf), -COMPSC_EMALFORMED);
	/* nor does it trust a view the parser did not make */
	v.rec[COMPSC_REC_PF_VF].data = stream;
	v.rec[COMPSC_REC_PF_VF].len = sizeof(fx_pfvf) - 1;
	CHECK_EQ(compsc_host_pf_sections(&v, &pf), -COMPSC_EMALFORMED);
}

int main(void)
{
	CHECK_EQ(hx_setup(&src), 0);
	CHECK_EQ(hx_setup(&dst), 0);
	hx_running(&src);
	CHECK_EQ(compsc_host_take(&src.a, &src.d, 1000000000ull), 0);
	check_carried();
	check_lost();
	check_old_form();
	check_orphan();
	hx_teardown(&src);
	hx_teardown(&dst);
	CHECK_DONE();
}
