"""Check a compsc-bench report against tools/compsc-bench.schema.json.

validate(report) -> list of error strings (empty = valid), from
python3-jsonschema (Draft 2020-12). The package is required: one real
validator, no second opinion from a hand-written subset of JSON Schema.

    PYTHONPATH=tools python3 -m compsc_harness.schema REPORT.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

try:
    import jsonschema
except ImportError as e:
    raise ImportError("compsc_harness.schema needs python3-jsonschema "
                      "(apt-get install python3-jsonschema, or .ci/install-deps.sh)") from e

SCHEMA_PATH = Path(__file__).resolve().parents[1] / "compsc-bench.schema.json"


def load_schema() -> dict:
    return json.loads(SCHEMA_PATH.read_text())


def check_schema(schema: dict) -> None:
    """Raise jsonschema.SchemaError unless @schema is valid Draft 2020-12."""
    jsonschema.Draft202012Validator.check_schema(schema)


def validate(value, schema: dict = None) -> list[str]:
    """Every error in @value against @schema (default: the report schema),
    as "<JSON path>: <message>", in the validator's order."""
    v = jsonschema.Draft202012Validator(schema or load_schema())
    return [f"{e.json_path}: {e.message[:200]}" for e in v.iter_errors(value)]


if __name__ == "__main__":
    bad = 0
    for f in sys.argv[1:]:
        errs = validate(json.loads(Path(f).read_text()))
        for e in errs:
            print(f"{f}: {e}")
        bad += bool(errs)
        if not errs:
            print(f"{f}: valid")
    sys.exit(1 if bad else 0)
