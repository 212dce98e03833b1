"""Fixtures for the VM suite: one peer + one booted VM with 2 VFs per session
(per pytest-xdist worker when the files run in parallel, mk/bench.mk).

The VM's PF is the 82576 (igb). A test that should also run on the 82599
model (the project's ixgbe and ixgbevf) is parametrised over the NICs:
@pytest.mark.parametrize("nic", list(NICS)) (compsc_harness.vm); its `vm` and
`peer` are then that NIC's, a second session VM with its own peer
namespace (the VMs' VFs have the same addresses), booted when a test
first needs it. Without COMPSC_QEMU_82599 (make vm-test sets it) the
82599 cases skip.

Tests that change the driver stack must leave the stock stack behind (use
vm.restore_stock() in a finally). Every test is followed by a scan of the
guest log for Oops/BUG/WARNING; a hit fails that test with the excerpt.
Measurements go through the `measure` fixture and are printed at the end
(and saved as build/vm/runs/<run-id>/measurements.json): timings under TCG
are reported, never asserted.
"""

import json
import os
from pathlib import Path

import pytest

from compsc_harness import vm as harness_vm
from compsc_harness.vm import NICS, Bench, Peer, VM

_measurements = []
# Under pytest-xdist each worker saves its measurements here at its end and
# the controller's summary prints them all (the workers have no terminal).
_SHARED = "COMPSC_MEASUREMENTS_DIR"


def pytest_configure(config):
    if not hasattr(config, "workerinput"):
        os.environ[_SHARED] = str(Bench().runs / "workers")


def pytest_sessionfinish(session):
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker and _measurements:
        out = Path(os.environ[_SHARED]) / f"{worker}.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(_measurements) + "\n")


def _all_measurements() -> list:
    found = list(_measurements)
    shared = Path(os.environ.get(_SHARED, "/nonexistent"))
    for f in sorted(shared.glob("*.json")):
        found += json.loads(f.read_text())
    return found


# The longest files (1-1.2 minutes each) start first, so that with two
# workers (make vm-test, VM_JOBS) neither ends alone on one of them.
LONGEST_FIRST = ("test_migrate_integrity.py", "test_shadow_swap.py",
                 "test_migrate_tcp.py", "test_guest_stall.py")


def pytest_collection_modifyitems(items):
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(LONGEST_FIRST)))


def pytest_report_header(config):
    b = Bench()
    return [f"compsc bench: run {harness_vm.RUN_ID}, kernel {b.kernel}, initrd {b.initrd}"]


@pytest.fixture(scope="session")
def bench():
    b = Bench()
    try:
        b.check()
    except harness_vm.BenchError as e:
        pytest.fail(str(e))
    if os.geteuid() != 0:
        pytest.fail("the VM suite needs root (network namespace, tap)")
    b.prune_runs(keep=10)
    return b


@pytest.fixture
def nic():
    """The PF model of the test's `vm`: igb, unless the test is
    parametrised over NICS."""
    return "igb"


def _session_peer():
    with Peer() as p:
        yield p


def _session_vm(bench, peer, measure_session, nic: str, name: str):
    try:
        bench.qemu_for(NICS[nic])
    except harness_vm.BenchError as e:     # no QEMU with the model
        pytest.skip(str(e))
    v = VM(peer=peer, name=name, bench=bench, nic=nic)
    try:
        measure_session(f"boot to agent ({nic})", v.boot_seconds, "s")
        v.setup_vfs(2)
        yield v
    finally:
        v.close(check=True)


@pytest.fixture(scope="session")
def peer_igb(bench):
    yield from _session_peer()


@pytest.fixture(scope="session")
def peer_82599(bench):
    yield from _session_peer()


@pytest.fixture(scope="session")
def vm_igb(bench, peer_igb, measure_session):
    yield from _session_vm(bench, peer_igb, measure_session, "igb", "session")


@pytest.fixture(scope="session")
def vm_82599(bench, peer_82599, measure_session):
    yield from _session_vm(bench, peer_82599, measure_session, "82599", "session-82599")


@pytest.fixture
def peer(request, nic):
    """The host peer of `vm`'s network."""
    return request.getfixturevalue(f"peer_{nic}")


@pytest.fixture
def vm(request, nic):
    """The session VM of the test's NIC, 2 VFs set up."""
    return request.getfixturevalue(f"vm_{nic}")


@pytest.fixture
def vfs(vm):
    """The VFs of the session VM on the stock igb + igbvf, re-created if an
    earlier test left the stack in another state."""
    ok = vm.run(
        "for m in igb igbvf; do [ -d /sys/module/$m ] && [ -z \"$(cat /sys/module/$m/taint)\" ]"
        " || exit 1; done;"
        " [ \"$(ls /sys/bus/pci/drivers/igbvf | grep -c '^0000:')\" = 2 ] &&"
        f" ip -br addr | grep -q ' {harness_vm.vf_ip(0)}/'", check=False).ok
    if not ok:
        vm.restore_stock(2)
    return vm.vf_status()


@pytest.fixture(autouse=True)
def _kernel_log_guard(request):
    """Fail the test if the guest kernel complained while it ran. If the
    session VM died, the test fails and the VM is booted again (with 2
    VFs) so the tests after it still run."""
    if "vm" not in request.fixturenames:
        yield
        return
    v = request.getfixturevalue("vm")
    mark = v.log_mark()
    yield
    try:
        v.check_kernel_log(since=mark)
        if not v.alive():
            raise harness_vm.BenchError(f"the session VM died during this test\n"
                                      f"{v.console()[-4000:]}")
    finally:
        if not v.alive():
            v.reboot()
            v.setup_vfs(2)


@pytest.fixture(scope="session")
def measure_session():
    def add(name, value, unit, test="session"):
        _measurements.append({"test": test, "name": name, "value": value, "unit": unit})
    return add


@pytest.fixture
def measure(request, measure_session):
    """measure(name, value, unit): record a number for the end-of-run report."""
    def add(name, value, unit):
        measure_session(name, value, unit, test=request.node.name)
        request.node.user_properties.append((name, f"{value} {unit}"))
    return add


def pytest_terminal_summary(terminalreporter):
    measurements = _all_measurements()
    if not measurements:
        return
    tr = terminalreporter
    tr.section("bench measurements (TCG: noisy, compare within one run)")
    for m in measurements:
        v = m["value"]
        v = f"{v:.3f}" if isinstance(v, float) else str(v)
        tr.write_line(f"{m['test']:<40} {m['name']:<36} {v:>12} {m['unit']}")
    out = Bench().runs / "measurements.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(measurements, indent=1) + "\n")
    tr.write_line(f"saved to {out}")
