"""How concentrated each system's residual echo is over the far-end-only stretches: how many 10 ms hops
hold half (and 80 %) of it, and the loudest hops. Reads the outputs a `run.sh` pass left in WORK/run
(or WORK/run-warm with --warm); run it after run.sh.

    .venv/bin/python residual_spread.py [--warm] [--only NAME,NAME] [--systems chain,AEC3]"""
import argparse
import importlib.util
import os

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("score", os.path.join(here, "score.py"))
score = importlib.util.module_from_spec(spec)
spec.loader.exec_module(score)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--warm", action="store_true")
    ap.add_argument("--only", default="0woDOj,farend,iphone,respeaker,qJuAkf-dt-moving")
    ap.add_argument("--systems", default="chain,AEC3")
    a = ap.parse_args()
    work = os.path.join(here, "work")
    run = os.path.join(work, "run-warm" if a.warm else "run")
    print("| recording | system | echo reduction dB | hops holding 50 % / 80 % of the residual (of far-end-only hops) | loudest hops (s: % of the residual) |")
    print("|---|---|---|---|---|")
    for name, mic, _ref, far_only, _dt, _audible in score.scenes(os.path.join(here, "cache"), os.path.join(work, "spread"), a.only):
        if name.endswith("+ near end"):
            continue
        m = score.read(mic)
        mh = score.hop_energy(score.highpass(m))
        for system in a.systems.split(","):
            path = os.path.join(run, f"{name}.{system}.out.wav".replace(" ", "_"))
            if not os.path.exists(path):
                raise SystemExit(f"residual_spread: {path} is missing: run run.sh{' --warm' if a.warm else ''} first")
            o = score.read(path)[: len(m)]
            oh = score.hop_energy(score.highpass(np.pad(o, (0, len(m) - len(o)))))
            n = min(len(mh), len(oh), len(far_only))
            residual = oh[:n] * far_only[:n]
            total = residual.sum()
            order = np.argsort(residual)[::-1]
            share = np.cumsum(residual[order]) / total
            half, most = np.searchsorted(share, 0.5) + 1, np.searchsorted(share, 0.8) + 1
            loudest = ", ".join(f"{i * score.HOP / score.RATE:.2f}: {100 * residual[i] / total:.0f}" for i in order[:3])
            erle = 10 * np.log10(mh[:n][far_only[:n]].sum() / total)
            print(f"| {name} | {system} | {erle:.1f} | {half} / {most} (of {far_only[:n].sum()}) | {loudest} |")


if __name__ == "__main__":
    main()
