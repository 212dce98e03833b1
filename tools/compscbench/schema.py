"""Check a compsc-bench report against tools/compsc-bench.schema.json.

validate(report) -> list of error strings (empty = valid). It uses the
python3-jsonschema package when it is installed (Draft 2020-12) and always
runs the small checker below, which implements the subset of JSON Schema
the schema file uses (type, const, enum, required, properties,
additionalProperties: false, items, prefixItems, min/maxItems, minimum,
maximum, exclusiveMinimum, minProperties, local $ref), so the check works on
a machine without the package too.

    python3 -m compscbench.schema REPORT.json     (from tools/)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

SCHEMA_PATH = Path(__file__).resolve().parents[1] / "compsc-bench.schema.json"

_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
}


def load_schema() -> dict:
    return json.loads(SCHEMA_PATH.read_text())


def _resolve(root: dict, ref: str) -> dict:
    if not ref.startswith("#/"):
        raise ValueError(f"only local $ref supported: {ref}")
    node = root
    for part in ref[2:].split("/"):
        node = node[part]
    return node


def mini_validate(value, schema: dict, root: dict = None, path: str = "$") -> list[str]:
    """The small checker alone (see the module docstring)."""
    root = root if root is not None else schema
    errs: list[str] = []
    if "$ref" in schema:
        errs += mini_validate(value, _resolve(root, schema["$ref"]), root, path)
    t = schema.get("type")
    if t is not None:
        types = t if isinstance(t, list) else [t]
        if not any(_TYPES[x](value) for x in types):
            return errs + [f"{path}: {value!r:.60} is not of type {t}"]
    if "const" in schema and value != schema["const"]:
        errs.append(f"{path}: {value!r:.60} is not {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        errs.append(f"{path}: {value!r:.60} is not one of {schema['enum']}")
    num = _TYPES["number"](value)
    if num and "minimum" in schema and value < schema["minimum"]:
        errs.append(f"{path}: {value} < minimum {schema['minimum']}")
    if num and "maximum" in schema and value > schema["maximum"]:
        errs.append(f"{path}: {value} > maximum {schema['maximum']}")
    if num and "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
        errs.append(f"{path}: {value} <= exclusiveMinimum {schema['exclusiveMinimum']}")
    if isinstance(value, dict):
        for k in schema.get("required", []):
            if k not in value:
                errs.append(f"{path}: '{k}' is a required property")
        props = schema.get("properties", {})
        for k, v in value.items():
            if k in props:
                errs += mini_validate(v, props[k], root, f"{path}.{k}")
            elif schema.get("additionalProperties") is False:
                errs.append(f"{path}: additional property '{k}' not allowed")
        if len(value) < schema.get("minProperties", 0):
            errs.append(f"{path}: fewer than {schema['minProperties']} properties")
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            errs.append(f"{path}: fewer than {schema['minItems']} items")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            errs.append(f"{path}: more than {schema['maxItems']} items")
        prefix = schema.get("prefixItems", [])
        for i, item in enumerate(value):
            sub = prefix[i] if i < len(prefix) else schema.get("items")
            if isinstance(sub, dict):
                errs += mini_validate(item, sub, root, f"{path}[{i}]")
    return errs


def jsonschema_validate(value, schema: dict):
    """Errors from python3-jsonschema, or None if it is not installed."""
    try:
        import jsonschema
    except ImportError:
        return None
    v = jsonschema.Draft202012Validator(schema)
    return [f"{e.json_path}: {e.message[:200]}" for e in v.iter_errors(value)]


def validate(value, schema: dict = None) -> list[str]:
    schema = schema or load_schema()
    errs = mini_validate(value, schema)
    js = jsonschema_validate(value, schema)
    if js:
        errs += [f"jsonschema: {e}" for e in js]
    return errs


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
