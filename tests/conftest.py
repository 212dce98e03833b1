"""pytest hook shared by the VM, nested and soak suites: a guest that
stalled fails its test with one line (which VM, what it was doing, where
the console log is) instead of a traceback through the bench's plumbing."""

import pytest

from compsc_harness.vm import GuestStalled


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    out = yield
    if call.excinfo is not None and call.excinfo.errisinstance(GuestStalled):
        out.get_result().longrepr = f"{item.nodeid}: {call.excinfo.value}"
