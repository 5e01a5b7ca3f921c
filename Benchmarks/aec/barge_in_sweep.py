#!/usr/bin/env python3
"""How soon the capture chain's near-end verdict hears a talker over a loud, non-linear loudspeaker echo,
at many alignments of his words with the assistant's answer.

The scene is the end-to-end barge-in test's room (Tests/CLITests/NonLinearEchoBargeInTests): the answer
played twice (the first time converges the canceller), its echo at the mic as loud as the talker,
soft-clipped (c*tanh(x/c), c = 0.2) and high-passed (200 Hz, 2nd-order Butterworth) as the paced test
PCM makes it, 8 ms late. The answer is made as the test's stand-in server sends it (espeak-ng, sox to
24 kHz) and as the service plays it (48 kHz) and hears it (16 kHz). Over the second answer the talker says
"wait, stop, what about tomorrow", starting every STEP ms; from one start to the next the second answer
also moves by 1 ms, so the starts meet it at every position of the chain's 16 ms frame in turn, as the
service's frames meet an answer wherever it happens to begin (a verdict on the echo can depend on it:
the possible verdict once started 0.9 s into this answer at 11 of the 16 positions and at none of the
one position, which an earlier sweep used). For each start, `jarvis-voice dsp --near-end-trace` gives the verdict per frame;
the latency is from his first sound to the first verdict that pauses the answer (the verdict or the
possible one, 'p' in the trace), and any such verdict before him is a false one.
Speech is made by espeak-ng and sox, as the tests make it (`aec_bench.speak`).

Then the product's rule (BargeInRule) in a closed loop: either verdict pauses the answer at once (the
speaker falls silent SILENT_AFTER_MS later: the playback loop's next wakeup, the period playing and the
fade, the rest of the device's queue taken back), the scene is
made again with the answer held from there, and the chain run again; 400 ms of near-end speech (the
verdict) in all stop the answer for good, and 500 ms without either let it go on where it paused (the answer then plays on,
later by the pause, and the loop goes on). Reported: when the answer stopped for good (ms after his first
sound), starts where it never did, and the pauses that let it go on.

usage: .venv/bin/python barge_in_sweep.py --binary PATH [--step MS] [--from MS] [--to MS] [--work DIR] [--verbose]
       [--json PATH]
       [--talker-voice V] [--talker-pitch P] [--answer-voice V] [--answer-pitch P]
(the venv `run.sh` creates)
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np
import scipy.signal as ss
import soundfile as sf

from aec_bench import FS as RATE, speak

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from barge_in_rule import (CONFIRMATION_MS, MINIMUM_SPEECH_MS, SILENT_AFTER_MS,  # noqa: E402
                           detector_runs, held, pause_outcome, verdict_ms)
from barge_in_rule import heard_ms as pausing_ms  # noqa: E402

ANSWER = ("You have a dentist appointment at ten in the morning, then lunch with Sam at noon, "
          "and the plumber comes at three in the afternoon. Remember to buy milk and bread on the way home.")
INTERRUPTION = "wait, stop, what about tomorrow"


def speech(text, work, name, voice="en-us", pitch=None):
    """espeak-ng (en-us unless told) at 16 kHz, in 16-bit sample units; `pitch` is espeak-ng's -p (0-99,
    its default 50)."""
    extra = () if pitch is None else ("-p", str(pitch))
    return speak(text, voice, os.path.join(work, name + ".wav"), extra) * 32768.0


def played_answer(work, voice="en-us", pitch=None):
    """The answer as the stand-in server sends it (24 kHz, SpeechSynthesis) and as the chain hears the
    service play it: 48 kHz out, 16 kHz in; in 16-bit sample units. `voice` and `pitch` as for `speech`."""
    extra = () if pitch is None else ("-p", str(pitch))
    x = speak(ANSWER, voice, os.path.join(work, "answer24k.wav"), extra, rate=24_000)
    return ss.resample_poly(ss.resample_poly(x, 2, 1), 1, 3) * 32768.0


def loudspeaker(played):
    """The paced test PCM's small loudspeaker (16-bit sample units in and out): c*tanh(x/c) on full scale 1,
    c = 0.2, then its 200 Hz high-pass (RBJ, Q = 1/sqrt(2))."""
    x = 0.2 * np.tanh(played / 32768.0 / 0.2)
    w = 2 * np.pi * 200 / RATE
    alpha, c = np.sin(w) / (2 * np.sqrt(0.5)), np.cos(w)
    a0 = 1 + alpha
    b = [(1 + c) / 2 / a0, -(1 + c) / a0, (1 + c) / 2 / a0]
    a = [1, -2 * c / a0, (1 - alpha) / a0]
    return ss.lfilter(b, a, x) * 32768.0


def loudspeaker_echo(played):
    """What the mic hears of `played`: the loudspeaker, 8 ms late."""
    delay = int(0.008 * RATE)
    return np.concatenate([np.zeros(delay), loudspeaker(played)[:-delay]])


def write_wav(path, samples):
    sf.write(path, np.clip(np.round(samples), -32768, 32767).astype(np.int16), RATE, subtype="PCM_16")


def onset(samples):
    """First 10 ms block above -45 dBFS."""
    block = RATE // 100
    for start in range(0, len(samples) - block, block):
        if np.mean(samples[start:start + block] ** 2) > 184 ** 2:
            return start
    return 0


def frame_samples(samples, trace):
    """The chain's frame in samples: one trace character per frame, the last one partly filled."""
    return int(round(samples / len(trace)))


def runs_after(trace, since_ms):
    """(on, off) ms of each run of a trace's verdict or possible verdict (what pauses) that ends after since_ms."""
    return [(a, b) for a, b in detector_runs(pausing_ms(trace)) if b > since_ms]


def closed_loop(run, trace, reference, talker_at, talker, heard_ms, from_ms):
    """Plays the product's pause / stop / resume rule against the chain, from `trace` (the scene as played):
    returns (ms after heard_ms the answer stopped for good or None, pauses that resumed)."""
    holds, since, resumed = [], from_ms, 0
    for _ in range(12):
        first = next(((a, b) for a, b in runs_after(trace, since) if b - max(a, since) >= CONFIRMATION_MS), None)
        if first is None:
            return None, resumed
        paused = max(first[0], since) + CONFIRMATION_MS
        open_hold = holds + [(paused + SILENT_AFTER_MS, 10_000)]
        trace = run(held(reference, open_hold, RATE), talker_at, talker)
        stopped, at = pause_outcome(verdict_ms(trace), pausing_ms(trace), paused)
        if stopped:
            return round(at - heard_ms), resumed
        resume = at
        holds.append((paused + SILENT_AFTER_MS, resume - paused))
        since, resumed = resume, resumed + 1
        trace = run(held(reference, holds, RATE), talker_at, talker)
    return None, resumed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--step", type=int, default=100, help="ms between the talker's starts")
    parser.add_argument("--from", dest="first", type=int, default=300,
                        help="ms into the answer of the first start (negative: before it)")
    parser.add_argument("--to", dest="last", type=int, help="ms into the answer after which no start is made")
    parser.add_argument("--work", default=".work/barge-in")
    parser.add_argument("--verbose", action="store_true", help="print each start's latency and false frames")
    parser.add_argument("--json", help="also write the summary to this file (sweep_pairings.sh reads it)")
    parser.add_argument("--talker-voice", default="en-us",
                        help="the talker's espeak-ng voice (the answer's is en-us: the same voice, pitch and all)")
    parser.add_argument("--talker-pitch", type=int, help="the talker's espeak-ng pitch, 0-99 (its default 50)")
    parser.add_argument("--answer-voice", default="en-us", help="the answer's espeak-ng voice")
    parser.add_argument("--answer-pitch", type=int, help="the answer's espeak-ng pitch, 0-99 (its default 50)")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)

    answer = played_answer(args.work, args.answer_voice, args.answer_pitch)
    talker = speech(INTERRUPTION, args.work, "interruption", args.talker_voice, args.talker_pitch)
    talker_start = onset(talker)
    mic_path, trace_path = os.path.join(args.work, "mic.wav"), os.path.join(args.work, "trace.txt")

    held_path = os.path.join(args.work, "held.wav")

    def run(playback, at, words):
        """The chain on the scene with this playback; returns its near-end trace (16 ms frames)."""
        mic = loudspeaker_echo(playback)
        mic[at:at + len(words)] += words
        write_wav(mic_path, mic)
        write_wav(held_path, playback)
        subprocess.run([args.binary, "dsp", "--mic", mic_path, "--reference", held_path,
                        "--out", os.path.join(args.work, "out.wav"), "--near-end-trace", trace_path],
                       check=True, stderr=subprocess.DEVNULL)
        return open(trace_path).read()

    latencies, stops, resumes, false_frames = [], [], 0, 0
    last_start = len(answer) - len(talker)
    if args.last is not None:
        last_start = min(last_start, args.last * RATE // 1000 + 1)
    for i, offset in enumerate(range(args.first * RATE // 1000, last_start, args.step * RATE // 1000)):
        second = len(answer) + RATE * 3 // 2 + i % 16 * RATE // 1000
        reference = np.concatenate([answer, np.zeros(second - len(answer)), answer, np.zeros(RATE * 3)])
        start = second + offset
        trace = run(reference, start, talker)
        frame = frame_samples(len(reference), trace)
        heard = (start + talker_start) // frame
        false_here = sum(trace[second // frame:heard].count(c) for c in "1p")
        false_frames += false_here
        first = min((i for i in (trace.find("1", heard), trace.find("p", heard)) if i >= 0), default=-1)
        latencies.append(None if first < 0 else (first - heard) * frame * 1000 // RATE)
        stopped, resumed = closed_loop(run, trace, reference, start, talker, (start + talker_start) * 1000 // RATE,
                                       second * 1000 // RATE)
        stops.append(stopped)
        resumes += resumed
        if args.verbose:
            print(f"start {offset * 1000 // RATE} ms: verdict after {latencies[-1]} ms, {false_here} false frames; "
                  f"stopped after {stopped} ms, {resumed} pause(s) resumed")

    found = [v for v in latencies if v is not None]
    late = sum(1 for v in latencies if v is None or v > 400)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"starts": len(latencies), "late": late, "median_ms": float(np.median(found)),
                       "p90_ms": float(np.percentile(found, 90)), "max_ms": max(found),
                       "false_frames": false_frames, "resumed_pauses": resumes}, f)
    print(f"talker starts: {len(latencies)} (every {args.step} ms over the answer); verdict latency median "
          f"{np.median(found):.0f} ms, 90th percentile {np.percentile(found, 90):.0f} ms, max {max(found):.0f} ms; "
          f"later than 400 ms or missed: {late}; verdict frames before the talker: {false_frames}")
    done = [v for v in stops if v is not None]
    if done:
        print(f"closed loop (pause at the verdict, stop after {MINIMUM_SPEECH_MS} ms of near-end speech): stopped for good "
              f"at {len(done)} of {len(stops)} starts, median {np.median(done):.0f} ms after his first sound, 90th "
              f"percentile {np.percentile(done, 90):.0f} ms, max {max(done):.0f} ms; never stopped: "
              f"{len(stops) - len(done)}; pauses that resumed: {resumes}")


if __name__ == "__main__":
    sys.exit(main())
