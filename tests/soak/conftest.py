"""Fixtures of the debug-kernel checks (make debug-check): one host peer.
Every test here boots its own VM on the debug kernel (mk/debugkernel.mk)."""
import os

import pytest

from compsc_harness.vm import Bench, Peer


@pytest.fixture(scope="session")
def bench():
    b = Bench()
    b.check()
    if not b.debug:
        pytest.fail("these tests need the debug kernel: run them with make debug-check")
    if os.geteuid() != 0:
        pytest.fail("the VM bench needs root (network namespace, tap)")
    return b


@pytest.fixture(scope="session")
def peer(bench):
    with Peer() as p:
        yield p
