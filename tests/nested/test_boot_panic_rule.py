"""Which L2 consoles L2.wait_up() answers with a second boot: only a panic
in start_kernel(), before l2-init ran. Needs no VM."""
from pathlib import Path

from l2guest import early_boot_panic

# The tail of the console the failure printed on 2026-11-27 (nested.py
# printed its last 3000 characters, so it begins mid-line).
SEEN = (Path(__file__).parent / "data" / "l2-boot-panic.console").read_text()


def test_seen_panic_is_early():
    assert early_boot_panic(SEEN)


def test_panic_after_init_is_not():
    # l2-init had spoken: CompSC's module may have run, so no second boot
    assert not early_boot_panic("l2: up if=eth0 ip=10.0.0.2 iommu=none at 3.1\n" + SEEN)


def test_panic_outside_start_kernel_is_not():
    late = SEEN.replace("start_kernel+", "igbvf_probe+")
    assert not early_boot_panic(late)


def test_no_panic_is_not():
    assert not early_boot_panic(SEEN[:SEEN.find("Kernel panic")])
