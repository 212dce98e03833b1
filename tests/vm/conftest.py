"""Fixtures for the VM suite: one peer + one booted VM with 2 VFs per session.

Tests that change the driver stack must leave the stock stack behind (use
vm.restore_stock() in a finally). Every test is followed by a scan of the
guest log for Oops/BUG/WARNING; a hit fails that test with the excerpt.
Measurements go through the `measure` fixture and are printed at the end
(and saved as build/vm/runs/<run-id>/measurements.json): timings under TCG
are reported, never asserted.
"""

import json
import os

import pytest

import compscvm
from compscvm import Bench, Peer, VM
from stallreport import pytest_runtest_makereport  # noqa: F401 (the hook)

_measurements = []


def pytest_report_header(config):
    b = Bench()
    return [f"compsc bench: run {compscvm.RUN_ID}, kernel {b.kernel}, initrd {b.initrd}"]


@pytest.fixture(scope="session")
def bench():
    b = Bench()
    try:
        b.check()
    except compscvm.BenchError as e:
        pytest.fail(str(e))
    if os.geteuid() != 0:
        pytest.fail("the VM suite needs root (network namespace, tap)")
    b.prune_runs(keep=10)
    return b


@pytest.fixture(scope="session")
def peer(bench):
    with Peer() as p:
        yield p


@pytest.fixture(scope="session")
def vm(bench, peer, measure_session):
    v = VM(peer=peer, name="session", bench=bench)
    try:
        measure_session("boot to agent", v.boot_seconds, "s")
        v.setup_vfs(2)
        yield v
    finally:
        v.close(check=True)


@pytest.fixture
def vfs(vm):
    """The VFs of the session VM on the stock igb + igbvf, re-created if an
    earlier test left the stack in another state."""
    ok = vm.run(
        "for m in igb igbvf; do [ -d /sys/module/$m ] && [ -z \"$(cat /sys/module/$m/taint)\" ]"
        " || exit 1; done;"
        " [ \"$(ls /sys/bus/pci/drivers/igbvf | grep -c '^0000:')\" = 2 ] &&"
        f" ip -br addr | grep -q ' {compscvm.vf_ip(0)}/'", check=False).ok
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
            raise compscvm.BenchError(f"the session VM died during this test\n"
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
    if not _measurements:
        return
    tr = terminalreporter
    tr.section("bench measurements (TCG: noisy, compare within one run)")
    for m in _measurements:
        v = m["value"]
        v = f"{v:.3f}" if isinstance(v, float) else str(v)
        tr.write_line(f"{m['test']:<40} {m['name']:<36} {v:>12} {m['unit']}")
    out = Bench().runs / "measurements.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(_measurements, indent=1) + "\n")
    tr.write_line(f"saved to {out}")
