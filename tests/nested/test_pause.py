"""A plain pause (QMP stop, then cont) under traffic is no migration: stop
returns promptly, the VF does no DMA while the VM is stopped, and after cont
the guest's traffic goes on with no CompSC restore, no driver reset, and
nothing in compsc_vfio's record of the VF's last migration. On the 82576
(igb) and on the 82599 model (ixgbe): each PF turns the VF's pool enables
off (its vf_pause), and L1 never says that the PF cannot pause the VF.

The VF's registers are read from outside L1 (the outer QEMU's monitor reads
L1's physical memory, VF0's BAR0 included): L1's kernel lets nobody map a
BAR vfio-pci holds, and the L2 is stopped."""
import asyncio
import re
import time

import pytest

from compsc_harness.vm import NICS
from nested import L1, L2_IP, SRC_PORT

ROUNDS = 10
STOP_BOUND_S = 1.0      # QMP stop, from the command to QEMU's answer
STOPPED_S = 2.0         # watched with the peer sending
RESUME_BOUND_S = 5.0    # cont to the first ping reply
# VF BAR0 offsets of what moves with DMA: queue 0's receive and transmit
# heads, the good packets received and transmitted (82576: igbvf's regs.h;
# 82599: ixgbevf's regs.h, IXGBE_VFRDH(0), IXGBE_VFTDH(0), ...)
REGS = {
    "igb": {"RDH0": 0x2810, "TDH0": 0x3810, "VFGPRC": 0x0f10, "VFGPTC": 0x0f14},
    "82599": {"VFRDH0": 0x1010, "VFTDH0": 0x2010, "VFGPRC": 0x101c, "VFGPTC": 0x201c},
}
# L1's compsc_vfio when the PF has no vf_pause or fails it
PF_CANNOT = r"the PF cannot pause this VF|the PF did not give the VF its DMA back"
# UDP datagrams to the L2 from the peer, 200 a second: receive DMA that
# does not wait for the guest (ping's requests wait for its replies)
UDP_BLAST = ("import socket, time\n"
             "s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
             "while True:\n"
             f"    s.sendto(b'x' * 64, ('{L2_IP}', 9)); time.sleep(0.005)\n")


def _bar0(l1) -> int:
    return int(l1.sh(f"cat /sys/bus/pci/devices/{l1.vf0}/resource").out.split()[0], 16)


def _regs(l1, bar: int, regs: dict) -> dict:
    """VF0's DMA registers @regs, read through the outer QEMU's monitor."""
    out = {}
    for name, off in regs.items():
        r = super(L1, l1).qmp("human-monitor-command",
                              **{"command-line": f"xp /1wx {bar + off:#x}"})
        out[name] = int(r.split(":")[1].split()[0], 16)
    return out


async def _timed(l1, command: str) -> float:
    """Seconds QEMU took to answer @command (the connection made before)."""
    client = await l1._qmp_connect(SRC_PORT, 30, f"QMP {command}")
    try:
        t0 = time.monotonic()
        await asyncio.wait_for(client.execute(command), 60)
        return time.monotonic() - t0
    finally:
        await client.disconnect()


def _first_reply_after(ps, t: float, timeout: float) -> float:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        late = [rt for rt, _ in ps.replies() if rt > t]
        if late:
            return min(late) - t
        time.sleep(0.1)
    return float("inf")


@pytest.mark.parametrize("nic", list(NICS), scope="module")
def test_pause(l1, peer, nic):
    l1.src.start()
    l1.src.wait_up()
    assert peer.ping(L2_IP, count=5, interval=0.5).received >= 3
    before = l1.src.stat_now()
    record = l1.last_migrations()[l1.vf0]
    bar = _bar0(l1)
    mark = l1.dmesg_mark()
    blast = peer.popen(["python3", "-c", UDP_BLAST])
    rounds = []
    with peer.ping_stream(L2_IP, interval=0.05) as ps:
        time.sleep(3)
        for i in range(ROUNDS):
            stop_s = asyncio.run(_timed(l1, "stop"))
            assert l1.src.status() == "paused"
            a = _regs(l1, bar, REGS[nic])
            time.sleep(STOPPED_S)
            b = _regs(l1, bar, REGS[nic])
            t_cont = time.time()
            cont_s = asyncio.run(_timed(l1, "cont"))
            resume_s = _first_reply_after(ps, t_cont, RESUME_BOUND_S * l1.slow)
            rounds.append((stop_s, cont_s, resume_s, a, b))
            print(f"nested: pause {i}: stop {stop_s:.3f} s, cont {cont_s:.3f} s, "
                  f"first reply {resume_s:.2f} s after cont; stopped: {a} -> {b}")
            assert stop_s < STOP_BOUND_S, rounds[-1]
            assert a == b, f"DMA while stopped: {a} -> {b}"
            assert resume_s < RESUME_BOUND_S * l1.slow, rounds[-1]
            time.sleep(1)
    blast.kill()
    after = l1.src.stat_next()
    log = l1.dmesg_since(mark)
    print(f"nested: compsc_vfio during the pauses: {log.strip()[-1500:]!r}")
    # the PF paused the VF and gave it back, every time
    assert not re.search(PF_CANNOT, log), log[-3000:]
    # a pause is not a migration: no take, no record of one
    assert not re.search(r"device taken|device stays with the guest", log), log[-3000:]
    assert l1.last_migrations()[l1.vf0] == record, (record, l1.last_migrations())
    assert after["compsc_restores"] == before["compsc_restores"], (before, after)
    assert after["compsc_resets"] == before["compsc_resets"], (before, after)
    assert peer.ping(L2_IP, count=5, interval=0.5).received >= 3
    l1.check_kernel_log()
