#!/usr/bin/env python3
"""Echo-cancellation benchmark for `jarvis-voice dsp`.

Kitchen scene (pyroomacoustics ISM, 4.5 x 3.5 x 2.7 m, RT60 0.4 s), mic 8 cm above the loudspeaker,
talker ~3 m away. Far end: espeak-ng en-us speech 0-20 s. Near end: espeak-ng en-gb+f3 in double talk
8-13 s and alone 22-26 s. Pink noise. Levels at the mic: echo -20 dBFS, near -32 dBFS, noise -65 dBFS.
Everything is deterministic (fixed seeds, sox -D).

Metrics after a 100 Hz high-pass:
  ERLE conv / post: 10 log10(sum mic^2 / sum out^2) over far-end-only windows 3-8 s / 13.5-20 s.
  DT gain: level of the near-end component of the output (least-squares 512-tap two-sided FIR
           projection of out onto the clean near-end at the mic) relative to that near-end, 8-13 s.
  DT SDR:  projection energy over the rest of the output in 8-13 s (mic's own value in parentheses).
  NE gain / SDR: the same with the far end silent (22-26 s).
"""
import argparse, json, os, subprocess, sys, tempfile
import numpy as np
import scipy.signal as ss
import scipy.linalg as sl
import soundfile as sf
import pyroomacoustics as pra

FS = 16000
FAR_TEXT = ("Good evening. Here is the news. The city council met on Tuesday to discuss the new tram line, "
            "which will connect the harbour with the university by the end of next year. Engineers say the "
            "first tracks will be laid in spring, and traffic will be diverted around the old market square. "
            "In sport, the home team won their third match in a row after a late goal in the second half.")
NEAR_A = "Hey Jarvis, set a timer for ten minutes please."
NEAR_B = "And what is the weather like tomorrow morning?"


def speak(text, voice, path, extra=(), rate=FS):
    raw = path + ".22k.wav"
    subprocess.run(["espeak-ng", "-v", voice, "-s", "160", *extra, "-w", raw, text], check=True)
    subprocess.run(["sox", "-D", raw, "-r", str(rate), "-b", "16", "-c", "1", path], check=True)
    x, fs = sf.read(path, dtype="float64")
    assert fs == rate
    return x


def rms(x):
    return np.sqrt(np.mean(x ** 2) + 1e-30)


def pink(n, seed):
    rng = np.random.default_rng(seed)
    white = rng.standard_normal(n)
    f = np.fft.rfftfreq(n, 1 / FS)
    spec = np.fft.rfft(white)
    spec[1:] /= np.sqrt(f[1:])
    spec[0] = 0
    return np.fft.irfft(spec, n)


def scene(work):
    far = speak(FAR_TEXT, "en-us", os.path.join(work, "far.wav"))
    na = speak(NEAR_A, "en-gb+f3", os.path.join(work, "nearA.wav"), ["-p", "60"])
    nb = speak(NEAR_B, "en-gb+f3", os.path.join(work, "nearB.wav"), ["-p", "60"])
    n = 27 * FS
    far_sig = np.zeros(n)
    far = far[: 20 * FS]
    far_sig[: len(far)] = far
    near = np.zeros(n)
    a = na[: 5 * FS]
    near[8 * FS: 8 * FS + len(a)] = a
    b = nb[: 4 * FS]
    near[22 * FS: 22 * FS + len(b)] = b

    room_dim = [4.5, 3.5, 2.7]
    e_abs, max_order = pra.inverse_sabine(0.4, room_dim)
    room = pra.ShoeBox(room_dim, fs=FS, materials=pra.Material(e_abs), max_order=min(max_order, 64))
    room.add_source([0.6, 1.8, 1.0])  # loudspeaker on the counter
    room.add_source([3.6, 2.2, 1.6])  # talker, ~3 m away
    room.add_microphone([0.6, 1.8, 1.08])
    room.compute_rir()
    hp = ss.butter(4, 80, "highpass", fs=FS, output="sos")
    rir_spk = ss.sosfilt(hp, np.asarray(room.rir[0][0]))
    rir_talk = ss.sosfilt(hp, np.asarray(room.rir[0][1]))
    return far_sig, near, rir_spk, rir_talk


def make_case(far, near, rir_spk, rir_talk, lag_ms, ppm, seed=7):
    n = len(far)
    played = far
    if ppm:
        # The DAC runs fast: it plays far-end sample t*(1+ppm) at time t.
        m = int(round(n / (1 + ppm * 1e-6)))
        played = np.zeros(n)
        played[:m] = ss.resample(far, m)
    echo = ss.fftconvolve(played, rir_spk)[:n]
    near_mic = ss.fftconvolve(near, rir_talk)[:n]
    noise = pink(n, seed)
    echo *= 10 ** (-20 / 20) / rms(echo[: 20 * FS])
    active = np.abs(near_mic) > 0
    near_mic *= 10 ** (-32 / 20) / rms(near_mic[8 * FS: 13 * FS])
    noise *= 10 ** (-65 / 20) / rms(noise)
    mic = echo + near_mic + noise
    # Reference: what was played, nominally aligned. lag_ms > 0: the reference lags (arrives later
    # than) the echo; lag_ms < 0: the echo lags the reference (e.g. an uncompensated device buffer).
    ref = np.zeros(n)
    d = int(round(abs(lag_ms) * FS / 1000))
    if lag_ms > 0:
        ref[d:] = far[: n - d]
    elif lag_ms < 0:
        ref[: n - d] = far[d:]
    else:
        ref[:] = far
    if np.max(np.abs(mic)) >= 1:
        print("warning: mic clips", file=sys.stderr)
    return mic, ref, near_mic, echo


def to16(x):
    return np.clip(np.round(x * 32768), -32768, 32767).astype(np.int16)


def projection(target, out, taps=512):
    """Least-squares two-sided FIR (shifts -taps/2 ... taps/2-1) from target to out; returns the projection."""
    half, n = taps // 2, len(out)
    t = np.concatenate([np.zeros(half), target, np.zeros(half)])
    r = np.correlate(t, t, "full")[len(t) - 1: len(t) - 1 + taps]
    c = np.array([np.dot(out, t[taps - k: taps - k + n]) for k in range(taps)])
    r = r.copy()
    r[0] *= 1 + 1e-9
    h = sl.solve_toeplitz(r, c)
    return np.convolve(t, h)[taps: taps + n]


def metrics(mic, out, near_mic):
    hp = ss.butter(4, 100, "highpass", fs=FS, output="sos")
    mic, out, near_mic = (ss.sosfilt(hp, x) for x in (mic, out, near_mic))
    def w(x, a, b):
        return x[int(a * FS): int(b * FS)]
    def erle(a, b):
        return 10 * np.log10(np.sum(w(mic, a, b) ** 2) / (np.sum(w(out, a, b) ** 2) + 1e-20))
    def near_stats(x, a, b):
        ref = w(near_mic, a, b)
        y = w(x, a, b)
        p = projection(ref, y)
        gain = 10 * np.log10(np.sum(p ** 2) / np.sum(ref ** 2))
        sdr = 10 * np.log10(np.sum(p ** 2) / (np.sum((y - p) ** 2) + 1e-20))
        return gain, sdr
    dt_gain, dt_sdr = near_stats(out, 8, 13)
    _, dt_sdr_mic = near_stats(mic, 8, 13)
    ne_gain, ne_sdr = near_stats(out, 22, 26)
    return dict(erle_init=erle(0, 3), erle_conv=erle(3, 8), erle_post=erle(13.5, 20),
                dt_gain=dt_gain, dt_sdr=dt_sdr, dt_sdr_mic=dt_sdr_mic, ne_gain=ne_gain, ne_sdr=ne_sdr)


CASES = [
    ("aligned", 0, 0),
    ("reference lags the echo by 150 ms", 150, 0),
    ("echo lags the reference by 150 ms", -150, 0),
    ("echo path 50 ppm fast", 0, 50),
    ("reference lags 150 ms + 50 ppm", 150, 50),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--work", default=None)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    work = args.work or tempfile.mkdtemp(prefix="aec-")
    os.makedirs(work, exist_ok=True)
    far, near, rir_spk, rir_talk = scene(work)
    rows = []
    for name, lag, ppm in CASES:
        mic, ref, near_mic, _ = make_case(far, near, rir_spk, rir_talk, lag, ppm)
        tag = f"lag{lag}_ppm{ppm}"
        pm, pr, po = (os.path.join(work, f"{tag}_{k}.wav") for k in ("mic", "ref", "out"))
        sf.write(pm, to16(mic), FS, subtype="PCM_16")
        sf.write(pr, to16(ref), FS, subtype="PCM_16")
        run = subprocess.run([args.binary, "dsp", "--mic", pm, "--reference", pr, "--out", po],
                             capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"dsp failed for {name}: {run.stderr}")
        out, _ = sf.read(po, dtype="float64")
        mic16 = to16(mic) / 32768.0
        assert len(out) == len(mic16)
        m = metrics(mic16, out, near_mic)
        m.update(case=name, lag_ms=lag, ppm=ppm, log=run.stderr.strip())
        rows.append(m)
        print(f"{name}: {m}", file=sys.stderr)
    print("| case | ERLE init / conv / post dB | DT gain dB | DT SDR (mic) dB | NE gain dB | NE SDR dB | chain log |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for m in rows:
        print(f"| {m['case']} | {m['erle_init']:.1f} / {m['erle_conv']:.1f} / {m['erle_post']:.1f} | {m['dt_gain']:.1f} | "
              f"{m['dt_sdr']:.1f} ({m['dt_sdr_mic']:.1f}) | {m['ne_gain']:.1f} | {m['ne_sdr']:.1f} | {m['log'].replace('dsp: ', '')} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
