#!/usr/bin/env python3
"""Replays one run of the end-to-end barge-in test (Tests/CLITests/NonLinearEchoBargeInTests) through
`jarvis-voice dsp`, to see what the capture chain's verdicts did in it.

The test keeps a slow run's files (its failure or known-issue message names the directory): what the
service's mic read (`NAME-heard.raw`: 16 kHz mono S16, echo included, as the paced test PCM delivered it)
and what its speaker played (`NAME-played.raw`: 48 kHz stereo S16); NAME is the test's room, `echo` (the
talker 1.5 s into the answer) or `onset` (the talker as the answer begins). The paced PCM's echo is rebuilt from
the played sound exactly as it makes it (the nearest 48 kHz sample at each capture instant, clipped,
high-passed), which finds the alignment of the two files; the mic less that echo is the talker. The
chain then runs on the mic and the played sound brought to 16 kHz as the service hears it (the reference,
aligned), and the script prints the talker's word onsets, the answer's stretches and the verdict runs
('1' near-end speech, 'p' possible near-end speech), in ms of the mic file. This way showed
that a verdict on the live echo came from the signal, not from the live chain: the same samples gave the
same verdict offline.

usage: .venv/bin/python replay_barge_in.py --binary PATH [--name echo|onset] DIR   (the venv `run.sh` creates)
"""
import argparse
import os
import subprocess

import numpy as np
import scipy.signal as ss
import soundfile as sf

from barge_in_sweep import RATE, loudspeaker


def onsets(x, threshold, quiet_blocks=5):
    """ms of each 10 ms block above `threshold` (RMS) after at least `quiet_blocks` below (the test's rule)."""
    block = RATE // 100
    power = np.array([np.mean(x[i:i + block] ** 2) for i in range(0, len(x) - block, block)])
    out, quiet = [], quiet_blocks
    for i, p in enumerate(power):
        if p > threshold ** 2:
            if quiet >= quiet_blocks:
                out.append(i * 10)
            quiet = 0
        else:
            quiet += 1
    return out, power


def stretches(power, threshold, gap_blocks=25):
    """(start ms, end ms) of the stretches with blocks above `threshold`, joined across gaps shorter than 250 ms."""
    on = np.flatnonzero(power > threshold ** 2)
    out = []
    for i in on:
        if out and i - out[-1][1] <= gap_blocks:
            out[-1][1] = i
        else:
            out.append([i, i])
    return [(int(a) * 10, (int(b) + 1) * 10) for a, b in out]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--name", default="echo", help="the test's room: the files' prefix")
    parser.add_argument("dir")
    args = parser.parse_args()
    heard = np.fromfile(os.path.join(args.dir, f"{args.name}-heard.raw"), dtype="<i2").astype(float)
    stereo = np.fromfile(os.path.join(args.dir, f"{args.name}-played.raw"), dtype="<i2").reshape(-1, 2).astype(np.int32)
    played = np.trunc(stereo.sum(axis=1) / 2)  # the paced PCM's link: the channels' mean, as C's integer division

    # Coarse lag from the played sound at 16 kHz, then the exact pick offset (48 kHz samples).
    reference_16k = ss.resample_poly(played, 1, 3)
    n = min(len(heard), len(reference_16k))
    lag = int(np.argmax(np.abs(ss.correlate(heard[:n], reference_16k[:n], mode="full", method="fft")))) - (n - 1)
    best = None
    for offset in range(-3 * lag - 6, -3 * lag + 7):
        index = 3 * np.arange(len(heard)) + offset
        picked = np.zeros(len(heard))
        ok = (index >= 0) & (index < len(played))
        picked[ok] = played[index[ok]]
        echo = np.round(loudspeaker(picked))
        error = np.sum((heard - echo) ** 2)
        if best is None or error < best[0]:
            best = (error, offset, echo)
    _, offset, echo = best
    talker = heard - echo
    reference = np.zeros(len(heard))
    index = np.arange(len(heard)) + offset // 3
    ok = (index >= 0) & (index < len(reference_16k))
    reference[ok] = reference_16k[index[ok]]

    mic_path, ref_path = os.path.join(args.dir, "replay-mic.wav"), os.path.join(args.dir, "replay-ref.wav")
    trace_path = os.path.join(args.dir, "replay-trace.txt")
    sf.write(mic_path, heard.astype(np.int16), RATE, subtype="PCM_16")
    sf.write(ref_path, np.clip(np.round(reference), -32768, 32767).astype(np.int16), RATE, subtype="PCM_16")
    subprocess.run([args.binary, "dsp", "--mic", mic_path, "--reference", ref_path, "--out",
                    os.path.join(args.dir, "replay-out.wav"), "--near-end-trace", trace_path], check=True)
    trace = open(trace_path).read().strip()
    runs, i = [], 0
    while i < len(trace):
        j = i
        while j < len(trace) and trace[j] == trace[i]:
            j += 1
        if trace[i] != "0":
            runs.append((trace[i], i * 16, j * 16))
        i = j

    print(f"echo rebuilt at pick offset {offset} (48 kHz samples); what it leaves of the mic where no one talks is "
          f"the talker and rounding")
    print("talker's word onsets (ms):", onsets(talker, 184)[0])
    print("the answer's echo (ms):", stretches(onsets(echo, 104)[1], 104))
    print("verdict runs (kind, from ms, to ms):", runs)


if __name__ == "__main__":
    main()
