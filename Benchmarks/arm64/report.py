#!/usr/bin/env python3
"""Turns Benchmarks/arm64/run.sh's job directory into its table.

Reads marks.txt ("LABEL start|end GUEST_EPOCH", in order), insncount.log (the plugin's
"insncount: mark N user U kernel K" lines, in the same order), memory.txt and turn.txt; then, from
profile.txt (the blocks each stretch executed) and maps.txt (the service's mappings), where the
instructions of the idle and radio stretches go, by function and by file.
Usage: report.py JOB_DIR SYSROOT
"""
import bisect
import collections
import re
import subprocess
import sys

# Assumed sustained instructions per cycle for this code (DSP loops, Swift, syscalls): an in-order
# dual-issue Cortex-A53 and an out-of-order Cortex-A72. Stated, not measured: one run on a real
# board calibrates them.
CORES = [
    ("Pi Zero 2 W core (Cortex-A53, 1.0 GHz, IPC 0.7)", 1.0e9 * 0.7),
    ("Pi 4 core (Cortex-A72, 1.5 GHz, IPC 1.2)", 1.5e9 * 1.2),
]
GOALS = {"idle": 0.3, "radio": 5.0, "turn": 15.0}  # percent of a Zero 2 W core
MEMORY_GOAL_MB = 48


def main(job, sysroot):
    marks = [line.split() for line in open(f"{job}/marks.txt") if line.strip()]
    counts = [tuple(int(v) for v in m.groups())
              for m in re.finditer(r"insncount: mark (\d+) user (\d+) kernel (\d+)", open(f"{job}/insncount.log").read())]
    if len(counts) != len(marks):
        sys.exit(f"report: {len(marks)} marks in marks.txt but {len(counts)} in insncount.log")
    stretches = {}
    for i in range(0, len(marks), 2):
        label = " ".join(marks[i][:-2])
        (_, u0, k0), (_, u1, k1) = counts[i], counts[i + 1]
        stretches[label] = (u1 - u0, k1 - k0, float(marks[i + 1][-1]) - float(marks[i][-1]))

    def rate(label):
        user, _, seconds = stretches[label]
        return user / seconds

    def percent(per_second, capacity):
        return 100 * per_second / capacity

    rows = []
    for name, key in [("capture chain: C: speexdsp echo + preprocess + 16->24 kHz resampler", "c-speexdsp"),
                      ("capture chain: Swift CaptureChain, plain (estimator and drift off)", "swift-plain"),
                      ("capture chain: Swift CaptureChain, full (the defaults)", "swift-full"),
                      ("media: MP3 decoding (libmpg123), 44.1 kHz stereo", "mp3-decode"),
                      ("media: MP3 decoding + resampling to 48 kHz (quality 3, as the service) + mixer", "mp3-mix")]:
        per_audio_second = (stretches[f"{key} 20"][0] - stretches[f"{key} 5"][0]) / 15
        rows.append((name, per_audio_second, None))
    c, plain = rows[0][1], rows[1][1]
    background = rate("background")
    idle, radio = rate("idle"), rate("radio")
    turn_user, _, window = stretches["turn"]
    conversation = conversation_seconds(f"{job}/turn.txt")
    turn = (turn_user - idle * (window - conversation)) / conversation if conversation else float("nan")
    rows += [
        ("system without the service (background)", background, None),
        ("service idle, whole system", idle, "idle"),
        ("radio playing, whole system", radio, "radio"),
        (f"spoken turn, whole system ({conversation:.1f} s conversation)", turn, "turn"),
    ]
    print("| stretch | aarch64 instructions per second | " + " | ".join(f"% of a {n}" for n, _ in CORES) + " | goal |")
    print("| --- | --- | " + " | ".join("---" for _ in CORES) + " | --- |")
    for name, per_second, goal in rows:
        cells = " | ".join(f"{percent(per_second, cap):.2f} %" for _, cap in CORES)
        verdict = ""
        if goal:
            ok = percent(per_second, CORES[0][1]) <= GOALS[goal]
            verdict = f"≤ {GOALS[goal]} % of a Zero 2 W core: {'met' if ok else 'MISSED'}"
        print(f"| {name} | {per_second / 1e6:.2f} M | {cells} | {verdict} |")
    print()
    print(f"Swift overhead of the capture chain, plain vs C: {100 * (plain / c - 1):+.1f} %")
    memory = dict(line.split(":")[0:2] for line in open(f"{job}/memory.txt").read().replace(" kB", "").splitlines())
    peak = int(memory["VmHWM"]) / 1024
    print(f"service resident memory: peak {peak:.1f} MB, now {int(memory['VmRSS']) / 1024:.1f} MB"
          f" (goal ≤ {MEMORY_GOAL_MB} MB: {'met' if peak <= MEMORY_GOAL_MB else 'MISSED'})")
    labels = [" ".join(m[:-1]) for m in marks]
    for stretch in ["idle", "radio"]:
        where_it_goes(job, sysroot, labels.index(f"{stretch} end") + 1, stretch)


def conversation_seconds(path):
    """From the first state change out of idle to the last one back to idle (journal, short-unix)."""
    start = end = None
    for line in open(path):
        stamp = float(line.split()[0])
        if "state: idle ->" in line and start is None:
            start = stamp
        if re.search(r"state: \S+ -> idle", line):
            end = stamp
    return (end - start) if start is not None and end is not None and end > start else 0.0


def where_it_goes(job, sysroot, end_mark, label):
    """The stretch ending at plugin mark END_MARK: its user instructions by file and by function."""
    blocks = collections.Counter()
    section = None
    for line in open(f"{job}/profile.txt"):
        if line.startswith("mark "):
            section = int(line.split()[1])
        elif section == end_mark:
            vaddr, insns, executions = line.split()
            blocks[int(vaddr, 16)] += int(insns) * int(executions)
    total = sum(blocks.values())
    mappings = []  # (start, end, path, load bias)
    bias = {}
    for line in open(f"{job}/maps.txt"):
        fields = line.split()
        if len(fields) < 6:
            continue
        start, end = (int(v, 16) for v in fields[0].split("-"))
        if int(fields[2], 16) == 0:
            bias.setdefault(fields[5], start)
        if "x" in fields[1]:
            mappings.append((start, end, fields[5]))
    symbols = {}
    by_file, by_function = collections.Counter(), collections.Counter()
    for address, count in blocks.items():
        hit = next(((s, e, p) for s, e, p in mappings if s <= address < e), None)
        if hit is None:
            by_file["(outside the service's code: other processes)"] += count
            continue
        path = hit[2]
        by_file[path] += count
        if path not in symbols:
            symbols[path] = load_symbols(f"{job}/jarvis-voice.unstripped" if path == "/usr/bin/jarvis-voice" else sysroot + path)
        starts, ends, names = symbols[path]
        offset = address - bias.get(path, 0)
        i = bisect.bisect_right(starts, offset) - 1
        name = "?" if i < 0 else names[i] if offset < ends[i] else f"internal code after {names[i]}"
        by_function[(path.rsplit("/", 1)[-1], name)] += count
    print(f"\nWhere the {label} stretch's {total / 1e6:.0f} M user instructions go, by file:")
    for path, count in by_file.most_common(8):
        print(f"  {100 * count / total:5.1f} %  {path}")
    print("and by function (the 15 largest):")
    for (path, name), count in by_function.most_common(15):
        print(f"  {100 * count / total:5.1f} %  {path}: {name[:150]}")


def load_symbols(path):
    """Sorted function starts, ends and demangled names (symbol table, else the dynamic symbols of a
    stripped library, whose internal functions then show as "internal code after" the one before)."""
    out = subprocess.run(["llvm-nm", "--defined-only", "-n", "-S", path], capture_output=True, text=True).stdout
    if not out.strip():
        out = subprocess.run(["llvm-nm", "-D", "--defined-only", "-n", "-S", path], capture_output=True, text=True).stdout
    entries = [line.split(None, 3) for line in out.splitlines()]
    entries = [(int(a, 16), int(z, 16), n) for a, z, t, n in (e for e in entries if len(e) == 4) if t in "tTwW"]
    names = subprocess.run(["swift-demangle", "--simplified", "--compact"], input="\n".join(n for _, _, n in entries),
                           capture_output=True, text=True).stdout.splitlines()
    if len(names) != len(entries):
        names = [n for _, _, n in entries]
    return [a for a, _, _ in entries], [a + z for a, z, _ in entries], names


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
