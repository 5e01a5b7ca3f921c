#!/usr/bin/env python3
"""Plots an endurance run: memory, descriptors and threads, CPU, and per-turn latency over time.
Usage: plot.py RESULTS_DIR OUT.png [OTHER_RESULTS_DIR LABEL]
Reads samples.csv, turns.csv, faults.csv written by jarvis-voice-soak; with OTHER_RESULTS_DIR, that run's
anonymous memory is drawn dashed in the memory panel (e.g. the same hour on the code before a fix).
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

results, out = sys.argv[1], sys.argv[2]
other, other_label = (sys.argv[3], sys.argv[4]) if len(sys.argv) > 4 else (None, None)


def rows(name):
    path = os.path.join(results, name)
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return list(csv.DictReader(f))


samples = rows("samples.csv")
turns = rows("turns.csv")
faults = rows("faults.csv")
minutes = [float(r["t_s"]) / 60 for r in samples]

fig, axes = plt.subplots(4, 1, figsize=(8, 8.5), sharex=True)
memory, counts, cpu, latency = axes

for key, label in (("rss_kib", "RSS"), ("pss_kib", "PSS"), ("anon_kib", "anonymous")):
    memory.plot(minutes, [int(r[key]) / 1024 for r in samples], label=label, linewidth=1)
if other:
    with open(os.path.join(other, "samples.csv")) as f:
        other_samples = list(csv.DictReader(f))
    memory.plot([float(r["t_s"]) / 60 for r in other_samples], [int(r["anon_kib"]) / 1024 for r in other_samples],
                label=other_label, linewidth=1, linestyle="--", color="tab:red")
memory.set_ylabel("MiB")
memory.set_ylim(bottom=0)
memory.legend(loc="lower right", fontsize=8, ncol=4 if other else 3)
memory.set_title("jarvis-voice run: memory, descriptors, threads, CPU, per-turn latency", fontsize=10)

counts.plot(minutes, [int(r["fds"]) for r in samples], label="open fds", linewidth=1)
counts.plot(minutes, [int(r["threads"]) for r in samples], label="threads", linewidth=1)
counts.set_ylim(bottom=0)
counts.legend(loc="lower right", fontsize=8, ncol=2)

cpu_minutes, cpu_percent = [], []
for before, after in zip(samples, samples[1:]):
    wall = float(after["t_s"]) - float(before["t_s"])
    if wall > 0:
        cpu_minutes.append(float(after["t_s"]) / 60)
        cpu_percent.append(100 * (float(after["cpu_s"]) - float(before["cpu_s"])) / wall)
cpu.plot(cpu_minutes, cpu_percent, linewidth=1, color="tab:gray")
cpu.set_ylabel("CPU % of a core")
cpu.set_ylim(bottom=0)

markers = {"spoken": "o", "typed": "s", "barge_in": "^", "realtime_drop": "x"}
for kind, marker in markers.items():
    points = [(float(t["t_s"]) / 60, int(t["first_audio_ms"])) for t in turns if t["kind"] == kind and t["first_audio_ms"]]
    if points:
        latency.scatter(*zip(*points), marker=marker, s=18, label=kind)
lost = [float(t["t_s"]) / 60 for t in turns if t["ok"] != "1"]
for x in lost:
    latency.axvline(x, color="red", linewidth=0.8)
latency.set_ylabel("first audio, ms")
latency.set_ylim(bottom=0)
latency.set_xlabel("minutes since the radio started")
latency.legend(loc="lower right", fontsize=8, ncol=4)

for fault in faults:
    for axis in axes:
        axis.axvline(float(fault["t_s"]) / 60, color="tab:purple", linewidth=0.6, linestyle=":")
latency.text(0.01, 0.95, "dotted: stream restart, Jarvis down/up, SIGHUP; red: failed turn", transform=latency.transAxes,
             fontsize=7, va="top")
for axis in axes:
    axis.grid(alpha=0.3)
fig.tight_layout()
fig.savefig(out, dpi=72)
print(f"plot: {out}")
