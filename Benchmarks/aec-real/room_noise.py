"""Noisy-room variants of two real recordings in the cache: a kitchen's steady noise added to the mic.

fan: white noise through a 2nd-order Butterworth band-pass, 100 Hz - 3 kHz (an extractor hood's rush);
pink: pink noise (Paul Kellet's filter). Each at -36, -42 and -50 dBFS RMS, running from the first
sample, added to challenge-farend (far end only; the scorer mixes the real near end into it too) and
to the phone recording (its oracle still labels the near end). Seeded, so every run scores the same
files. Written as NOISE-on-far-end / NOISE-on-phone, which `--only 0woDOj,farend,iphone,...` does not
select; `run.sh --only on-far-end,on-phone` selects them.

Switched on: the same fan, a hood (the fan plus its blade-pass tone, 110 Hz and four harmonics, 6 dB
under the rush), a humming hood (the tone as loud as the rush), a running tap (white noise high-passed
at 500 Hz), a motor (a 230 Hz hum with four harmonics over the rush, as loud as it or 6 dB louder) and a
kettle's whistle (a 1.8 kHz tone over the steam's hiss), each at -36 and -42 dBFS, silent until 3 s into
the recording and then ramped up over 200 ms, as when someone switches it on while the
assistant talks. Written as NOISE-switched-on-far-end / NOISE-switched-on-phone (`--only switched-on`).

Usage: room_noise.py CACHE
"""
import os
import sys

import numpy as np
import scipy.signal as ss
import soundfile as sf

SOURCES = {"challenge-farend": "far-end", "iphone": "phone"}
LEVELS = (36, 42, 50)
SWITCHED_ON_LEVELS = (36, 42)
SWITCH_ON_SECONDS = 3
RAMP_SECONDS = 0.2


def unit(x):
    """`x` scaled to an RMS of 1."""
    return x / np.sqrt(np.mean(x ** 2))


def fan(white, rate):
    """An extractor fan's rush: `white` through a 2nd-order Butterworth band-pass, 100 Hz - 3 kHz."""
    b, a = ss.butter(2, [100 / (rate / 2), 3000 / (rate / 2)], "band")
    return ss.lfilter(b, a, white)


def shapes(n, rate, rng):
    white = rng.standard_normal(n)
    yield "fan", fan(white, rate)
    yield "pink", ss.lfilter([0.049922035, -0.095993537, 0.050612699, -0.004408786],
                             [1, -2.494956002, 2.017265875, -0.522189400], white)


def switched_on_shapes(n, rate, rng):
    rush = fan(rng.standard_normal(n), rate)
    yield "fan", rush
    t = np.arange(n) / rate
    rush, tone = unit(rush), unit(sum(np.sin(2 * np.pi * 110 * k * t + k) / k for k in range(1, 6)))
    yield "hood", rush + tone * 10 ** (-6 / 20)
    yield "hum", rush + tone
    b, a = ss.butter(2, 500 / (rate / 2), "high")
    yield "tap", ss.lfilter(b, a, rng.standard_normal(n))
    # A motor's 230 Hz hum: its fundamental and harmonics in the speech bands, as loud as the rush and 6 dB louder.
    hum = unit(sum(np.sin(2 * np.pi * 230 * k * t + k) / k for k in range(1, 6)))
    yield "motor", rush + hum
    yield "loudmotor", rush + hum * 2
    # A kettle's whistle: a tone gliding up from 1.8 kHz by 1 % a second, its level wavering a little, 12 dB
    # over the steam's hiss (white noise high-passed at 1 kHz).
    b, a = ss.butter(2, 1000 / (rate / 2), "high")
    hiss = unit(ss.lfilter(b, a, rng.standard_normal(n)))
    phase = 2 * np.pi * np.cumsum(1800 * (1 + 0.01 * t)) / rate
    waver = 1 + 0.1 * np.sin(2 * np.pi * 0.7 * t)
    yield "kettle", hiss + unit(np.sin(phase) * waver) * 10 ** (12 / 20)


def switch_on(n, rate):
    """0 before the switch-on, a 200 ms raised-cosine ramp, then 1."""
    env = np.zeros(n)
    start, ramp = int(SWITCH_ON_SECONDS * rate), int(RAMP_SECONDS * rate)
    env[start:start + ramp] = 0.5 - 0.5 * np.cos(np.pi * np.arange(ramp) / ramp)
    env[start + ramp:] = 1
    return env


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
        variants = [(f"{shape}{level}-on-{label}", unit(noise), level)
                    for shape, noise in shapes(len(mic), rate, rng) for level in LEVELS]
        rng = np.random.default_rng(3)
        env = switch_on(len(mic), rate)
        variants += [(f"{shape}{level}-switched-on-{label}", unit(noise) * env, level)
                     for shape, noise in switched_on_shapes(len(mic), rate, rng) for level in SWITCHED_ON_LEVELS]
        for name, noise, level in variants:
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
