#!/usr/bin/env python3
"""schema-check.py [--invalid] SCHEMA_DIR FILE... -- validates each gcratchet JSON output against
the schema its format tag names (SCHEMA_DIR/<format>.json, docs/schema/), with python3-jsonschema.

Prints one line per file ("FILE: ok <format>", or each error with its JSON path) and exits 0
when every file is valid, 1 when one is not, 2 when a schema or a file cannot be read. With
--invalid, the other way round: 0 when every file is refused (a test of the schemas' reach).
Works with Debian 12's jsonschema (4.10, RefResolver) and later ones (the referencing
registry)."""
import glob
import json
import os
import sys
import warnings

import jsonschema


def load_schemas(folder):
    schemas = {}
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        with open(path, encoding="utf-8") as f:
            s = json.load(f)
        jsonschema.Draft202012Validator.check_schema(s)
        schemas[os.path.basename(path)[:-5]] = s
    return schemas


def validator_for(schema, schemas):
    try:
        from referencing import Registry, Resource
    except ImportError:
        Registry = None
    if Registry is not None:
        registry = Registry().with_resources(
            (s["$id"], Resource.from_contents(s)) for s in schemas.values())
        return jsonschema.Draft202012Validator(schema, registry=registry)
    store = {s["$id"]: s for s in schemas.values()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        resolver = jsonschema.RefResolver.from_schema(schema, store=store)
    return jsonschema.Draft202012Validator(schema, resolver=resolver)


def main(argv):
    want_invalid = len(argv) > 1 and argv[1] == "--invalid"
    if want_invalid:
        argv = argv[:1] + argv[2:]
    if len(argv) < 3:
        print("usage: schema-check.py [--invalid] SCHEMA_DIR FILE...", file=sys.stderr)
        return 2
    try:
        schemas = load_schemas(argv[1])
    except (OSError, ValueError, jsonschema.SchemaError) as e:
        print(f"{argv[1]}: {e}", file=sys.stderr)
        return 2
    bad = good = unread = 0
    for path in argv[2:]:
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            print(f"{path}: not JSON: {e}")
            unread += 1
            continue
        tag = doc.get("format") if isinstance(doc, dict) else None
        if tag not in schemas or tag == "common":
            print(f"{path}: no schema for format {tag!r} in {argv[1]}")
            bad += 1
            continue
        errors = sorted(validator_for(schemas[tag], schemas).iter_errors(doc),
                        key=lambda e: list(e.absolute_path))
        for e in errors:
            where = "".join(f"[{p!r}]" if isinstance(p, int) else f".{p}"
                            for p in e.absolute_path) or "(root)"
            print(f"{path}: {where}: {e.message}")
        if errors:
            bad += 1
        else:
            good += 1
            print(f"{path}: ok {tag}")
    if unread:
        return 2
    if want_invalid:
        return 1 if good else 0
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
