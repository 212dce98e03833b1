/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace replacements for the few kernel definitions that the drivers'
 * mailbox headers and compsc/vf.h use, so unit tests can include the real
 * headers of the patched drivers. Every stub under linux/ includes this
 * one; the fixed-width types come from libcompsc's compsc/os.h.
 */
#ifndef VENDOR_KSHIM_H
#define VENDOR_KSHIM_H

#include <stdbool.h>
#include <stddef.h>
#include <compsc/os.h>

typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef uint64_t dma_addr_t;
typedef struct { int counter; } atomic_t;
typedef struct { long long counter; } atomic64_t;
typedef struct { int lock; } spinlock_t;
struct work_struct { int pending; };
struct delayed_work { struct work_struct work; };
struct net_device { void *ml_priv; };
struct pci_dev;
struct device;
struct napi_struct;

#define __iomem
#define __always_unused	__attribute__((__unused__))
#define ETH_ALEN	6
#define PAGE_SIZE	4096UL
#define BIT(n)		(1UL << (n))
#define PTR_ALIGN(p, a)	((__typeof__(p))(((uintptr_t)(p) + (a) - 1) & ~((uintptr_t)(a) - 1)))
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))
#define min_t(t, a, b)	((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max(a, b)	((a) > (b) ? (a) : (b))
#define min(a, b)	((a) < (b) ? (a) : (b))
#define fallthrough	__attribute__((__fallthrough__))
#define preempt_disable()	do { } while (0)
#define preempt_enable()	do { } while (0)
#define smp_processor_id()	0
#define atomic_add(i, v)	((v)->counter += (i))
#define writel(v, a)		((void)(v), (void)(a))

#endif /* VENDOR_KSHIM_H */
