"""The guest control channel is reliable: hundreds of commands, exit codes, binary data, concurrency, timeouts."""

import os
import time

import pytest

from compsc_harness.vm import GuestCommandError, GuestTimeout


def test_guest_agent(vm, measure):
    t0 = time.monotonic()
    for i in range(300):
        assert vm.run(f"echo {i}; echo err{i} >&2").out == f"{i}\n"
    measure("300 sequential guest commands", time.monotonic() - t0, "s")

    r = vm.run("echo out; echo err >&2; exit 7", check=False)
    assert (r.rc, r.out, r.err) == (7, "out\n", "err\n")
    with pytest.raises(GuestCommandError):
        vm.run("false")

    blob = os.urandom(256 * 1024)
    vm.put("/tmp/blob", blob)
    assert vm.run("md5sum < /tmp/blob").out.split()[0] == __import__("hashlib").md5(blob).hexdigest()
    assert vm.run("cat", stdin=b"x\0y\n").out == "x\0y\n"

    # Several commands in flight; replies come back matched to their request.
    pend = [vm.start(f"sleep 0.{9 - i}; echo {i}") for i in range(8)]
    assert [p.wait().out for p in pend] == [f"{i}\n" for i in range(8)]

    # A timeout kills the whole process group and the channel carries on.
    t0 = time.monotonic()
    with pytest.raises(GuestTimeout):
        vm.run("sleep 100 & sleep 100; echo never", timeout=1)
    assert time.monotonic() - t0 < 20
    assert vm.run("echo alive").out == "alive\n"
