"""A guest that stops answering is reported in one line: which VM, what it
was doing, where its console log is (#16 item 7). The session VM is
really frozen (QMP `stop`: vCPUs and guest clocks halt, so the guest sees
no time jump) while a command waits for it, then resumed with `cont`: the
VM must carry on as before."""

import pytest

from compscvm import GuestStalled


def test_guest_stall_one_line(vm):
    vm.qmp("stop")
    try:
        with pytest.raises(GuestStalled) as ei:
            vm.start("echo thawed", timeout=1).wait()
    finally:
        vm.qmp("cont")
    msg = str(ei.value)
    assert "\n" not in msg, msg
    assert msg.startswith(f"guest {vm.name} stalled while running `echo thawed`"), msg
    assert f"console log: {vm.console_path}" in msg, msg
    assert vm.console_path.exists()
    # Resumed, the guest answers again.
    assert vm.run("echo back", timeout=60).out.strip() == "back"
