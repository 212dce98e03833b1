#!/usr/bin/env python3
"""make bench-schema: the committed compsc-bench report (a real run's
output, tests/tools/samples/bench-report.json) validates against
tools/compsc-bench.schema.json, and broken copies of it do not. No VM
needed; tests/vm/test_bench_json.py checks a fresh report the same way.

Both checkers run: python3-jsonschema when installed, and the small one in
tools/compscbench/schema.py. Ends with "bench-schema: N passed, N failed".
"""

import copy
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))

from compscbench import schema as S  # noqa: E402

SAMPLE = REPO / "tests" / "tools" / "samples" / "bench-report.json"
passed = failed = 0


def check(name, ok, why=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"PASS {name}")
    else:
        failed += 1
        print(f"FAIL {name}: {why}")


def broken(report):
    """(name, mutated copy) pairs every checker must refuse."""
    def mut(name, fn):
        r = copy.deepcopy(report)
        fn(r)
        return name, r
    anymode = next(iter(report["modes"]))
    yield mut("missing summary", lambda r: r.pop("summary"))
    yield mut("missing per-mode gap", lambda r: r["summary"]["per_mode"][anymode].pop("gap_ms_median"))
    yield mut("unknown counters verdict", lambda r: r["summary"]["per_mode"][anymode].update(counters="maybe"))
    yield mut("unknown mode", lambda r: r["modes"].update(hotplug=r["modes"][anymode]))
    yield mut("no events", lambda r: r["modes"][anymode].update(events=[]))
    yield mut("event time as string", lambda r: r["modes"][anymode]["events"][0].update(t_start="1.0"))
    yield mut("state bytes as bool", lambda r: r["modes"][anymode]["events"][0].update(state_bytes=True))
    yield mut("cpu over 100 %", lambda r: r["modes"][anymode]["cpu"]["samples"].append({"t": 1.0, "busy_pct": 140}))
    yield mut("wrong schema version", lambda r: r.update(schema=1))
    yield mut("negative peer count", lambda r: r["modes"][anymode]["counters"].update(peer_sent=-1))


def main():
    schema = S.load_schema()
    try:
        import jsonschema
        try:
            jsonschema.Draft202012Validator.check_schema(schema)
            check("schema is valid Draft 2020-12", True)
        except jsonschema.SchemaError as e:
            check("schema is valid Draft 2020-12", False, str(e)[:300])
        have_js = True
    except ImportError:
        print("note: python3-jsonschema not installed; the small checker only")
        have_js = False
    report = json.loads(SAMPLE.read_text())
    check("sample is a real run (modes, raw samples present)",
          report.get("tool") == "compsc-bench" and report["modes"]
          and all(m["events"] for m in report["modes"].values()),
          "sample does not look like compsc-bench output")
    errs = S.mini_validate(report, schema)
    check("sample valid (small checker)", not errs, "; ".join(errs[:5]))
    if have_js:
        errs = S.jsonschema_validate(report, schema)
        check("sample valid (jsonschema)", not errs, "; ".join(errs[:5]))
    for name, r in broken(report):
        check(f"refused: {name} (small checker)", S.mini_validate(r, schema), "accepted")
        if have_js:
            check(f"refused: {name} (jsonschema)", S.jsonschema_validate(r, schema), "accepted")
    print(f"bench-schema: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
