"""MAC and VLAN filter changes during migrations: every change succeeds at
once, no hold grows past what the host asked for (nothing in the guest waits
for the host while holding RTNL), every migration is restored without a
reset, and the changes made while the host held the device reach the PF
and the device afterwards: the final MAC answers, the final VLAN carries
tagged traffic."""

import time

from compsc_harness.mig import (DBG, ECHO, LOOP_MIGRATIONS, compsc_vfs, ethtool_stats,  # noqa: F401
                       migrate_under_loop, result, wait_restores)
from compsc_harness.pf import vlan_arp

STOP = "/tmp/cfg-loop.stop"
VIDS = (201, 202, 203, 204)
# One migration held this long while the guest changes its MAC and adds a
# VLAN: each change must return well before the hand-back.
LONG_MS = 2500
CHANGE_MAX_MS = 1000
FINAL_MAC = "52:54:00:77:a1:fe"
FINAL_VID = 210


def _cfg_loop(ifname: str) -> str:
    """New MAC, add a VLAN, delete it, until STOP exists; count failures."""
    return (f"rm -f {STOP} /tmp/cfg-loop.err; n=0; f=0; i=0; while [ ! -e {STOP} ]; do "
            f"i=$((i+1)); v=$(({VIDS[0]} + i % {len(VIDS)})); "
            "mac=$(printf '52:54:00:77:a0:%02x' $((i % 250))); n=$((n+3)); "
            f"ip link set dev {ifname} address $mac 2>>/tmp/cfg-loop.err || f=$((f+1)); "
            f"ip link add link {ifname} name cv$v type vlan id $v 2>>/tmp/cfg-loop.err "
            "|| f=$((f+1)); "
            "ip link del cv$v 2>>/tmp/cfg-loop.err || f=$((f+1)); done; "
            'echo "changes=$n failed=$f"; cat /tmp/cfg-loop.err')


def _timed(cmd: str) -> str:
    """cmd, printing its rc and how long it took on the guest's clock (ms,
    10 ms steps: /proc/uptime; busybox's date has no %N)."""
    cs = "$(cut -d' ' -f1 /proc/uptime | tr -d .)"
    return (f"t0={cs}; {cmd}; rc=$?; t1={cs}; "
            'echo "rc=$rc ms=$(( (t1 - t0) * 10 ))"')


def _peer_sees(peer, vf) -> tuple[int, str]:
    """Ping the VF from a fresh ARP cache: replies, and the MAC learned."""
    peer.run(["ip", "neigh", "flush", "dev", peer.bridge], check=False)
    tr = peer.ping(vf.ip, count=5, interval=0.2)
    return tr.received, peer.run(["ip", "neigh", "show", vf.ip, "dev", peer.bridge]).out


def test_migrate_cfg_loop(vm, compsc_vfs, peer):
    vf = compsc_vfs[0]  # bench-setup gave it an administrator MAC: trust it
    vm.run("modprobe 8021q")
    vm.run(f"ip link set {vm.pf_if} vf {vf.index} trust on")
    try:
        _loop(vm, vf)
        _long_hold(vm, vf, peer)
    finally:
        vm.run(f"touch {STOP}; ip link del cv{FINAL_VID}", check=False)
        for v in VIDS:
            vm.run(f"ip link del cv{v}", check=False)
        vm.run(f"ip link set dev {vf.ifname} address {vf.mac}", check=False)
        vm.run(f"ip link set {vm.pf_if} vf {vf.index} trust off", check=False)
    assert vm.get(f"/sys/class/net/{vf.ifname}/address").strip() == vf.mac
    vm.wait_link(vf.ifname, 30)
    got, seen = _peer_sees(peer, vf)  # the peer had learned FINAL_MAC
    assert got == 5 and vf.mac in seen, f"{got}/5 replies at {vf.mac}, peer learned {seen!r}"


def _loop(vm, vf):
    """Back-to-back migrations under a loop of MAC and VLAN changes."""
    migrate_under_loop(vm, vf, _cfg_loop(vf.ifname), STOP, "MAC/VLAN changes",
                       3 * LOOP_MIGRATIONS)


def _long_hold(vm, vf, peer):
    """A MAC change and a new VLAN while the host holds the device for
    LONG_MS: both return at once, and both work once it is back."""
    before = ethtool_stats(vm, vf.ifname)
    mig = vm.start(f"{ECHO} 'blackout_ms={LONG_MS}' > {DBG}/{vf.bdf}/migrate",
                   timeout=120)
    addr = f"10.77.{FINAL_VID}.{10 + vf.index}"
    # ethtool answers -EBUSY at once while the host holds the device
    out = vm.run(f"i=0; while ethtool -S {vf.ifname} >/dev/null 2>&1; do "
                 "i=$((i+1)); [ $i -lt 500 ] || break; sleep 0.01; done; "
                 "echo held=$((i < 500)); "
                 + _timed(f"ip link set dev {vf.ifname} address {FINAL_MAC}") + "; "
                 + _timed(f"ip link add link {vf.ifname} name cv{FINAL_VID} "
                          f"type vlan id {FINAL_VID}"), timeout=60).out
    held, outs = out.split("\n", 1)[0], out.strip().splitlines()[1:]
    r = mig.wait(check=False)
    res = result(vm, vf)
    print(f"during a {LONG_MS} ms hold: {outs}, migration: rc={r.rc} {res}")
    assert r.rc == 0 and res["status"] == "ok", res
    assert held == "held=1", f"the host never held the device: {out}"
    assert len(outs) == 2, out
    for o in outs:
        kvs = dict(x.split("=") for x in o.split())
        assert kvs["rc"] == "0", f"change refused while held: {outs}"
        assert int(kvs["ms"]) < CHANGE_MAX_MS, f"a change waited for the host: {outs}"
    wait_restores(vm, vf, before["compsc_restores"] + 1)
    after = ethtool_stats(vm, vf.ifname)
    # both found the device held: this tested the deferred path
    assert after["compsc_cfg_deferred"] - before["compsc_cfg_deferred"] >= 2, after
    assert after["compsc_resets"] == before["compsc_resets"], after

    vm.run(f"ip addr add {addr}/24 dev cv{FINAL_VID} && ip link set cv{FINAL_VID} up")
    vm.wait_link(vf.ifname, 30)
    deadline = time.time() + 20
    while True:  # the task applies them right after the restore
        got, seen = _peer_sees(peer, vf)
        if (got == 5 and FINAL_MAC in seen) or time.time() > deadline:
            break
        time.sleep(0.5)
    assert got == 5 and FINAL_MAC in seen, \
        f"{got}/5 replies, peer learned {seen!r}, the guest set {FINAL_MAC}"
    assert vlan_arp(peer, FINAL_VID, addr) == 3, f"tagged frames on VLAN {FINAL_VID}"
