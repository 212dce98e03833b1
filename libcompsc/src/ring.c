// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * Ring shifting. The RX/TX head registers are read-only and restart at 0
 * on the destination device. Rather than replaying traffic to move them,
 * the driver rotates each ring in memory so that the descriptor the old
 * head pointed at sits at index 0, and keeps the accumulated rotation as an
 * offset between its own (software) indices and the hardware's.
 */
#include <compsc/compsc.h>

/*
 * Sizes up to 2^31 keep every sum in compsc_ring_hw()/_sw() below 2^32;
 * real rings are a few thousand descriptors.
 */
#define COMPSC_RING_MAX		0x80000000u

int compsc_ring_init(struct compsc_ring *r, u32 size)
{
	if (!r || !size || size > COMPSC_RING_MAX)
		return -COMPSC_EINVAL;
	r->size = size;
	r->offset = 0;
	return 0;
}
COMPSC_EXPORT(compsc_ring_init);

/*
 * After the ring memory was rotated left by @hw_head (compsc_ring_rotate()),
 * the descriptor software index sw used to reach at hw = sw - offset is at
 * hw - hw_head: the offsets add up, modulo the size. Written so that no
 * intermediate sum exceeds 2^32.
 */
int compsc_ring_shift(struct compsc_ring *r, u32 hw_head)
{
	if (!r || !r->size || hw_head >= r->size)
		return -COMPSC_EINVAL;
	if (r->offset >= r->size - hw_head)
		r->offset -= r->size - hw_head;
	else
		r->offset += hw_head;
	return 0;
}
COMPSC_EXPORT(compsc_ring_shift);

/* Swap two @elem-byte elements through a small bounce buffer. */
static void __ring_swap(u8 *a, u8 *b, u32 elem)
{
	u8 tmp[32];
	u32 n;

	while (elem) {
		n = elem < sizeof(tmp) ? elem : (u32)sizeof(tmp);
		memcpy(tmp, a, n);
		memcpy(a, b, n);
		memcpy(b, tmp, n);
		a += n;
		b += n;
		elem -= n;
	}
}

/* Reverse elements [lo, hi) in place. */
static void __ring_reverse(u8 *base, u32 elem, u32 lo, u32 hi)
{
	while (hi > lo + 1) {
		hi--;
		__ring_swap(base + (size_t)lo * elem, base + (size_t)hi * elem,
			    elem);
		lo++;
	}
}

/*
 * Rotation by three reversals: in place, no allocation, any element size
 * and any count (power of two or not). @by >= @count rotates by @by % @count.
 */
int compsc_ring_rotate(void *base, u32 elem, u32 count, u32 by)
{
	if (!elem || (count && !base))
		return -COMPSC_EINVAL;
	if (!count)
		return 0;
	by %= count;
	if (!by)
		return 0;
	__ring_reverse(base, elem, 0, by);
	__ring_reverse(base, elem, by, count);
	__ring_reverse(base, elem, 0, count);
	return 0;
}
COMPSC_EXPORT(compsc_ring_rotate);

/*
 * Guest memory moved: the old device completed every receive descriptor
 * from the driver's next to clean @ntc up to its saved @head after the
 * driver last marked pages dirty, so their buffers may have travelled
 * stale. @limit is the furthest the device may have got (it never passes
 * what the driver posted): a @head past it is a confused or hostile host's.
 */
int compsc_ring_stale(u32 ntc, u32 head, u32 limit, u32 count)
{
	u32 n, max;

	if (!count || count > COMPSC_RING_MAX || ntc >= count ||
	    head >= count || limit >= count)
		return -COMPSC_EINVAL;
	n = head >= ntc ? head - ntc : head + (count - ntc);
	max = limit >= ntc ? limit - ntc : limit + (count - ntc);
	return n <= max ? (int)n : -COMPSC_EINVAL;
}
COMPSC_EXPORT(compsc_ring_stale);
