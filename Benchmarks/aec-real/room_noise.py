"""Noisy-room variants of two real recordings in the cache: a kitchen's steady noise added to the mic.

fan: white noise through a 2nd-order Butterworth band-pass, 100 Hz - 3 kHz (an extractor hood's rush);
pink: pink noise (Paul Kellet's filter). Each at -36, -42 and -50 dBFS RMS, running from the first
sample, added to challenge-farend (far end only; the scorer mixes the real near end into it too) and
to the phone recording (its oracle still labels the near end). Seeded, so every run scores the same
files. Written as NOISE-on-far-end / NOISE-on-phone, which `--only 0woDOj,farend,iphone,...` does not
select; `run.sh --only on-far-end,on-phone` selects them.

Usage: room_noise.py CACHE
"""
import os
import sys

import numpy as np
import scipy.signal as ss
import soundfile as sf

SOURCES = {"challenge-farend": "far-end", "iphone": "phone"}
LEVELS = (36, 42, 50)


def shapes(n, rate, rng):
    white = rng.standard_normal(n)
    b, a = ss.butter(2, [100 / (rate / 2), 3000 / (rate / 2)], "band")
    yield "fan", ss.lfilter(b, a, white)
    yield "pink", ss.lfilter([0.049922035, -0.095993537, 0.050612699, -0.004408786],
                             [1, -2.494956002, 2.017265875, -0.522189400], white)


def main(cache):
    made = 0
    for source, label in SOURCES.items():
        mic_path = os.path.join(cache, source + "_mic.wav")
        if not os.path.exists(mic_path):
            print(f"room_noise: {source} is not in the cache; its noisy variants are skipped", file=sys.stderr)
            continue
        mic, rate = sf.read(mic_path, dtype="float64")
        ref, _ = sf.read(os.path.join(cache, source + "_ref.wav"), dtype="float64")
        oracle_path = os.path.join(cache, source + "_oracle.wav")
        oracle = sf.read(oracle_path, dtype="float64")[0] if os.path.exists(oracle_path) else None
        rng = np.random.default_rng(2)
        for shape, noise in shapes(len(mic), rate, rng):
            noise = noise / np.sqrt(np.mean(noise ** 2))
            for level in LEVELS:
                name = f"{shape}{level}-on-{label}"
                if os.path.exists(os.path.join(cache, name + "_mic.wav")):
                    continue
                noisy = np.clip(mic + noise * 10 ** (-level / 20), -1, 1)
                sf.write(os.path.join(cache, name + "_mic.wav"), noisy, rate, subtype="PCM_16")
                sf.write(os.path.join(cache, name + "_ref.wav"), ref, rate, subtype="PCM_16")
                if oracle is not None:
                    sf.write(os.path.join(cache, name + "_oracle.wav"), oracle, rate, subtype="PCM_16")
                made += 1
    if made:
        print(f"room_noise: {made} noisy-room variants written to {cache}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1])
