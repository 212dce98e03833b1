"""Fixtures of the nested suite: one host peer and one L1 per test module."""

import pytest

from compsc_harness.vm import Peer
from nested import L1

# The files that take longest go first: test_give_unreachable.py about 3
# minutes (it waits out the guest's bound on a hold), test_two_hosts.py
# and test_virsh_migrate.py about 2 each (two L1s, booted one after the
# other), the others here
# 1.5-2.5 with the L2s on KVM, L1's boot included, most others 0.5-1.
# With two files at a time (make nested-test, NESTED_JOBS) neither worker
# then ends alone on one of them.
LONGEST_FIRST = ("test_give_unreachable.py", "test_two_hosts.py", "test_virsh_migrate.py",
                 "test_migrate_broken_off.py",
                 "test_dpdk_nested.py", "test_shadow_nested.py",
                 "test_migrate_integrity.py", "test_shadow_virtio.py",
                 "test_migrate_busy_guest.py", "test_shadow_standby.py")


def pytest_configure(config):
    if config.getoption("numprocesses", None) and not hasattr(config, "workerinput"):
        config.pluginmanager.register(FailureTail(config), "compsc-failure-tail")


class FailureTail:
    """With workers (make nested-test), pytest prints a failure's
    traceback only when the whole suite ends: a run stopped before that
    (CI's time limit) keeps none. The main process prints each
    failure's tail the moment it comes."""
    TAIL = 4000

    def __init__(self, config):
        self.config = config

    def pytest_runtest_logreport(self, report):
        # an expected failure too: an xfail hides its traceback altogether,
        # and CI's one of 2026-12-03 (test_shadow_vf_virtio_vf, in its
        # 0.17 s setup) left nothing to tell what it was
        xfailed = report.skipped and hasattr(report, "wasxfail")
        if report.failed or xfailed:
            tr = self.config.pluginmanager.get_plugin("terminalreporter")
            what = "failed as expected (xfail)" if xfailed else "failed"
            tr.write_line(f"\n---- {report.nodeid} {what} ({report.when}); its tail:")
            tr.write_line(report.longreprtext[-self.TAIL:])


def pytest_collection_modifyitems(items):
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(LONGEST_FIRST)))


@pytest.fixture(scope="module")
def peer():
    with Peer() as p:
        yield p


@pytest.fixture(scope="module")
def l1(request, peer):
    # a module that moves an L2 to virtio-net says L1_UPLINK = True
    vm = L1(peer, uplink=getattr(request.module, "L1_UPLINK", False))
    try:
        vm.setup()
        yield vm
    finally:
        # the tests check L1's log themselves; on the debug kernels its
        # close also scans for leaks and every L2 console (nested.py)
        vm.close(check=vm.bench.debug)


@pytest.fixture(scope="module")
def bridged(l1):
    """A guest-shadow test's L1 with shadow_nested.bridge() done (its
    module says L1_UPLINK = True)."""
    from shadow_nested import bridge
    bridge(l1)
    return l1
