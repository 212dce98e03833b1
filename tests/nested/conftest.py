"""Fixtures of the nested suite: one host peer and one L1 per test module."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "vm"))
from compscvm import Peer  # noqa: E402
from nested import L1  # noqa: E402
from stallreport import pytest_runtest_makereport  # noqa: E402,F401 (hook)

# The files that took longest (5-9 minutes each in the fresh-clone run of
# session 18; the others 2-4) go first: with two files at a time (make
# nested-test, NESTED_JOBS) neither worker then ends alone on one of them.
LONGEST_FIRST = ("test_shadow_nested.py", "test_dpdk_nested.py",
                 "test_migrate_broken_off.py", "test_migrate_busy_guest.py")


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
