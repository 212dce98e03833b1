"""compsc-bench end to end: one migration and one reload under ping + TCP;
its fresh JSON report validates against tools/compsc-bench.schema.json and
the `make bench-migrate` line keeps its format."""

import json
import re
import subprocess
import sys
from pathlib import Path

from compsc_harness import schema

REPO = Path(__file__).resolve().parents[2]


def test_bench_json(bench, tmp_path, measure):
    out = tmp_path / "report.json"
    r = subprocess.run(
        [sys.executable, str(REPO / "tools" / "compsc-bench"), "--migrations", "1",
         "--traffic", "both", "--settle", "2", "--interval", "0.5",
         "--json", str(out), "--line"],
        capture_output=True, text=True, timeout=900)
    tail = f"--- stdout\n{r.stdout[-3000:]}\n--- stderr\n{r.stderr[-3000:]}"
    assert r.returncode == 0, tail
    last = r.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"bench-migrate: restore_vs_reload=\S+ loss=\S+ dup=\S+ state_bytes=\d+",
                        last), tail
    report = json.loads(out.read_text())
    errs = schema.validate(report)
    assert not errs, "\n".join(errs[:20])
    assert set(report["modes"]) == {"compsc", "reload"}
    for name, m in report["modes"].items():
        assert len(m["events"]) == 1, name
        assert m["ping"]["replies"], f"{name}: no ping replies recorded"
        assert m["tcp"]["samples"], f"{name}: no TCP intervals recorded"
    assert report["modes"]["compsc"]["events"][0]["state_bytes"] > 0
    assert report["guest_kernel_problems"] == []
    measure("compsc-bench wall time (1 event per mode)", report["wall_s"], "s")
