#!/usr/bin/env python3
"""Checks that Benchmarks/barge_in_rule.py's copy of BargeInRule's defaults matches the Swift source
(Sources/Conversation/Engine/BargeInRule.swift).

Each `init` parameter of type Duration whose default is `.zero`, `.milliseconds(N)` or `.seconds(N)` is
read from the Swift file and compared with its Python constant in milliseconds; the Python file is parsed
with `ast`, not imported (it imports numpy). Parameters the benchmarks do not model (echoGuard,
serverTurnWait, any new one) are listed and skipped. SILENT_AFTER_MS is not a BargeInRule default (the
playback loop's next wakeup, the period playing, the fade) and is not checked; any other `*_MS` constant
in the Python file must be mapped here, or listed beside it.

Prints one line per value and exits 0 when they all agree; exits 1 with a message naming the constant,
the Swift value and the Python value on a mismatch, or when a mapped Swift parameter or Python constant
cannot be found or read (a rename fails here rather than passing).
usage: Benchmarks/check_barge_in_rule.py [--swift BargeInRule.swift] [--python barge_in_rule.py]
"""
import argparse
import ast
import pathlib
import re
import sys
from fractions import Fraction

root = pathlib.Path(__file__).resolve().parent.parent
SWIFT = root / "Sources/Conversation/Engine/BargeInRule.swift"
PYTHON = root / "Benchmarks/barge_in_rule.py"

# Swift parameter -> the Python constant that copies its default, in milliseconds.
MAPPED = {
    "confirmation": "CONFIRMATION_MS",
    "lookback": "LOOKBACK_MS",
    "minimumSpeech": "MINIMUM_SPEECH_MS",
    "resumeAfter": "RESUME_AFTER_MS",
    "possibleSpeechLimit": "POSSIBLE_SPEECH_LIMIT_MS",
}
# Python constants that are not BargeInRule defaults, and where they come from.
NOT_DEFAULTS = {
    "SILENT_AFTER_MS": "the playback loop's next wakeup, the period playing and the fade",
}


def fail(message):
    print(f"check_barge_in_rule: {message}", file=sys.stderr)
    sys.exit(1)


def display(path):
    try:
        return str(path.resolve().relative_to(root))
    except ValueError:
        return str(path)


def shown(ms, default):
    """A Swift default as written, with its milliseconds when it does not say them."""
    return default if ms is None or default == f".milliseconds({ms})" else f"{default} ({ms} ms)"


def swift_defaults(path):
    """{name: (milliseconds, default's text)} of the `init`'s Duration parameters."""
    text = re.sub(r"/\*.*?\*/", "", path.read_text(encoding="utf-8"), flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    inits = [m.end() for m in re.finditer(r"\binit\s*\(", text)]
    if len(inits) != 1:
        fail(f"{display(path)}: expected one `init(`, found {len(inits)}")
    depth, start = 1, inits[0]
    parameters, current = [], []
    for index in range(start, len(text)):
        c = text[index]
        depth += (c == "(") - (c == ")")
        if depth == 0:
            parameters.append("".join(current))
            break
        if c == "," and depth == 1:
            parameters.append("".join(current))
            current = []
        else:
            current.append(c)
    else:
        fail(f"{display(path)}: the `init(` parameter list does not close")
    durations = {}
    for parameter in (" ".join(p.split()) for p in parameters if p.strip()):
        m = re.fullmatch(r"(?:\w+ )?(\w+) ?: ?([^=]+?)(?: ?= ?(.+))?", parameter)
        if not m:
            fail(f"{display(path)}: cannot read the `init` parameter `{parameter}`")
        name, type_, default = m.groups()
        if type_ != "Duration":
            continue
        if default is None:
            durations[name] = (None, "no default")
            continue
        value = re.fullmatch(r"(?:Duration)?\.(?:(zero)|(milliseconds|seconds) ?\( ?([0-9_]+(?:\.[0-9_]+)?) ?\))",
                             default)
        if not value:
            fail(f"{display(path)}: cannot read {name}'s default `{default}` (.zero, .milliseconds(N) or .seconds(N))")
        zero, unit, number = value.groups()
        ms = Fraction(0) if zero else Fraction(number.replace("_", "")) * (1000 if unit == "seconds" else 1)
        if ms.denominator != 1:
            fail(f"{display(path)}: {name}'s default `{default}` is not a whole number of milliseconds")
        durations[name] = (int(ms), default)
    return durations


class Expression(str):
    """A constant's value that `ast.literal_eval` cannot read, as written."""


def python_constants(path):
    """{NAME: value} of the module-level constants; a value that is not a literal is its source text, in a str
    subclass (`Expression`)."""
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source, filename=str(path))
    constants, seen = {}, set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        if not isinstance(target, ast.Name):
            continue
        if target.id in seen:
            fail(f"{display(path)}: {target.id} is assigned more than once")
        seen.add(target.id)
        try:
            constants[target.id] = ast.literal_eval(value)
        except ValueError:
            constants[target.id] = Expression(ast.get_source_segment(source, value))
    return constants


def main():
    parser = argparse.ArgumentParser(description="BargeInRule's defaults against Benchmarks/barge_in_rule.py.")
    parser.add_argument("--swift", type=pathlib.Path, default=SWIFT,
                        help="BargeInRule.swift (default: the repository's)")
    parser.add_argument("--python", type=pathlib.Path, default=PYTHON,
                        help="barge_in_rule.py (default: the repository's)")
    args = parser.parse_args()
    swift, python = display(args.swift), display(args.python)
    durations = swift_defaults(args.swift)
    constants = python_constants(args.python)

    problems = []
    for name, constant in MAPPED.items():
        if name not in durations:
            problems.append(f"BargeInRule's init has no Duration parameter `{name}` (copied as {constant}) in {swift}")
            continue
        if constant not in constants:
            problems.append(f"{constant} (BargeInRule's {name}) is not assigned in {python}")
            continue
        ms, default = durations[name]
        value = constants[constant]
        if ms is None:
            problems.append(f"BargeInRule's {name} (copied as {constant}) has no default in {swift}")
        elif isinstance(value, Expression) or not isinstance(value, int) or isinstance(value, bool):
            written = f"`{value}`" if isinstance(value, Expression) else repr(value)
            problems.append(f"{constant} in {python} is {written}, not an integer literal; "
                            f"BargeInRule's {name} defaults to {ms} ms ({default})")
        elif value != ms:
            print(f"MISMATCH {constant} = {value} in {python}; BargeInRule {name} = {shown(ms, default)}")
            problems.append(f"{constant} is {value} in {python} but BargeInRule's {name} defaults to "
                            f"{ms} ms ({default}) in {swift}")
        else:
            print(f"ok       {constant} = {value} = BargeInRule {name} = {shown(ms, default)}")
    for name, (ms, default) in durations.items():
        if name not in MAPPED:
            print(f"skipped  BargeInRule {name} = {shown(ms, default)}: not modelled in {python}")
    for constant in sorted(constants):
        if constant in NOT_DEFAULTS:
            print(f"skipped  {constant} = {constants[constant]!r}: "
                  f"not a BargeInRule default ({NOT_DEFAULTS[constant]})")
        elif constant.endswith("_MS") and constant not in MAPPED.values():
            problems.append(f"{constant} in {python} is neither mapped to a BargeInRule parameter nor listed "
                            f"as not a default in {display(pathlib.Path(__file__))}")

    if problems:
        for problem in problems:
            print(f"check_barge_in_rule: {problem}", file=sys.stderr)
        sys.exit(1)
    print(f"check_barge_in_rule: {len(MAPPED)} constants in {python} match BargeInRule's defaults")


if __name__ == "__main__":
    main()
