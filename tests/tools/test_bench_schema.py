#!/usr/bin/env python3
"""make bench-schema: the committed compsc-bench report (a real run's
output, tests/tools/samples/bench-report.json) validates against
tools/compsc-bench.schema.json, and broken copies of it do not; the same
for make bench-dpdk's (bench-dpdk-report.json, compsc-dpdkbench.schema.json). No VM
needed; tests/vm/test_bench_json.py checks a fresh report the same way.

The validator is python3-jsonschema (Draft 2020-12, through
tools/compsc_harness/schema.py), required. Each broken copy must be refused
with the one error naming what was broken. Ends with "bench-schema: N
passed, N failed".
"""

import copy
import json
import sys
from pathlib import Path

import jsonschema
from compsc_harness import schema as S

REPO = Path(__file__).resolve().parents[2]

SAMPLE = REPO / "tests" / "tools" / "samples" / "bench-report.json"
# make bench-dpdk's report (tools/compsc-dpdkbench), a real run's too
DPDK_SAMPLE = REPO / "tests" / "tools" / "samples" / "bench-dpdk-report.json"
DPDK_SCHEMA = REPO / "tools" / "compsc-dpdkbench.schema.json"
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
    """(name, mutated copy, the one error the validator must give) triples:
    each copy is refused, at the place broken and for that reason alone."""
    def mut(name, fn, path, why):
        r = copy.deepcopy(report)
        fn(r)
        return name, r, f"{path}: {why}"
    m = next(iter(report["modes"]))
    ev = f"$.modes.{m}.events[0]"
    ncpu = len(report["modes"][m]["cpu"]["samples"])
    yield mut("missing summary", lambda r: r.pop("summary"),
              "$", "'summary' is a required property")
    yield mut("missing per-mode gap",
              lambda r: r["summary"]["per_mode"][m].pop("gap_ms_median"),
              f"$.summary.per_mode.{m}", "'gap_ms_median' is a required property")
    yield mut("unknown counters verdict",
              lambda r: r["summary"]["per_mode"][m].update(counters="maybe"),
              f"$.summary.per_mode.{m}.counters", "'maybe' is not one of")
    yield mut("unknown mode", lambda r: r["modes"].update(hotplug=r["modes"][m]),
              "$.modes", "Additional properties are not allowed ('hotplug' was unexpected)")
    yield mut("no events", lambda r: r["modes"][m].update(events=[]),
              f"$.modes.{m}.events", "[] should be non-empty")
    yield mut("event time as string",
              lambda r: r["modes"][m]["events"][0].update(t_start="1.0"),
              f"{ev}.t_start", "'1.0' is not of type 'number'")
    yield mut("state bytes as bool",
              lambda r: r["modes"][m]["events"][0].update(state_bytes=True),
              f"{ev}.state_bytes", "True is not of type 'integer', 'null'")
    yield mut("cpu over 100 %",
              lambda r: r["modes"][m]["cpu"]["samples"].append({"t": 1.0, "busy_pct": 140}),
              f"$.modes.{m}.cpu.samples[{ncpu}].busy_pct",
              "140 is greater than the maximum of 100")
    yield mut("wrong schema version", lambda r: r.update(schema=1),
              "$.schema", f"{report['schema']} was expected")
    yield mut("negative peer count",
              lambda r: r["modes"][m]["counters"].update(peer_sent=-1),
              f"$.modes.{m}.counters.peer_sent", "-1 is less than the minimum of 0")


def broken_dpdk(report):
    """As broken(), for a bench-dpdk report."""
    def mut(name, fn, path, why):
        r = copy.deepcopy(report)
        fn(r)
        return name, r, f"{path}: {why}"
    yield mut("dpdk: missing summary ratio",
              lambda r: r["summary"].pop("compsc_vs_bonding"),
              "$.summary", "'compsc_vs_bonding' is a required property")
    yield mut("dpdk: stats_exact as string",
              lambda r: r["summary"].update(stats_exact="yes"),
              "$.summary.stats_exact", "'yes' is not of type 'boolean', 'null'")
    yield mut("dpdk: unknown PF in a rate block",
              lambda r: r["rate"]["blocks"][0].update(pf="other"),
              "$.rate.blocks[0].pf", "'other' is not one of")


def check_report(what: str, schema: dict, report: dict, real: bool, broken_copies):
    """@schema is valid, @what's committed @report (a real run: @real)
    validates, and each broken copy is refused with the one error naming
    what was broken."""
    try:
        S.check_schema(schema)
        check(f"{what} schema is valid Draft 2020-12", True)
    except jsonschema.SchemaError as e:
        check(f"{what} schema is valid Draft 2020-12", False, str(e)[:300])
    check(f"{what} sample is a real run", real, f"sample does not look like {what} output")
    errs = S.validate(report, schema)
    check(f"{what} sample valid", not errs, "; ".join(errs[:5]))
    for name, r, want in broken_copies(report):
        errs = S.validate(r, schema)
        check(f"refused: {name}", len(errs) == 1 and errs[0].startswith(want),
              f"want [{want}...], got {errs[:5] or 'accepted'}")


def main():
    report = json.loads(SAMPLE.read_text())
    # modes, raw samples present
    check_report("compsc-bench", S.load_schema(), report,
                 report.get("tool") == "compsc-bench" and report["modes"]
                 and all(m["events"] for m in report["modes"].values()), broken)
    report = json.loads(DPDK_SAMPLE.read_text())
    # every mode ran
    check_report("bench-dpdk", json.loads(DPDK_SCHEMA.read_text()), report,
                 report.get("tool") == "compsc-dpdkbench" and report["rate"]["blocks"]
                 and len(report["modes"]) == 3
                 and all("error" not in m for m in report["modes"].values()), broken_dpdk)
    print(f"bench-schema: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
