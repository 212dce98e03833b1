#!/usr/bin/env python3
"""Boot the bench VM with its console on this terminal (make vm-shell).

The VM is the one the tests use: same kernel, initramfs, igb PF behind a
PCIe root port, a peer namespace on the other end of the tap. By default
the PF and 2 VFs are set up (guest/bench-setup) before you get the prompt.
Leave with `poweroff -f` in the guest or Ctrl-A X. Everything is cleaned
up on exit.
"""

import argparse
import sys

from compsc_harness.vm import NICS, Peer, VM, vf_ip


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vfs", type=int, default=2, help="VFs to set up (0: none, do it yourself)")
    ap.add_argument("--mem", type=int, default=768, help="guest memory, MiB")
    ap.add_argument("--smp", type=int, default=1)
    ap.add_argument("--append", default="", help="extra kernel command line")
    ap.add_argument("--nic", choices=sorted(NICS), default="igb",
                    help="the PF's model (82599: the project's QEMU, COMPSC_QEMU_82599)")
    a = ap.parse_args()
    with Peer() as peer:
        vm = VM(peer=peer, name="shell", mem=a.mem, smp=a.smp, append=a.append,
                interactive=True, nic=a.nic)
        try:
            vm.wait_agent()
            if a.vfs:
                vm.setup_vfs(a.vfs)
            print(f"\r\n[vm-shell] peer namespace {peer.ns} ({peer.addr}); from another "
                  f"terminal: ip netns exec {peer.ns} ping {vf_ip(0)}\r\n"
                  f"[vm-shell] console log: -; QMP: {vm.qmp_path}; "
                  f"quit: poweroff -f or Ctrl-A X\r\n", file=sys.stderr)
            rc = vm.wait_exit()
        finally:
            vm.close(check=False)
    return rc


if __name__ == "__main__":
    sys.exit(main())
