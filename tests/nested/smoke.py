"""By hand: boot L1, bind, start the source L2, print what happened."""
import sys, time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "vm"))
from compscvm import Peer
from nested import L1, SRC_PORT
with Peer() as peer:
    t = time.monotonic()
    vm = L1(peer)
    print("L1 boot", vm.boot_seconds, flush=True)
    print(vm.setup(), time.monotonic() - t, flush=True)
    print(vm.sh("dmesg | grep -iE 'dmar|iommu|vfio|compsc' | tail -20").out, flush=True)
    vm.l2_start("src", vm.vf0, SRC_PORT)
    print("L2 up after", vm.wait_l2_up("src"), flush=True)
    print(vm.l2_log("src")[-1500:])
    print(peer.ping("10.77.0.10", count=3).received)
    vm.close(check=False)
