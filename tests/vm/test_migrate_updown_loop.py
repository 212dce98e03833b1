"""Interface down and up during migrations: every `ip link set down/up`
succeeds at once, no hold grows past what the host asked for (open and
close never wait for the host under RTNL), every migration is restored
without a reset, and what the stack asked for while the host held the
device happens once it is back: the driver frees its interrupts after a
down, takes them again after an up, and the VF answers."""

import time

from compsc_harness.mig import (DBG, ECHO, LOOP_MIGRATIONS, compsc_vfs, ethtool_stats,  # noqa: F401
                       migrate_under_loop, result, wait_restores)

STOP = "/tmp/updown-loop.stop"
LONG_MS = 2500
CHANGE_MAX_MS = 1000


def _updown_loop(ifname: str) -> str:
    """down, up until STOP exists; count the commands and the failures."""
    return (f"rm -f {STOP} /tmp/updown.err; n=0; f=0; while [ ! -e {STOP} ]; do "
            "for s in down up; do n=$((n+1)); "
            f"ip link set dev {ifname} $s 2>>/tmp/updown.err || f=$((f+1)); done; done; "
            'echo "changes=$n failed=$f"; cat /tmp/updown.err')


def _timed(cmd: str) -> str:
    """cmd, then its rc and how long it took on the guest's clock (ms, 10 ms
    steps: /proc/uptime)."""
    cs = "$(cut -d' ' -f1 /proc/uptime | tr -d .)"
    return f't0={cs}; {cmd}; rc=$?; t1={cs}; echo "rc=$rc ms=$(( (t1 - t0) * 10 ))"'


def _irqs(vm, ifname: str) -> int:
    """The driver's receive interrupt is requested (igbvf takes it in open
    and frees it in close): 1, else 0."""
    return int(vm.run(f"grep -cw {ifname}-rx-0 /proc/interrupts", check=False).out.strip() or 0)


def test_migrate_updown_loop(vm, compsc_vfs, peer):
    vf = compsc_vfs[0]
    try:
        _loop(vm, vf)
        _long_hold(vm, vf, "down", 0)
        _long_hold(vm, vf, "up", 1)
    finally:
        vm.run(f"touch {STOP}; ip link set dev {vf.ifname} up", check=False)
    vm.wait_link(vf.ifname, 30)
    assert peer.ping(vf.ip, count=5, interval=0.2).received == 5


def _loop(vm, vf):
    """Back-to-back migrations under a loop of down and up."""
    migrate_under_loop(vm, vf, _updown_loop(vf.ifname), STOP, "downs and ups",
                       2 * LOOP_MIGRATIONS, after_loop=f"ip link set dev {vf.ifname} up")


def _long_hold(vm, vf, how: str, irqs_after: int):
    """`ip link set @how` while the host holds the device for LONG_MS: it
    returns at once, the driver does nothing yet, and once the device is
    back the driver follows (its interrupt is freed or taken)."""
    irqs_before = 1 - irqs_after
    assert _irqs(vm, vf.ifname) == irqs_before
    before = ethtool_stats(vm, vf.ifname)
    mig = vm.start(f"{ECHO} 'blackout_ms={LONG_MS}' > {DBG}/{vf.bdf}/migrate", timeout=120)
    # ethtool answers -EBUSY at once while the host holds the device
    out = vm.run(f"i=0; while ethtool -i {vf.ifname} >/dev/null 2>&1; do "
                 "i=$((i+1)); [ $i -lt 500 ] || break; sleep 0.01; done; "
                 "echo held=$((i < 500)); " + _timed(f"ip link set dev {vf.ifname} {how}")
                 + f"; grep -cw {vf.ifname}-rx-0 /proc/interrupts", timeout=60, check=False).out
    r = mig.wait(check=False)
    res = result(vm, vf)
    print(f"{how} during a {LONG_MS} ms hold: {out.split()}, migration: rc={r.rc} {res}")
    assert r.rc == 0 and res["status"] == "ok", res
    held, timed, irqs_held = out.strip().splitlines()
    assert held == "held=1", f"the host never held the device: {out}"
    kvs = dict(x.split("=") for x in timed.split())
    assert kvs["rc"] == "0", f"{how} refused while held: {out}"
    assert int(kvs["ms"]) < CHANGE_MAX_MS, f"{how} waited for the host: {out}"
    assert int(irqs_held) == irqs_before, f"the driver touched the device while held: {out}"
    deadline = time.time() + 20
    while _irqs(vm, vf.ifname) != irqs_after and time.time() < deadline:
        time.sleep(0.2)
    assert _irqs(vm, vf.ifname) == irqs_after, f"the driver never went {how} after the hold"
    wait_restores(vm, vf, before["compsc_restores"] + 1)
    after = ethtool_stats(vm, vf.ifname)
    assert after["compsc_restores"] == before["compsc_restores"] + 1, after
    assert after["compsc_cfg_deferred"] - before["compsc_cfg_deferred"] >= 1, after
    assert after["compsc_resets"] == before["compsc_resets"], after
