"""Fixtures of the nested suite: one host peer and one L1 per test module."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "vm"))
from compscvm import Peer  # noqa: E402
from nested import L1  # noqa: E402
from stallreport import pytest_runtest_makereport  # noqa: E402,F401 (hook)


@pytest.fixture(scope="module")
def peer():
    with Peer() as p:
        yield p


@pytest.fixture(scope="module")
def l1(peer):
    vm = L1(peer)
    try:
        vm.setup()
        yield vm
    finally:
        # the tests check L1's log themselves; on the debug kernels its
        # close also scans for leaks and every L2 console (nested.py)
        vm.close(check=vm.bench.debug)
