"""Each detector of the debug kernel reports a bug committed on purpose
(bench_bugs.ko) and the harness fails the run on that report; a run of
the CompSC stack with migrations under traffic reports nothing (kmemleak
scanned at the end)."""
import time

import pytest

from compsc_harness.mig import ethtool_stats, load_compsc, migrate
from compsc_harness.vm import VM, KernelProblem

BUGS = "/sys/kernel/debug/bench_bugs"
# kind -> what its report says (the scanner must flag it, and only it).
# In this order: lockdep switches itself off after any report that makes
# its state unreliable (KASAN's does), so it goes first, KASAN last.
SIGNS = {
    "lockdep": "possible circular locking dependency detected",
    "sleep": "BUG: sleeping function called from invalid context",
    "odebug": "ODEBUG: free active",
    "kfence": "BUG: KFENCE: use-after-free read",
    "kasan": "BUG: KASAN: slab-out-of-bounds",
}


def test_each_detector_fires(bench):
    ko = bench.build / "kmod" / "bench_bugs" / "bench_bugs.ko"
    assert ko.exists(), f"{ko} missing (make debug-initramfs builds it)"
    vm = VM(name="bugs", bench=bench, extra_files={"/lib/compsc/test/bench_bugs.ko": ko})
    try:
        vm.insmod("/lib/compsc/test/bench_bugs.ko")
        for kind, sign in SIGNS.items():
            mark = vm.log_mark()
            vm.run(f"echo 1 > {BUGS}/{kind}", timeout=120)
            time.sleep(1)  # the console catches up
            probs = vm.kernel_problems(since=mark)
            assert probs, f"{kind}: no report on the console"
            assert any(sign in p for p in probs), f"{kind}: {probs}"
            for other, s in SIGNS.items():
                assert other == kind or not any(s in p for p in probs), (kind, other, probs)
            print(f"detector {kind}: reported ({sign})")
        vm.run(f"echo 1 > {BUGS}/leak")
        time.sleep(6)  # kmemleak lists objects older than 5 s
    finally:
        with pytest.raises(KernelProblem) as ei:
            vm.close(check=True)
    assert "unreferenced object" in str(ei.value)
    assert "bench_bugs: deliberate leak" in str(ei.value) or "bench_bugs" in str(ei.value)
    print("detector kmemleak: reported the leak at close")


def test_clean_run_is_clean(bench, peer):
    """The CompSC stack on 2 vCPUs, migrations with a ping stream and a
    VLAN, MTU and multicast change between them: no report, no leak."""
    with VM(peer=peer, name="clean", smp=2, bench=bench) as vm:
        vf = load_compsc(vm)[0]
        vm.wait_link(vf.ifname, 60)
        with peer.ping_stream(vf.ip, interval=0.05):
            for i, change in enumerate([
                    f"ip link add link {vf.ifname} name vl100 type vlan id 100",
                    f"ip link set {vf.ifname} mtu 9000",
                    f"ip maddr add 01:00:5e:00:00:42 dev {vf.ifname}",
                    f"ip link del vl100 && ip link set {vf.ifname} mtu 1500 && "
                    f"ip maddr del 01:00:5e:00:00:42 dev {vf.ifname}"]):
                vm.run(change)
                migrate(vm, vf, blackout_ms=50 if i % 2 else 500)
                time.sleep(1)
        st = ethtool_stats(vm, vf.ifname)
        assert st["compsc_restores"] == 4 and st["compsc_resets"] == 0, st
        vm.run("rmmod compsc_standin")
        time.sleep(6)
    # leaving the block scanned with kmemleak and checked the console
