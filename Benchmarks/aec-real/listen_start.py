"""The first second of a conversation that starts over music: the chain that was only kept ready between
conversations, as `CaptureChain.track` (`jarvis-voice dsp --listen-at T`), against the chain that processed every frame
(`jarvis-voice dsp`), on the same recording, at every listen-start T of a grid.

Usage: listen_start.py --binary BIN [--warm] [--only NAME,NAME] [--step SECONDS] [--talker]

Per recording (the ReSpeaker music by default) and start T, over [T, T + 1 s]:
- echo reduction over far-end-only 10 ms hops (score.py's rule), dB;
- speech starts of Silero on the output from T on (the server VAD's rule, the detector fresh at T, as the
  server meets the uplink), counted where they begin within the first second: each would be a user turn
  on the music;
- with --talker: the real near-end recording (challenge-nearend) added from T + 100 ms at the echo's level
  (0 dB), and the part of the output linearly predictable from it over its speech in that second, dB (near
  end kept).
Both chains are deterministic; the output before T is silent with --listen-at (nobody listens).
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from score import (CHUNK, HOP, NEAR, RATE, erle, projection_gain, read, reference_active,  # noqa: E402
                   silero, vad_turns, write)


def run(binary, warm, mic, ref, out, listen_at=None):
    cmd = [binary, "dsp", "--mic", mic, "--reference", ref, "--out", out]
    if warm:
        cmd.append("--warm")
    if listen_at is not None:
        cmd += ["--listen-at", f"{listen_at:.3f}"]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.exit(f"listen_start: {' '.join(cmd)} failed: {r.stderr.strip()[-400:]}")
    return read(out)


def first_second_starts(out, t):
    """Server-VAD speech starts beginning within [t, t + 1 s] of `out`, the detector fresh at t."""
    start = int(t * RATE)
    prob = silero(out[start:start + 3 * RATE])
    return sum(1 for chunk, _, _ in vad_turns(prob) if chunk * CHUNK < RATE)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--cache", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "cache"))
    ap.add_argument("--only", default="respeaker-music1,respeaker-music2")
    ap.add_argument("--warm", action="store_true")
    ap.add_argument("--step", type=float, default=1.0)
    ap.add_argument("--talker", action="store_true")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="listen-start.")
    near_clip = read(os.path.join(args.cache, NEAR + "_mic.wav")) if args.talker else None
    near_speech = None
    if near_clip is not None:
        prob = silero(near_clip)
        near_speech = np.repeat(prob >= 0.5, CHUNK)[: len(near_clip)]
        near_speech = np.pad(near_speech, (0, len(near_clip) - len(near_speech)))
    print(f"{'warm' if args.warm else 'cold'}; each start T: the first second after it (always on / tracked until T)\n")
    print("| recording | starts | echo reduction dB, median (lowest) | tracked − always on, dB: median, lowest | "
          "server VAD starts in the first second | near end kept dB, median (lowest) |")
    print("|---|---|---|---|---|---|")
    for name in args.only.split(","):
        mic, ref = read(os.path.join(args.cache, name + "_mic.wav")), read(os.path.join(args.cache, name + "_ref.wav"))
        n = min(len(mic), len(ref))
        mic, ref = mic[:n], ref[:n]
        mp, rp = os.path.join(work, name + "_mic.wav"), os.path.join(work, name + "_ref.wav")
        write(mp, mic)
        write(rp, ref)
        hops = n // HOP
        far = reference_active(ref)[:hops]
        always = run(args.binary, args.warm, mp, rp, os.path.join(work, "always.wav"))
        rows = []
        t = args.step
        while t + 1.5 <= n / RATE:
            tracked = run(args.binary, args.warm, mp, rp, os.path.join(work, "tracked.wav"), t)
            window = np.zeros(hops, bool)
            window[int(t * RATE) // HOP:int((t + 1) * RATE) // HOP] = True
            e_always, e_tracked = erle(mic, always, far & window)[0], erle(mic, tracked, far & window)[0]
            s_always, s_tracked = first_second_starts(always, t), first_second_starts(tracked, t)
            k_always = k_tracked = float("nan")
            if near_clip is not None:
                start = int((t + 0.1) * RATE)
                seg = near_clip[: n - start]
                act = far.repeat(HOP)
                echo_rms = np.sqrt((mic[: len(act)][act] ** 2).mean())
                speech = near_speech[: len(seg)]
                seg = seg * (echo_rms / np.sqrt((seg[speech] ** 2).mean()))
                added = np.zeros(n)
                added[start:start + len(seg)] = seg
                sel = np.zeros(n, bool)
                sel[start:start + len(seg)] = speech
                sel[int((t + 1) * RATE):] = False
                dmp = os.path.join(work, "near_mic.wav")
                write(dmp, mic + added)
                out_a = run(args.binary, args.warm, dmp, rp, os.path.join(work, "near_always.wav"))
                out_t = run(args.binary, args.warm, dmp, rp, os.path.join(work, "near_tracked.wav"), t)
                k_always, k_tracked = projection_gain(added, out_a, sel), projection_gain(added, out_t, sel)
            rows.append((t, e_always, e_tracked, s_always, s_tracked, k_always, k_tracked))
            if os.environ.get("LISTEN_START_VERBOSE"):
                print(f"  {name} T={t:.1f}: {e_always:.1f} / {e_tracked:.1f} dB, starts {s_always} / {s_tracked}, "
                      f"near {k_always:.2f} / {k_tracked:.2f}", file=sys.stderr)
            t += args.step
        a = np.array([r[1] for r in rows])
        b = np.array([r[2] for r in rows])
        d = b - a
        ka = np.array([r[5] for r in rows])
        kb = np.array([r[6] for r in rows])
        near = (f"{np.nanmedian(ka):.2f} ({np.nanmin(ka):.2f}) / {np.nanmedian(kb):.2f} ({np.nanmin(kb):.2f})"
                if near_clip is not None else "")
        print(f"| {name} | {len(rows)} | {np.nanmedian(a):.1f} ({np.nanmin(a):.1f}) / {np.nanmedian(b):.1f} "
              f"({np.nanmin(b):.1f}) | {np.nanmedian(d):+.2f}, {np.nanmin(d):+.2f} | "
              f"{sum(r[3] for r in rows)} / {sum(r[4] for r in rows)} | {near} |")


if __name__ == "__main__":
    main()
