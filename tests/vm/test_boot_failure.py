"""A guest that fails to boot (no init) fails fast with the console log in the error, and QEMU is gone."""

import time

import pytest

from compsc_harness.vm import VM, BenchError


def test_boot_failure(bench):
    t0 = time.monotonic()
    with pytest.raises(BenchError) as ei:
        VM(name="noinit", bench=bench, append="rdinit=/nonexistent init=/nonexistent",
           boot_timeout=120)
    msg = str(ei.value)
    assert "Kernel panic" in msg, msg[-3000:]
    assert "QEMU exited" in msg
    assert time.monotonic() - t0 < 120
