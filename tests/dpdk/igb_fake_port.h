/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A started igb VF port of the patched PMD with one RX queue and no
 * device: its BAR is memory, its mailbox answers at once, and the test
 * plays the device by writing back descriptors and buffers. Only stdint
 * and DPDK types cross this header: its .c includes the e1000 base code,
 * whose u32/u64 clash with libcompsc's (as in the driver itself).
 */
#ifndef _IGB_FAKE_PORT_H_
#define _IGB_FAKE_PORT_H_

#include <stdint.h>

#include <rte_mbuf.h>

/*
 * Set up and start port @name's RX queue 0: @nb_desc descriptors, buffers
 * from @mp (a data room under 1 KiB makes the PMD pick its scattered
 * burst), RDT given back every 4 descriptors. NULL on failure.
 */
void *fake_port_create(const char *name, uint16_t nb_desc,
		       struct rte_mempool *mp);
void fake_port_destroy(void *dev);
/* The port's RX queue and the stock burst the PMD chose for it. */
void *fake_port_rxq(void *dev);
eth_rx_burst_t fake_port_burst(void *dev);
/*
 * The PMD's restore of the port's queues (igb_compsc_restore_t, what the
 * driver's own does short of statistics and interrupts).
 */
int fake_port_restore(void *dev, const uint32_t *rx_head,
		      const uint32_t *tx_head, int mem_copied);
/* The RX queue's RDH or RDT register as the PMD last wrote it. */
uint32_t fake_port_rdh(void *dev);
uint32_t fake_port_rdt(void *dev);
/*
 * The device: the mbuf whose buffer descriptor @idx (in read format)
 * names, or NULL if it names none.
 */
struct rte_mbuf *fake_dev_posted(void *dev, uint16_t idx);
/*
 * The device receives into descriptor @idx: @len bytes of @fill into its
 * buffer, then the write-back (done, end of packet if @eop). Returns the
 * buffer's mbuf, NULL if the descriptor named none.
 */
struct rte_mbuf *fake_dev_write(void *dev, uint16_t idx, uint16_t len,
				uint8_t fill, int eop);

/*
 * A TX queue 0 of @nb_desc descriptors for the port (the PMD's setup and
 * TX init); its stock transmit; the device marking descriptor @idx done;
 * the port's tx_done_cleanup op as rte_eth_tx_done_cleanup() calls it.
 */
int fake_port_add_txq(void *dev, uint16_t nb_desc);
uint16_t fake_port_xmit(void *dev, struct rte_mbuf **pkts, uint16_t n);
void fake_dev_tx_done(void *dev, uint16_t idx);
int fake_port_tx_cleanup(void *dev);

/*
 * The port runs with CompSC context @cs (igb_compsc_create()'s, priv
 * @dev) as the PMD's init sets it up: its ops and mailbox wrappers, and
 * its interrupt handler on an eventfd the EAL interrupt thread polls.
 * Each interrupt finds a PF message (a reset notice) in the mailbox.
 */
int fake_port_attach(void *dev, void *cs);
/* The interrupt callback unregistered, the eventfd closed */
void fake_port_detach(void *dev);
/*
 * Raise the port's interrupt: it stays raised, and the interrupt thread
 * runs the handler again and again, until fake_port_interrupt_stop().
 */
void fake_port_interrupt(void);
void fake_port_interrupt_stop(void);
/* The PMD's close and VLAN filter ops, as ethdev calls them */
int fake_port_close(void *dev);
int fake_port_vlan(void *dev, uint16_t vid, int on);
/* The interrupt handler's mailbox reads, and mailbox uses that overlapped */
int fake_mbx_irq_reads(void);
int fake_mbx_overlaps(void);

#endif /* _IGB_FAKE_PORT_H_ */
