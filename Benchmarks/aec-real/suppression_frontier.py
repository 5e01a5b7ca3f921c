"""How much echo a per-band residual echo suppressor could remove on top of the chain's linear canceller,
for how much of a talker in double talk, if it knew the residual echo as well as the reference can tell it.

For each recording (default: the ReSpeaker music) and its double-talk mix (`score.scenes`: the real near
end added from 40 % of the recording at the echo's level), the chain without its suppressor
(`residual_echo_suppressor = false`) runs on both. Per band (24, as the product's suppressor), a
predictor of the residual's power from the reference's band powers (the same band over 16 hops of 8 ms,
or every band: `--cross`) and the linear filter's own echo estimate (the power of mic − its output, this
hop and the two before; on the mix it holds the talker's share too) is fitted by non-negative least
squares on the first 40 %, where nobody talks: an oracle learner no talker can mislead, which the
product is not. Over the remaining 60 % the product's gain rule, √(1 − a P / E) floored at 0.01 with E
the linear stage's band power, is applied at over-subtractions a to its outputs on the recording and on
the mix (where E holds the talker too), with who talks taken from nobody, the added talker exactly, the
chain's verdict or Silero. Each row gives the echo reduction over the far-end-only hops of that span
(`score.erle`'s mask) and the near end kept (`score.projection_gain` over the talker's speech), beside
what the chain (with its suppressor) and WebRTC AEC3 do on the same span of the same recording and mix.

    .venv/bin/python suppression_frontier.py --binary PATH [--warm] [--only respeaker] [--cross]"""
import argparse
import importlib.util
import os
import subprocess
import sys
import warnings

import numpy as np
from scipy.optimize import nnls
from scipy.signal import istft, stft

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("score", os.path.join(here, "score.py"))
score = importlib.util.module_from_spec(spec)
spec.loader.exec_module(score)

FFT, HOP, LAGS, FLOOR = 256, 128, 16, 0.01
OVER = [1, 4, 16, 64]


def spectra(x):
    return stft(x, nperseg=FFT, noverlap=FFT - HOP, boundary=None, padded=False)[2].T


def resynthesize(spec, n):
    with warnings.catch_warnings():  # the first and last half-window are not overlap-added; nothing scored there
        warnings.simplefilter("ignore", UserWarning)
        x = istft(spec.T, nperseg=FFT, noverlap=FFT - HOP, boundary=False)[1]
    return np.pad(x, (0, max(0, n - len(x))))[:n]


def band_edges(bins):
    """The product's 24 bands: 125 Hz wide to 1 kHz, then 16 per three octaves (ResidualEchoSuppressor)."""
    edges = [b * 125.0 if b <= 8 else min(8000.0, 1000 * 8 ** ((b - 8) / 16)) for b in range(25)]
    hz = np.arange(bins) * score.RATE / FFT
    return [np.flatnonzero((hz >= lo) & (hz < hi)) for lo, hi in zip(edges[:-1], edges[1:])]


def band_power(spec, bands):
    return np.stack([(np.abs(spec[:, b]) ** 2).sum(axis=1) for b in bands], axis=1) + 1e-12


def lagged(power, lags):
    return np.concatenate([np.roll(power, lag, axis=0) for lag in range(lags)], axis=1)


def product_gains(output, echo, talker=None, passes=False):
    """`ResidualEchoSuppressor.gain(output:echo:over:)` per band and hop (√(1 − Ê/E) floored; untouched where
    the output is more than `keepAbove` (2) times Ê), falling at once and recovering half-way per hop. With
    `talker` (a flag per hop), the product's easing for him where he is flagged: half the overestimation
    (β 3 -> 1.5) and a band he leaves untouched recovers at once; with `passes`, no suppression at all there."""
    flag = np.zeros(len(output), bool) if talker is None else talker[: len(output)]
    flag = np.pad(flag, (0, len(output) - len(flag)))
    echo = np.where(flag[:, None], echo / 2, echo)
    target = np.where(output > 2 * echo, 1.0, np.sqrt(np.clip(1 - echo / output, FLOOR ** 2, 1)))
    gains = np.empty_like(target)
    g = np.ones(target.shape[1])
    for t in range(len(target)):
        at_once = flag[t] & (target[t] == 1)
        g = np.where((target[t] < g) | at_once, target[t], 0.5 * (g + target[t]))
        gains[t] = 1 if passes and flag[t] else g
    return gains


def run(cmd):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--warm", action="store_true")
    ap.add_argument("--only", default="respeaker-music1,respeaker-music2")
    ap.add_argument("--cross", action="store_true", help="predict each band from every band's reference")
    a = ap.parse_args()
    work = os.path.join(here, "work", "frontier-warm" if a.warm else "frontier")
    os.makedirs(work, exist_ok=True)
    warm = ["--warm"] if a.warm else []
    no_res = os.path.join(work, "no-res.toml")
    with open(no_res, "w") as f:
        f.write("[dsp]\nresidual_echo_suppressor = false\n")
    scenes = {name: s for name, *s in score.scenes(os.path.join(here, "cache"), work, a.only)}
    print("| recording | system | echo reduction dB | near end kept dB |")
    print("|---|---|---|---|")
    for name, (mic_path, ref_path, far_only, _dt, _aud) in scenes.items():
        mix = scenes.get(name + " + near end")
        if name.endswith("+ near end") or mix is None:
            continue
        dt = mix[3]
        mic, ref = score.read(mic_path), score.read(ref_path)
        n = len(mic)
        start = int(0.4 * n)
        span = far_only.copy()
        span[: start // score.HOP] = False

        def output_path(m, system):
            return os.path.join(work, f"{os.path.basename(m)[:-8]}.{system}.wav")

        def outputs(system, cmd):
            """The system's outputs on the recording and on the mix, each `cmd(mic, out)`."""
            outs = []
            for m in (mic_path, mix[0]):
                out = output_path(m, system)
                run(cmd(m, out))
                outs.append(np.pad(score.read(out), (0, n))[:n])
            return outs

        def report(system, outs):
            print(f"| {name} | {system} | {score.erle(mic, outs[0], span)[0]:.1f} | "
                  f"{score.projection_gain(dt['added'], outs[1], dt['sel']):.2f} |")

        report("chain", outputs("chain", lambda m, o: [a.binary, "dsp", *warm, "--mic", m, "--reference", ref_path,
                                                       "--out", o, "--near-end-trace", o + ".trace"]))
        verdicts = [score.trace_ms(output_path(m, "chain") + ".trace")[::HOP * 1000 // score.RATE]
                    for m in (mic_path, mix[0])]
        report("AEC3", outputs("AEC3", lambda m, o: [sys.executable, os.path.join(here, "aec3.py"), *warm, "--mic", m,
                                                     "--reference", ref_path, "--out", o]))
        linear = outputs("linear", lambda m, o: [a.binary, "dsp", *warm, "--config", no_res, "--mic", m,
                                                 "--reference", ref_path, "--out", o])
        R = spectra(ref)
        bands = band_edges(R.shape[1])
        Y, Ymix = spectra(linear[0]), spectra(linear[1])
        yp, mixp = band_power(Y, bands), band_power(Ymix, bands)
        fit = slice(LAGS, start // HOP)
        features = lagged(band_power(R, bands), LAGS)
        # The linear filter's own echo estimate (mic − its output), this hop and the two before, on the
        # recording and on the mix (where the talker's share of the mic is in it too, as in the product).
        estimates = [lagged(band_power(spectra(m) - out, bands), 3)
                     for m, out in ((mic, Y), (score.read(mix[0])[:n], Ymix))]
        predicted = [np.empty_like(yp), np.empty_like(yp)]
        for b in range(len(bands)):
            own = features if a.cross else features[:, b::len(bands)]
            x = [np.concatenate([own, e[:, b::len(bands)]], axis=1) for e in estimates]
            coef, _ = nnls(x[0][fit], yp[fit, b])
            for p, xs in zip(predicted, x):
                p[:, b] = xs @ coef + 1e-12
        label = "oracle predictor, every band" if a.cross else "oracle predictor"
        report("linear stage alone", linear)
        # The talker's speech per STFT hop, widened by the product's 200 ms hangover.
        speech = dt["sel"][: len(Ymix) * HOP].reshape(-1, HOP).any(axis=1)
        talker = np.convolve(speech, np.ones(200 * score.RATE // 1000 // HOP), "full")[: len(speech)] > 0
        # Who is taken for a talker, on the recording and on the mix: nobody; the added talker exactly; the
        # chain's own near-end verdict (its trace: what the product's barge-in trusts); a neural voice detector
        # (Silero, speech probability >= 0.5) on the linear stage's output, which hears the music's residual too.
        flags = [("", None, None, False), (", the talker known (eased)", None, talker, False),
                 (", the talker known (passed)", None, talker, True),
                 (", the chain's verdict passed", *verdicts, True),
                 (", Silero on the linear stage's output passed",
                  *((score.silero(x) >= 0.5).repeat(score.CHUNK // HOP) for x in linear), True)]
        for how, on_echo, on_mix, passes in flags:
            for over in OVER:
                outs = []
                for out, power, flag, p in ((Y, yp, on_echo, predicted[0]), (Ymix, mixp, on_mix, predicted[1])):
                    gain = product_gains(power, over * p, flag, passes)
                    gain[: start // HOP] = 1
                    per_bin = np.ones(out.shape)
                    for b, idx in enumerate(bands):
                        per_bin[:, idx] = gain[:, b:b + 1]
                    outs.append(resynthesize(out * per_bin, n))
                report(f"{label}{how}, a = {over}", outs)


if __name__ == "__main__":
    main()
