"""How much echo any linear canceller could remove from a recording, and whether memoryless
non-linear terms of the reference (a Hammerstein model of a saturating loudspeaker) raise that.

Per STFT bin (512 points, hop 256), the least-squares filter of 10 frames over the aligned reference,
fitted on one half of the recording and scored on the other (both ways): the echo reduction of the
best time-invariant linear canceller, and the same with x², x³, tanh(3x), |x| or a clipped x added
as further channels (x: the reference scaled to its peak). Only for recordings whose far end plays
throughout and whose room does not change (the ReSpeaker music): a fixed filter says nothing about
recordings with double talk or a moving device.

    .venv/bin/python linear_ceiling.py [--only respeaker-music1,respeaker-music2]"""
import argparse
import importlib.util
import os

import numpy as np
from scipy.signal import correlate, stft

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("score", os.path.join(here, "score.py"))
score = importlib.util.module_from_spec(spec)
spec.loader.exec_module(score)

FFT, HOP, TAPS = 512, 256, 10
TERMS = {
    "x²": lambda x: x * x - np.mean(x * x),
    "x³": lambda x: x ** 3,
    "tanh(3x)": lambda x: np.tanh(3 * x),
    "|x|": lambda x: np.abs(x) - np.mean(np.abs(x)),
    "clip(x, 0.3)": lambda x: np.clip(x, -0.3, 0.3),
}


def spectra(x):
    return stft(x, nperseg=FFT, noverlap=FFT - HOP, boundary=None, padded=False)[2]


def aligned(mic, ref):
    """The reference delayed to the mic, less one hop so the filter stays causal."""
    rate = score.RATE
    n = min(len(mic), len(ref), 10 * rate)
    c = correlate(mic[:n], ref[:n], mode="full", method="fft")
    lags = np.arange(-n + 1, n)
    ok = (lags >= 0) & (lags < rate // 2)
    d = max(0, int(lags[ok][np.argmax(np.abs(c[ok]))]) - HOP)
    return np.concatenate([np.zeros(d), ref[: len(ref) - d]])


def ceiling(M, channels):
    """Echo reduction in dB of the per-bin least-squares filter, fitted on each half, scored on the other."""
    bins, frames = M.shape
    half = frames // 2
    held = residual = 0.0
    for k in range(2, bins):
        cols = []
        for X in channels:
            for tap in range(TAPS):
                col = np.zeros(frames, complex)
                col[tap:] = X[k, : frames - tap]
                cols.append(col)
        A = np.stack(cols, 1)
        y = M[k]
        for fit, test in ((slice(0, half), slice(half, frames)), (slice(half, frames), slice(0, half))):
            gram = A[fit].conj().T @ A[fit]
            ridge = 1e-6 * np.trace(gram).real / A.shape[1]
            h = np.linalg.solve(gram + ridge * np.eye(A.shape[1]), A[fit].conj().T @ y[fit])
            held += np.sum(np.abs(y[test]) ** 2)
            residual += np.sum(np.abs(y[test] - A[test] @ h) ** 2)
    return 10 * np.log10(held / residual)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="respeaker-music1,respeaker-music2")
    a = ap.parse_args()
    cache = os.path.join(here, "cache")
    print("| recording | linear | " + " | ".join(f"+ {t}" for t in TERMS) + " |")
    print("|---|---|" + "---|" * len(TERMS))
    for name in a.only.split(","):
        mic = score.read(os.path.join(cache, f"{name}_mic.wav"))
        ref = score.read(os.path.join(cache, f"{name}_ref.wav"))
        n = min(len(mic), len(ref))
        mic, ref = mic[:n], aligned(mic[:n], ref[:n])
        x = ref / (np.max(np.abs(ref)) + 1e-9)
        M, X = spectra(mic), spectra(x)
        row = [ceiling(M, [X])] + [ceiling(M, [X, spectra(f(x))]) for f in TERMS.values()]
        print(f"| {name} | " + " | ".join(f"{v:.1f}" for v in row) + " |", flush=True)


if __name__ == "__main__":
    main()
