/* The DMA log's whole pass: once started, every read reports its whole window until QEMU's reads have covered each memory section once, whichever section the pass starts in. */
#include "check.h"
#include "compsc/migstate.h"

/* QEMU's sections on the nested bench: low RAM, main RAM, RAM above 4G */
static const u64 sec[] = { 0x0, 0x100000, 0x100000000ull };
#define NSEC	(sizeof(sec) / sizeof(sec[0]))	/* no ARRAY_SIZE in user space */

/* one sync's reads; bit i of the result: section i reported whole */
static unsigned int sync_reads(struct compsc_log_pass *p, unsigned int from)
{
	unsigned int i, whole = 0;

	for (i = from; i < NSEC; i++)
		if (compsc_log_pass_read(p, sec[i]))
			whole |= 1u << i;
	return whole;
}

int main(void)
{
	struct compsc_log_pass p;
	unsigned int s;

	/* no pass due: nothing whole, ever */
	compsc_log_pass_reset(&p);
	CHECK_EQ(sync_reads(&p, 0), 0u);
	CHECK_EQ(sync_reads(&p, 0), 0u);

	/* started before a sync: that sync is whole, the next one is not */
	compsc_log_pass_start(&p);
	CHECK(compsc_log_pass_new_sync(&p, sec[0]));
	CHECK_EQ(sync_reads(&p, 0), 7u);
	CHECK_EQ(sync_reads(&p, 0), 0u);

	/*
	 * Started in the middle of a sync (a read found the receive paths
	 * gone): the rest of that sync and the sections before the start in
	 * the next one are whole; main RAM is whole once, not left out.
	 */
	for (s = 1; s < NSEC; s++) {
		unsigned int i;

		compsc_log_pass_reset(&p);
		sync_reads(&p, 0);
		for (i = 0; i < s; i++)
			CHECK(!compsc_log_pass_read(&p, sec[i]));
		CHECK(!compsc_log_pass_new_sync(&p, sec[s]));
		compsc_log_pass_start(&p);
		CHECK_EQ(sync_reads(&p, s), (7u >> s) << s);
		CHECK_EQ(sync_reads(&p, 0), (1u << s) - 1);
		CHECK_EQ(sync_reads(&p, 0), 0u);
	}

	/* started again while due: the pass starts over from there */
	compsc_log_pass_reset(&p);
	compsc_log_pass_start(&p);
	CHECK_EQ(sync_reads(&p, 0), 7u);
	compsc_log_pass_start(&p);
	CHECK(compsc_log_pass_read(&p, sec[0]));
	compsc_log_pass_start(&p);
	CHECK_EQ(sync_reads(&p, 1), 6u);
	CHECK_EQ(sync_reads(&p, 0), 1u);
	CHECK_EQ(sync_reads(&p, 0), 0u);

	/* one section only: whole once */
	compsc_log_pass_reset(&p);
	compsc_log_pass_start(&p);
	CHECK(compsc_log_pass_read(&p, sec[1]));
	CHECK(compsc_log_pass_new_sync(&p, sec[1]));
	CHECK(!compsc_log_pass_read(&p, sec[1]));
	return 0;
}
