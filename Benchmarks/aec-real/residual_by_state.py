"""Where the chain's residual echo is, by what its residual echo suppressor was doing: over the far-end-only
10 ms hops of each echo-only recording, the share of the residual and the echo reduction in the hops where the
far end played without speech's gaps (music, `SpeechLikeFarEnd.isSteady`) or with them, each split by whether
the suppression eased for a talker (`jarvis-voice dsp --suppressor-trace`). Runs the binary itself.

    .venv/bin/python residual_by_state.py --binary PATH [--warm] [--only NAME,NAME]"""
import argparse
import importlib.util
import os
import subprocess

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("score", os.path.join(here, "score.py"))
score = importlib.util.module_from_spec(spec)
spec.loader.exec_module(score)

FRAME_MS = 16
STATES = [("M", "steady, not eased"), ("m", "steady, eased"), ("S", "speech-like, not eased"), ("s", "speech-like, eased"),
          ("-", "far end silent in the chain")]


def state_hops(trace, hops):
    """The trace character in force at each 10 ms hop (the frame holding the hop's middle)."""
    middle_ms = np.arange(hops) * 10 + 5
    index = np.minimum(middle_ms // FRAME_MS, len(trace) - 1)
    return np.array(list(trace))[index]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--warm", action="store_true")
    ap.add_argument("--only", default="respeaker")
    a = ap.parse_args()
    work = os.path.join(here, "work", "by-state" + ("-warm" if a.warm else ""))
    os.makedirs(work, exist_ok=True)
    print(f"{'Warm' if a.warm else 'Cold'}: share of the residual over far-end-only hops / echo reduction there (dB) / hops")
    print()
    print("| recording | echo reduction dB | " + " | ".join(label for _, label in STATES) + " |")
    print("|---|---|" + "---|" * len(STATES))
    for name, mic, ref, far_only, _dt, _audible in score.scenes(os.path.join(here, "cache"), work, a.only):
        if name.endswith("+ near end"):
            continue
        out, trace = os.path.join(work, name + ".out.wav"), os.path.join(work, name + ".states")
        cmd = [a.binary, "dsp", "--mic", mic, "--reference", ref, "--out", out, "--suppressor-trace", trace]
        r = subprocess.run(cmd + (["--warm"] if a.warm else []), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            raise SystemExit(f"residual_by_state: {' '.join(cmd)} failed ({r.returncode}): {r.stderr.strip()[-500:]}")
        m, o = score.read(mic), score.read(out)
        mh = score.hop_energy(score.highpass(m))
        oh = score.hop_energy(score.highpass(np.pad(o, (0, max(0, len(m) - len(o))))[: len(m)]))
        n = min(len(mh), len(oh), len(far_only))
        states = state_hops(open(trace).read().strip(), n)
        sel = far_only[:n]
        total = oh[:n][sel].sum()
        cells = []
        for char, _ in STATES:
            s = sel & (states == char)
            if not s.any():
                cells.append("–")
                continue
            share = 100 * oh[:n][s].sum() / total
            reduction = 10 * np.log10((mh[:n][s].sum() + 1e-9) / (oh[:n][s].sum() + 1e-9))
            cells.append(f"{share:.0f} % / {reduction:.1f} / {s.sum()}")
        overall = 10 * np.log10(mh[:n][sel].sum() / total)
        print(f"| {name} | {overall:.1f} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
