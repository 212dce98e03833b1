"""Where an L2's vCPU spends the time after a migration (BENCH_E2E_PCSAMPLE=1).

A poor man's profiler for a TCG guest: HMP `info registers` on the
destination QEMU, over one QMP session held open, as fast as it answers
(a few ms apart), gives the vCPU's RIP and whether it is halted; `info jit`
every tenth sample gives how many translation blocks TCG has made. Under
TCG, RIP in the CPU state is written at translation-block exits, so a
sample names the block the vCPU is in, not the exact instruction.

The samples between the device's hand-back and the peer's first reply
are symbolized with the L2 kernel's System.map (module text is reported
as "[module]": the map does not cover it) and counted per function.
"""
import asyncio
import bisect
import collections
import re
import subprocess
import threading
import time
from pathlib import Path

RIP = re.compile(r"RIP=([0-9a-f]{16})")
_HLT = re.compile(r"HLT=(\d)")
_TBS = re.compile(r"TB count\s+(\d+)")


class DstSampler(threading.Thread):
    """Samples the L2 QEMU on QMP @port until stop(); .samples holds
    (host time, rip, halted) and .tbs (host time, TB count)."""

    def __init__(self, l1, port: int):
        super().__init__(daemon=True, name=f"pcsample-{port}")
        self.l1, self.port = l1, port
        self.samples: list = []
        self.tbs: list = []
        self.error = None
        self.resumed = None     # host time the RESUME event (vCPUs started) came
        self._halt = threading.Event()

    def run(self) -> None:
        try:
            asyncio.run(self._run())
        except Exception as e:  # noqa: BLE001 - reported with the results
            self.error = repr(e)

    async def _run(self) -> None:
        client = await self.l1._qmp_connect(self.port, 30, f"pcsample on port {self.port}")
        try:
            with client.listener("RESUME") as resume:
                await self._loop(client, resume)
        finally:
            await client.disconnect()

    async def _loop(self, client, resume) -> None:
        n = 0
        while not self._halt.is_set():
            if self.resumed is None and not resume.empty():
                await resume.get()
                self.resumed = time.time()
            regs = await self._hmp(client, "info registers")
            t = time.time()
            m = RIP.search(regs)
            if m:
                h = _HLT.search(regs)
                self.samples.append((t, int(m.group(1), 16), bool(h and h.group(1) == "1")))
            if n % 10 == 0:
                m = _TBS.search(await self._hmp(client, "info jit"))
                if m:
                    self.tbs.append((time.time(), int(m.group(1))))
            n += 1
            await asyncio.sleep(0.002)

    @staticmethod
    async def _hmp(client, line: str) -> str:
        return await asyncio.wait_for(
            client.execute("human-monitor-command", {"command-line": line}), 10)

    def stop(self) -> None:
        self._halt.set()
        self.join(15)


class SymTable:
    """(address, name) pairs, sorted, for address -> the name at or below."""

    def __init__(self, syms):
        syms = sorted(syms)
        self.addrs = [a for a, _ in syms]
        self.names = [n for _, n in syms]

    def entry(self, addr: int):
        """(address, name) of the last symbol at or below @addr; None
        below all."""
        i = bisect.bisect_right(self.addrs, addr) - 1
        return (self.addrs[i], self.names[i]) if i >= 0 else None

    def at(self, addr: int):
        """The name of the last symbol at or below @addr; None below all."""
        e = self.entry(addr)
        return e and e[1]


def text_symbols(system_map: Path) -> list:
    """(address, name) of each text symbol of a kernel's System.map."""
    return [(int(f[0], 16), f[2]) for f in
            (x.split() for x in system_map.read_text().splitlines())
            if len(f) == 3 and f[1] in "tTwW"]


class Symbols:
    """Text symbols of System.map, for RIP -> function."""

    def __init__(self, system_map: Path):
        self.table = SymTable(text_symbols(system_map))
        self.end = self.table.addrs[-1] if self.table.addrs else 0

    def name(self, rip: int) -> str:
        if rip >= 0xffffffffc0000000:
            return "[module]"
        name = self.table.at(rip)
        if name is None or rip > self.end + 0x100000:
            return "[unknown]"
        return name


class UserSymbols:
    """A user process's code, from l2-init's "l2map START END OFFSET PATH"
    lines (its r-xp mappings; ASLR off, so one run's list holds for the
    next L2 of the same image) and the same files on this host (@files:
    the L2's path -> the host's, else the same path). Names come from nm:
    the symbol table, else the dynamic one (a stripped libc)."""

    _MAP = re.compile(r"^l2map ([0-9a-f]+) ([0-9a-f]+) ([0-9a-f]+) (/\S+)", re.M)

    def __init__(self, console: str, files: dict):
        self.maps = []      # (start, end, load bias, short name, SymTable)
        for m in self._MAP.finditer(console):
            start, end, off = (int(m.group(i), 16) for i in (1, 2, 3))
            path = m.group(4)
            if any(start == x[0] for x in self.maps):
                continue    # the same list printed again (another boot)
            syms = self._nm(files.get(path, path))
            self.maps.append((start, end, start - off, Path(path).name,
                              SymTable(syms)))

    @staticmethod
    def _nm(path: str) -> list:
        """(value, name) of @path's functions; [] when unreadable.
        The value is the file's own address: in these PIE files the code
        segment's address equals its file offset."""
        for opt in ([], ["-D"]):
            r = subprocess.run(["nm", "--defined-only", *opt, path],
                               capture_output=True, text=True, check=False)
            syms = [(int(f[0], 16), f[2]) for f in (x.split() for x in r.stdout.splitlines())
                    if len(f) == 3 and f[1] in "tTwWiI"]
            if syms:
                return syms
        return []

    def name(self, rip: int):
        """"file:function" for an address in a listed mapping, else None."""
        for start, end, bias, short, table in self.maps:
            if start <= rip < end:
                return f"{short}:{table.at(rip - bias) or '?'}"
        return None


def _name(syms: Symbols, user, rip: int) -> str:
    return (user and rip < 0x800000000000 and user.name(rip)) or syms.name(rip)


def window(sampler: DstSampler, syms: Symbols, t0: float, t1: float, top: int = 12,
           user: "UserSymbols | None" = None) -> dict:
    """What the vCPU did between host times @t0 and @t1 (@user names a
    user process's addresses)."""
    inside = [s for s in sampler.samples if t0 <= s[0] <= t1]
    halted = sum(1 for s in inside if s[2])
    funcs = collections.Counter("[halted]" if h else _name(syms, user, rip)
                                for _, rip, h in inside)
    tb = [c for t, c in sampler.tbs if t0 - 0.2 <= t <= t1 + 0.2]
    return {"span_ms": round((t1 - t0) * 1000), "samples": len(inside),
            "halted_pct": round(100 * halted / len(inside)) if inside else None,
            "tbs_made": (tb[-1] - tb[0]) if len(tb) > 1 else None,
            "top": [[f, n] for f, n in funcs.most_common(top)]}
