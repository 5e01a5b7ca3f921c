"""WebRTC AEC3 (libwebrtc in the `livekit` wheel) with the `jarvis-voice dsp` signature:
    python aec3.py [--ns] --mic IN.wav --reference REF.wav --out OUT.wav
10 ms frames at 16 kHz: the reference goes to process_reverse_stream, then the mic to process_stream
(stream delay 0: AEC3 estimates the delay itself). --ns adds noise suppression and the high-pass filter."""
import argparse

import numpy as np
import soundfile as sf
from livekit import rtc


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--mic", required=True)
    p.add_argument("--reference", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--ns", action="store_true")
    a = p.parse_args()
    mic, rate = sf.read(a.mic, dtype="int16")
    ref, _ = sf.read(a.reference, dtype="int16")
    assert rate == 16000
    n = 160
    frames = (len(mic) + n - 1) // n
    mp = np.zeros(frames * n, np.int16); mp[:len(mic)] = mic
    rp = np.zeros(frames * n, np.int16); k = min(len(ref), len(mic)); rp[:k] = ref[:k]
    apm = rtc.AudioProcessingModule(echo_cancellation=True, noise_suppression=a.ns, high_pass_filter=a.ns)
    out = np.zeros_like(mp)
    for f in range(frames):
        s = slice(f * n, (f + 1) * n)
        rf = rtc.AudioFrame(bytearray(rp[s].tobytes()), rate, 1, n)
        apm.process_reverse_stream(rf)
        mf = rtc.AudioFrame(bytearray(mp[s].tobytes()), rate, 1, n)
        apm.set_stream_delay_ms(0)
        apm.process_stream(mf)
        out[s] = np.frombuffer(bytes(mf._data), np.int16)
    sf.write(a.out, out[:len(mic)], rate, subtype="PCM_16")


if __name__ == "__main__":
    main()
