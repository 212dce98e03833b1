/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libcompsc's test hooks in the kernel: debugfs knobs that keep a guest
 * reader, a receive poll or a PF call waiting, so that the tests can open
 * the windows the protocol must survive. vf_fault.c (linked into a VF
 * driver with vf.c) and registry_fault.c (in compsc.ko) are built only
 * with COMPSC_FAULTS=y, as the bench builds them (mk/bench.mk), never by
 * the packages' DKMS builds: there the calls below are empty and no knob
 * exists. The two hooks a driver calls itself, compsc_vf_assert_held()
 * and compsc_vf_rx_stall(), are in compsc/vf.h on the same terms.
 */
#ifndef COMPSC_KERNEL_FAULT_H
#define COMPSC_KERNEL_FAULT_H

struct compsc_vf;
struct dentry;
struct pci_dev;

#ifdef COMPSC_FAULTS
void compsc_vf_fault_add(struct compsc_vf *vf);
void compsc_vf_fault_del(struct compsc_vf *vf);
void compsc_vf_fault_stall(struct compsc_vf *vf);
void compsc_pf_fault_debugfs(struct dentry *dir);
void compsc_pf_call_delay(struct pci_dev *vfdev);
#else
static inline void compsc_vf_fault_add(struct compsc_vf *vf) {}
static inline void compsc_vf_fault_del(struct compsc_vf *vf) {}
static inline void compsc_vf_fault_stall(struct compsc_vf *vf) {}
static inline void compsc_pf_fault_debugfs(struct dentry *dir) {}
static inline void compsc_pf_call_delay(struct pci_dev *vfdev) {}
#endif

#endif /* COMPSC_KERNEL_FAULT_H */
