/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fake port of igb_fake_port.h: the PMD's own queue setup and RX init
 * (eth_igb_rx_queue_setup(), eth_igbvf_rx_init()) on an ethdev port with
 * no bus device, a BAR in memory and a mailbox that answers at once.
 */
#define ALLOW_INTERNAL_API	/* rte_eth_dev_allocate(): a port with no bus */
#define ALLOW_EXPERIMENTAL_API	/* rte_intr_instance_alloc(): its interrupt */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include <ethdev_driver.h>
#include <ethdev_pci.h>
#include <rte_cycles.h>
#include <rte_interrupts.h>
#include <rte_malloc.h>
#include <rte_memzone.h>

#include "base/e1000_api.h"
#include "e1000_ethdev.h"
#include "igb_fake_port.h"

/* Every register of the VF's BAR (16 KiB), and room to spare */
static uint8_t fake_bar[1 << 16] __rte_aligned(4096);

/*
 * The mailbox: a use takes a while (as the VFMAILBOX handshake does), and
 * one that starts while another is under way is counted.
 */
static int mbx_inside, mbx_overlaps, mbx_irq_reads;

static void
fake_mbx_use(void)
{
	if (__atomic_fetch_add(&mbx_inside, 1, __ATOMIC_SEQ_CST) != 0)
		__atomic_fetch_add(&mbx_overlaps, 1, __ATOMIC_SEQ_CST);
	rte_delay_us_block(20);
	__atomic_fetch_sub(&mbx_inside, 1, __ATOMIC_SEQ_CST);
}

/* The PF acknowledges whatever the port asks (here: the max frame) */
static s32
fake_mbx_write(struct e1000_hw *hw, u32 *msg, u16 size, u16 id)
{
	RTE_SET_USED(hw);
	RTE_SET_USED(msg);
	RTE_SET_USED(size);
	RTE_SET_USED(id);
	fake_mbx_use();
	return E1000_SUCCESS;
}

static s32
fake_mbx_read(struct e1000_hw *hw, u32 *msg, u16 size, u16 id)
{
	RTE_SET_USED(hw);
	RTE_SET_USED(id);
	memset(msg, 0, size * sizeof(*msg));
	fake_mbx_use();
	return E1000_SUCCESS;
}

/* The interrupt handler's read of the PF's message (igbvf_mbx_process()) */
static s32
fake_mbx_irq_read(struct e1000_hw *hw, u32 *msg, u16 size, u16 id)
{
	__atomic_fetch_add(&mbx_irq_reads, 1, __ATOMIC_SEQ_CST);
	return fake_mbx_read(hw, msg, size, id);
}

static struct e1000_hw *
fake_hw(struct rte_eth_dev *dev)
{
	return E1000_DEV_PRIVATE_TO_HW(dev->data->dev_private);
}

void *
fake_port_create(const char *name, uint16_t nb_desc, struct rte_mempool *mp)
{
	struct rte_eth_rxconf conf = { .rx_free_thresh = 4 };
	struct rte_eth_dev *dev = rte_eth_dev_allocate(name);
	struct e1000_hw *hw;

	if (dev == NULL)
		return NULL;
	dev->data->dev_private = rte_zmalloc(name, sizeof(struct e1000_adapter),
					     RTE_CACHE_LINE_SIZE);
	dev->data->rx_queues = rte_zmalloc(name, sizeof(void *),
					   RTE_CACHE_LINE_SIZE);
	if (dev->data->dev_private == NULL || dev->data->rx_queues == NULL)
		goto fail;
	dev->data->nb_rx_queues = 1;
	memset(fake_bar, 0, sizeof(fake_bar));
	hw = fake_hw(dev);
	hw->hw_addr = fake_bar;
	hw->mac.type = e1000_vfadapt;
	hw->mbx.ops.write_posted = fake_mbx_write;
	hw->mbx.ops.read_posted = fake_mbx_read;
	if (eth_igb_rx_queue_setup(dev, 0, nb_desc, SOCKET_ID_ANY, &conf,
				   mp) != 0 ||
	    eth_igbvf_rx_init(dev) != 0)
		goto fail;
	dev->data->dev_started = 1;
	return dev;
fail:
	fake_port_destroy(dev);
	return NULL;
}

void
fake_port_destroy(void *p)
{
	struct rte_eth_dev *dev = p;

	if (dev->data->rx_queues != NULL && dev->data->rx_queues[0] != NULL)
		eth_igb_rx_queue_release(dev, 0);
	if (dev->data->tx_queues != NULL && dev->data->tx_queues[0] != NULL)
		eth_igb_tx_queue_release(dev, 0);
	rte_eth_dev_release_port(dev);
}

void *
fake_port_rxq(void *p)
{
	return ((struct rte_eth_dev *)p)->data->rx_queues[0];
}

eth_rx_burst_t
fake_port_burst(void *p)
{
	return ((struct rte_eth_dev *)p)->rx_pkt_burst;
}

int
fake_port_restore(void *dev, const uint32_t *rx_head, const uint32_t *tx_head,
		  int mem_copied)
{
	return eth_igbvf_compsc_restore_queues(dev, rx_head, tx_head,
					       mem_copied);
}

int
fake_port_add_txq(void *p, uint16_t nb_desc)
{
	struct rte_eth_dev *dev = p;
	struct rte_eth_txconf conf = { .tx_free_thresh = 0 };

	dev->data->tx_queues = rte_zmalloc("fake_txq", sizeof(void *),
					   RTE_CACHE_LINE_SIZE);
	if (dev->data->tx_queues == NULL)
		return -1;
	dev->data->nb_tx_queues = 1;
	if (eth_igb_tx_queue_setup(dev, 0, nb_desc, SOCKET_ID_ANY, &conf) != 0)
		return -1;
	eth_igbvf_tx_init(dev);
	return 0;
}

uint16_t
fake_port_xmit(void *p, struct rte_mbuf **pkts, uint16_t n)
{
	struct rte_eth_dev *dev = p;

	return eth_igb_xmit_pkts(dev->data->tx_queues[0], pkts, n);
}

/* The device's write-back of TX descriptor @idx: done */
void
fake_dev_tx_done(void *p, uint16_t idx)
{
	struct rte_eth_dev *dev = p;
	char name[RTE_MEMZONE_NAMESIZE];
	const struct rte_memzone *mz;
	volatile union e1000_adv_tx_desc *d;

	snprintf(name, sizeof(name), "eth_p%u_q0_tx_ring",
		 (unsigned int)dev->data->port_id);
	mz = rte_memzone_lookup(name);
	if (mz == NULL)
		return;
	d = (volatile union e1000_adv_tx_desc *)mz->addr + idx;
	d->wb.status = rte_cpu_to_le_32(E1000_TXD_STAT_DD);
}

int
fake_port_tx_cleanup(void *p)
{
	struct rte_eth_dev *dev = p;

	return dev->dev_ops->tx_done_cleanup(dev->data->tx_queues[0], 0);
}

uint32_t
fake_port_rdh(void *dev)
{
	return E1000_READ_REG(fake_hw(dev), E1000_RDH(0));
}

uint32_t
fake_port_rdt(void *dev)
{
	return E1000_READ_REG(fake_hw(dev), E1000_RDT(0));
}

/* Descriptor @idx of RX queue 0, through its memzone (the queue is opaque) */
static volatile union e1000_adv_rx_desc *
fake_desc(struct rte_eth_dev *dev, uint16_t idx)
{
	char name[RTE_MEMZONE_NAMESIZE];
	const struct rte_memzone *mz;

	snprintf(name, sizeof(name), "eth_p%u_q0_rx_ring",
		 (unsigned int)dev->data->port_id);
	mz = rte_memzone_lookup(name);
	return mz == NULL ? NULL :
	       (volatile union e1000_adv_rx_desc *)mz->addr + idx;
}

struct rte_mbuf *
fake_dev_posted(void *dev, uint16_t idx)
{
	volatile union e1000_adv_rx_desc *d = fake_desc(dev, idx);
	struct rte_mbuf *m;
	uintptr_t addr;

	if (d == NULL || (d->wb.upper.status_error & E1000_RXD_STAT_DD))
		return NULL;
	/*
	 * IOVA is VA here (--no-huge), and the test's pools have no private
	 * area: the mbuf sits just before its data room.
	 */
	addr = (uintptr_t)rte_le_to_cpu_64(d->read.pkt_addr);
	if (addr == 0)
		return NULL;
	m = (struct rte_mbuf *)(addr - RTE_PKTMBUF_HEADROOM -
				sizeof(struct rte_mbuf));
	return rte_mbuf_data_iova_default(m) == addr ? m : NULL;
}

struct rte_mbuf *
fake_dev_write(void *dev, uint16_t idx, uint16_t len, uint8_t fill, int eop)
{
	volatile union e1000_adv_rx_desc *d = fake_desc(dev, idx);
	struct rte_mbuf *m = fake_dev_posted(dev, idx);

	if (m == NULL)
		return NULL;
	memset((char *)m->buf_addr + RTE_PKTMBUF_HEADROOM, fill, len);
	d->wb.lower.lo_dword.data = 0;
	d->wb.lower.hi_dword.rss = 0;
	d->wb.upper.length = rte_cpu_to_le_16(len);
	d->wb.upper.vlan = 0;
	rte_wmb();
	d->wb.upper.status_error = rte_cpu_to_le_32(E1000_RXD_STAT_DD |
						    (eop ? E1000_RXD_STAT_EOP : 0));
	return m;
}

/*
 * The port's bus device: only its interrupt handle is used, a virtual
 * device's (the interrupt thread neither reads nor acknowledges it)
 */
static struct rte_pci_device fake_pci;
static int fake_efd = -1;

int
fake_port_attach(void *p, void *cs)
{
	struct rte_eth_dev *dev = p;
	struct e1000_adapter *adapter = dev->data->dev_private;
	struct e1000_hw *hw = fake_hw(dev);
	struct rte_intr_handle *h;

	h = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	fake_efd = eventfd(0, EFD_NONBLOCK);
	if (h == NULL || fake_efd < 0 ||
	    rte_intr_type_set(h, RTE_INTR_HANDLE_VDEV) != 0 ||
	    rte_intr_fd_set(h, fake_efd) != 0)
		return -1;
	fake_pci.intr_handle = h;
	dev->device = &fake_pci.device;
	dev->intr_handle = h;
	/*
	 * What every interrupt finds: the mailbox's cause (EICR reads 0,
	 * igb_ethdev.c's E1000_VTIVAR_MISC_MAILBOX) and a PF message
	 */
	E1000_WRITE_REG(hw, E1000_EICR, 0);
	E1000_WRITE_REG(hw, E1000_VMBMEM(0), E1000_PF_CONTROL_MSG);
	hw->mbx.ops.read = fake_mbx_irq_read;
	adapter->compsc_mbx = hw->mbx.ops;
	eth_igbvf_compsc_attach(dev, cs);
	return rte_intr_callback_register(h, eth_igbvf_interrupt_handler, dev);
}

void
fake_port_detach(void *p)
{
	struct rte_eth_dev *dev = p;

	fake_port_interrupt_stop();
	while (rte_intr_callback_unregister(fake_pci.intr_handle,
					    eth_igbvf_interrupt_handler,
					    dev) == -EAGAIN)
		rte_delay_ms(1);
	close(fake_efd);
	fake_efd = -1;
	rte_intr_instance_free(fake_pci.intr_handle);
	fake_pci.intr_handle = NULL;
}

void
fake_port_interrupt(void)
{
	uint64_t one = 1;

	if (write(fake_efd, &one, sizeof(one)) != sizeof(one))
		fprintf(stderr, "fake port: no interrupt raised\n");
}

void
fake_port_interrupt_stop(void)
{
	uint64_t n;

	if (read(fake_efd, &n, sizeof(n)) < 0)
		n = 0;		/* not raised */
}

int
fake_port_close(void *p)
{
	struct rte_eth_dev *dev = p;

	return dev->dev_ops->dev_close(dev);
}

int
fake_port_vlan(void *p, uint16_t vid, int on)
{
	struct rte_eth_dev *dev = p;

	return dev->dev_ops->vlan_filter_set(dev, vid, on);
}

int
fake_mbx_irq_reads(void)
{
	return __atomic_load_n(&mbx_irq_reads, __ATOMIC_SEQ_CST);
}

int
fake_mbx_overlaps(void)
{
	return __atomic_load_n(&mbx_overlaps, __ATOMIC_SEQ_CST);
}
