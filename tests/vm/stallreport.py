"""pytest hook shared by the VM and nested suites: a guest that stalled
fails its test with one line (which VM, what it was doing, where the
console log is) instead of a traceback through the bench's plumbing.

conftest.py imports the hook by name; pytest collects it from there."""

import pytest

from compscvm import GuestStalled


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    out = yield
    if call.excinfo is not None and call.excinfo.errisinstance(GuestStalled):
        out.get_result().longrepr = f"{item.nodeid}: {call.excinfo.value}"
