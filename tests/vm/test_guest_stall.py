"""A guest that stops answering is reported in one line: which VM, what it
was doing, where its console log is (#16 item 7). The session VM is
really frozen (QMP `stop`: vCPUs and guest clocks halt, so the guest sees
no time jump) while a command it already runs waits for it, then resumed
with `cont`: the command must finish and the VM carry on as before.

The command is sent before the freeze, not during it: nothing is written
into the frozen guest's virtio-serial port (CI once lost the command sent
after a frozen one; see tests/vm/README.md)."""

import pytest

from compsc_harness.vm import GuestStalled


def test_guest_stall_one_line(vm):
    marker = "/tmp/stall-test.started"
    vm.run(f"rm -f {marker}")
    p = vm.start(f"touch {marker}; sleep 5; echo thawed", timeout=10)
    # The guest has the command before the freeze: it created the marker.
    vm.run(f"for i in $(seq 100); do [ -e {marker} ] && exit 0; sleep 0.1; done; exit 1")
    vm.qmp("stop")
    try:
        with pytest.raises(GuestStalled) as ei:
            p.wait()
    finally:
        vm.qmp("cont")
    msg = str(ei.value)
    assert "\n" not in msg, msg
    assert msg.startswith(f"guest {vm.name} stalled while running `touch {marker}"), msg
    assert f"console log: {vm.console_path}" in msg, msg
    assert vm.console_path.exists()
    # Resumed, the frozen command finishes (about 5 s of guest time were left)
    # and the guest answers new commands.
    assert p.wait().out.strip() == "thawed"
    assert vm.run("echo back", timeout=60).out.strip() == "back"
