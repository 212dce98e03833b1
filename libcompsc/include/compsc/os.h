/* SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause) */
/*
 * compsc/os.h - the one OS header of libcompsc.
 *
 * The core builds unchanged in the kernel (Kbuild) and in userspace. Every
 * OS dependency goes through this file: fixed-width types, little-endian
 * conversion, compiler/CPU barriers (smp_* for memory shared between
 * CPUs, acquire/release for the words that publish state, mandatory mb()
 * where device accesses are ordered), a CPU-local increment, symbol export
 * and 32-bit device register access (in userspace: a BAR in memory, which
 * is what the host side's unit tests and fuzz targets give it).
 * Nothing here allocates and nothing calls libc in the kernel build.
 */
#ifndef COMPSC_OS_H
#define COMPSC_OS_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/export.h>
#include <linux/build_bug.h>
#include <asm/byteorder.h>
#include <asm/barrier.h>
#include <linux/compiler.h>
#include <linux/io.h>

/* Linked into a driver (the VF helper): nothing is exported. */
#ifdef COMPSC_LINKED
#define COMPSC_EXPORT(sym)
#else
#define COMPSC_EXPORT(sym)	EXPORT_SYMBOL_GPL(sym)
#endif
#define compsc_static_assert(e, msg)	static_assert(e, msg)

static inline u32 compsc_rd32(void __iomem *bar, u32 off)
{
	return readl((u8 __iomem *)bar + off);
}

static inline void compsc_wr32(void __iomem *bar, u32 off, u32 val)
{
	writel(val, (u8 __iomem *)bar + off);
}

/*
 * compsc_io_release() - this CPU's device accesses (MMIO loads and stores)
 * are done before its later stores: what the read side's exit needs before
 * the host, seeing the exit counted, touches the same device. smp_*()
 * barriers do not order MMIO on weakly ordered CPUs (arm64's device memory
 * is outer shareable, powerpc's lwsync leaves cache-inhibited stores
 * alone), mb() does. On x86 uncached MMIO is never reordered with other
 * loads and stores (why readl()/writel() carry no fence there): a compiler
 * barrier is the whole cost, and the fast path stays free.
 */
#ifdef CONFIG_X86
#define compsc_io_release()	barrier()
#else
/* every other CPU: the mandatory barrier, loads and stores */
#define compsc_io_release()	mb()
#endif

#else /* userspace */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * The kernel's fixed-width and __le types come from the uapi header, so that
 * libcompsc mixes with any userspace header that pulls it in too.
 */
#include <linux/types.h>
/* As in the kernel: u64 is __u64, so the two never disagree. */
typedef __u8  u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s64 s64;

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "libcompsc userspace build supports little-endian hosts only"
#endif
#define cpu_to_le16(x)	((__le16)(x))
#define cpu_to_le32(x)	((__le32)(x))
#define cpu_to_le64(x)	((__le64)(x))
#define le16_to_cpu(x)	((u16)(x))
#define le32_to_cpu(x)	((u32)(x))
#define le64_to_cpu(x)	((u64)(x))

#define READ_ONCE(x)	(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))
#define barrier()	__asm__ __volatile__("" ::: "memory")
#define smp_mb()	__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_rmb()	__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define smp_wmb()	__atomic_thread_fence(__ATOMIC_RELEASE)
/* the words that publish state: C11 acquire/release, as the kernel's */
#define smp_load_acquire(p)	__atomic_load_n(p, __ATOMIC_ACQUIRE)
/* see smp_load_acquire() */
#define smp_store_release(p, v)	__atomic_store_n(p, v, __ATOMIC_RELEASE)
/* The "device" is memory here: the mandatory barriers are CPU fences. */
#define mb()		__atomic_thread_fence(__ATOMIC_SEQ_CST)
/* see mb() */
#define rmb()		__atomic_thread_fence(__ATOMIC_SEQ_CST)
/* see mb() */
#define wmb()		__atomic_thread_fence(__ATOMIC_SEQ_CST)
/* see the kernel's; the "device" is memory, so a release fence is enough */
#define compsc_io_release()	__atomic_thread_fence(__ATOMIC_RELEASE)
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

#define COMPSC_EXPORT(sym)
#define compsc_static_assert(e, msg)	_Static_assert(e, msg)

#define __iomem
static inline u32 compsc_rd32(void *bar, u32 off)
{
	return *(volatile u32 *)((u8 *)bar + off);
}

static inline void compsc_wr32(void *bar, u32 off, u32 val)
{
	*(volatile u32 *)((u8 *)bar + off) = val;
}
#endif /* __KERNEL__ */

/*
 * Increment a counter that only the current CPU (or thread) writes, so that
 * an interrupt on the same CPU cannot lose an update, without a locked
 * instruction: a locked RMW would cost as much as the rwlock we replace.
 */
static inline void compsc_local_inc(__u64 *p)
{
#if defined(__x86_64__)
	__asm__ __volatile__("incq %0" : "+m"(*p) : : "memory");
#else
	__atomic_fetch_add(p, 1, __ATOMIC_RELAXED);
#endif
}

/*
 * Atomic increment of a counter several CPUs write (the shared reader slot).
 * Full barrier, like the kernel's value-returning atomics.
 */
static inline void compsc_atomic_inc64(__u64 *p)
{
	__atomic_fetch_add(p, 1, __ATOMIC_SEQ_CST);
}

/* Compare-and-swap on a 32-bit word; used only on slow paths. */
static inline int compsc_cas32(__u32 *p, __u32 old, __u32 new)
{
	return __atomic_compare_exchange_n(p, &old, new, 0,
					   __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

#endif /* COMPSC_OS_H */
