#!/usr/bin/env python3
"""Runs the toml-test suite's TOML 1.0 file list through jarvis-voice's TOML parser (via
`parse-dump toml`). Valid files must parse to the expected tagged JSON; invalid files must be
refused. In scope: every invalid file; valid files except those using what this configuration
parser deliberately refuses (dates/times and arrays of tables `[[...]]`, reported as syntax errors).

usage: compare_toml.py PARSE_DUMP TOML_TEST_DIR   (TOML_TEST_DIR holds tests/files-toml-1.0.0)"""
import json
import math
import os
import re
import subprocess
import sys

OUT_OF_SCOPE_TYPES = {"datetime", "datetime-local", "date-local", "time-local"}


def uses_unsupported(expected, source):
    if re.search(rb"^\s*\[\[", source, re.M):
        return True
    text = json.dumps(expected)
    return any(f'"type": "{t}"' in text for t in OUT_OF_SCOPE_TYPES)


def same(ours, want):
    if isinstance(want, dict) and set(want) == {"type", "value"} and isinstance(want["value"], str):
        if not (isinstance(ours, dict) and ours.get("type") == want["type"]):
            return False
        if want["type"] == "float":
            a, b = float(ours["value"]), float(want["value"])
            return (math.isnan(a) and math.isnan(b)) or a == b
        if want["type"] == "integer":
            return int(ours["value"]) == int(want["value"])
        return ours["value"] == want["value"]
    if isinstance(want, dict):
        return isinstance(ours, dict) and set(ours) == set(want) and all(same(ours[k], want[k]) for k in want)
    if isinstance(want, list):
        return isinstance(ours, list) and len(ours) == len(want) and all(same(a, b) for a, b in zip(ours, want))
    return False


def main():
    parse_dump, root = sys.argv[1], sys.argv[2]
    tests = os.path.join(root, "tests")
    with open(os.path.join(tests, "files-toml-1.0.0")) as f:
        listed = [line.strip() for line in f if line.strip().endswith(".toml")]
    paths = [os.path.join(tests, p) for p in listed]
    run = subprocess.run([parse_dump, "toml"], input="\n".join(paths) + "\n", capture_output=True, text=True, check=True)
    results = {r["file"]: r for r in map(json.loads, run.stdout.splitlines())}
    valid = [p for p in paths if "/valid/" in p]
    invalid = [p for p in paths if "/invalid/" in p]
    in_scope = ok = out_of_scope = 0
    for path in valid:
        with open(path, "rb") as f:
            source = f.read()
        with open(path[:-5] + ".json") as f:
            expected = json.load(f)
        if uses_unsupported(expected, source):
            out_of_scope += 1
            continue
        in_scope += 1
        result = results[path]
        if "value" in result and same(result["value"], expected):
            ok += 1
        else:
            print(f"valid FAIL {path}: {result.get('error', 'different value')}", file=sys.stderr)
    rejected = 0
    for path in invalid:
        if "error" in results[path]:
            rejected += 1
        else:
            print(f"invalid ACCEPTED {path}", file=sys.stderr)
    print(f"toml-test 1.0: valid {ok}/{in_scope} in scope ({out_of_scope} use dates/times or [[arrays of tables]]: refused by design)")
    print(f"toml-test 1.0: invalid {rejected}/{len(invalid)} rejected")


if __name__ == "__main__":
    main()
