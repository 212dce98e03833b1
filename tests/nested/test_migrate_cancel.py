"""migrate_cancel mid-way leaves the source L2 running on its VF, with no CompSC restore and no driver reset."""
import time

from nested import Case


def _cancel(l1) -> None:
    time.sleep(3)
    l1.src.qmp("migrate_cancel")


def test_migrate_cancel(l1, peer):
    # 8 MiB/s: still copying when the cancel comes
    l1.run_case(peer, Case(expect="cancelled", params={"max-bandwidth": 8 << 20},
                           during=_cancel, timeout=60))
    l1.check_kernel_log()
