"""Where a silent L2 guest's vCPU is: a poor man's profiler over QMP.

pcsample.py samples bench-e2e's destination fast over one QMP session and
counts functions in a time window; this takes a few slow samples of a
guest that stopped answering, with stacks and module names, on the
same address table (pcsample.SymTable).

The small L2 kernel has no lockup detector, no sysrq and one CPU
(tests/nested/l2kernel.config), and a guest that falls silent prints
nothing. So the harness asks the guest's QEMU: N samples of the vCPU's RIP
(HMP "info registers") and, for a few of them, the kernel stack's words
that point into kernel or module text (HMP "x"), each named with the L2
kernel's System.map (not relocatable: no KASLR) and, for a module, its
objdump symbols at the .text base l2-init printed ("l2mod: KO ADDR", KO
the module's path under /lib/compsc, as nested.L2_KOS's keys).
"""
import os
import re
import subprocess
import time
from pathlib import Path

from pcsample import RIP, SymTable, text_symbols

KTEXT = 0xffffffff80000000   # kernel text starts above this
MODULES = 0xffffffffa0000000  # x86_64's module area, to MODULES_END
MODULES_END = 0xffffffffff000000


class Symbols:
    """Address -> "symbol+0xoff [module]" for the L2 kernel and modules
    (pcsample.Symbols, for bench-e2e's samples, names module text
    "[module]"; a silent guest may be in a module)."""

    def __init__(self, vmlinuz: str, kos: dict, console: str):
        syms, self.etext = [], MODULES
        smap = Path(vmlinuz).parents[3] / "System.map" if vmlinuz else None
        if smap and smap.is_file():
            text = text_symbols(smap)
            self.etext = next((a for a, name in text if name == "_etext"), MODULES)
            syms = [(a, (name, "")) for a, name in text]
        # the last boot's bases (a console may hold several boots)
        bases = dict(re.findall(r"l2mod: (\S+) (0x[0-9a-f]+)", console))
        for guest_ko, base in bases.items():
            if kos.get(guest_ko):
                syms += self._module(kos[guest_ko], int(base, 16), os.path.basename(guest_ko))
        self.table = SymTable(syms)

    @staticmethod
    def _module(ko: str, base: int, mod: str) -> list:
        out = subprocess.run(["objdump", "-t", ko], capture_output=True, text=True).stdout
        return [(base + int(m[1], 16), (m[2], f" [{mod}]")) for m in
                re.finditer(r"^([0-9a-f]+) .{7} \.text\s+[0-9a-f]+ (\S+)$", out, re.M)]

    def is_text(self, addr: int) -> bool:
        """In kernel or module text (a stack word that may be a return address)."""
        return KTEXT <= addr < self.etext or MODULES <= addr < MODULES_END

    def name(self, addr: int) -> str:
        if addr < KTEXT:
            return f"user {addr:#x}"
        e = self.table.entry(addr)
        if e is None:
            return f"{addr:#x}"
        start, (name, mod) = e
        return f"{name}+{addr - start:#x}{mod}"


def hmp(l1, port: int, cmd: str) -> str:
    return l1.qmp(port, "human-monitor-command", timeout=20, **{"command-line": cmd})


def samples(l1, port: int, syms: Symbols, n: int = 30, stacks: int = 3,
            every: float = 0.5) -> str:
    """@n RIP samples @every s apart, counted by function, and @stacks
    of them with the text addresses found in the top 512 bytes of the stack."""
    counts, lines = {}, []
    for i in range(n):
        regs = hmp(l1, port, "info registers")
        rip = int(RIP.search(regs)[1], 16)
        fn = syms.name(rip).split("+")[0]
        counts[fn] = counts.get(fn, 0) + 1
        if i < stacks:
            rsp = int(re.search(r"RSP=([0-9a-f]+)", regs)[1], 16)
            words = re.findall(r"0x([0-9a-f]{16})", hmp(l1, port, f"x /64gx {rsp:#x}"))
            chain = [syms.name(int(w, 16)) for w in words if syms.is_text(int(w, 16))]
            lines.append(f"stack {i}: RIP {syms.name(rip)} <- " + " <- ".join(chain[:24]))
        time.sleep(every)
    top = sorted(counts.items(), key=lambda kv: -kv[1])
    return "\n".join([f"RIP samples ({n}, {every} s apart): " +
                      ", ".join(f"{fn} x{c}" for fn, c in top), *lines])
