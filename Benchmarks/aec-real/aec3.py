"""WebRTC AEC3 (libwebrtc in the `livekit` wheel) with the `jarvis-voice dsp` signature:
    python aec3.py [--ns] [--warm] --mic IN.wav --reference REF.wav --out OUT.wav
10 ms frames at 16 kHz: the reference goes to process_reverse_stream, then the mic to process_stream
(stream delay 0: AEC3 estimates the delay itself). --ns adds noise suppression and the high-pass filter.
--warm: the recording goes through the module once, then 0.5 s of digital silence on mic and reference,
then the pass that is written, with the same module (never reset): the steady state of a canceller that
has been running, as `jarvis-voice dsp --warm`."""
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
    p.add_argument("--warm", action="store_true")
    a = p.parse_args()
    mic, rate = sf.read(a.mic, dtype="int16")
    ref, _ = sf.read(a.reference, dtype="int16")
    assert rate == 16000
    n = 160
    frames = (len(mic) + n - 1) // n
    mp = np.zeros(frames * n, np.int16); mp[:len(mic)] = mic
    rp = np.zeros(frames * n, np.int16); k = min(len(ref), len(mic)); rp[:k] = ref[:k]
    apm = rtc.AudioProcessingModule(echo_cancellation=True, noise_suppression=a.ns, high_pass_filter=a.ns)

    def process(mic_frame, ref_frame):
        rf = rtc.AudioFrame(bytearray(ref_frame.tobytes()), rate, 1, n)
        apm.process_reverse_stream(rf)
        mf = rtc.AudioFrame(bytearray(mic_frame.tobytes()), rate, 1, n)
        apm.set_stream_delay_ms(0)
        apm.process_stream(mf)
        return np.frombuffer(bytes(mf._data), np.int16)

    if a.warm:
        for f in range(frames):
            process(mp[f * n:(f + 1) * n], rp[f * n:(f + 1) * n])
        silence = np.zeros(n, np.int16)
        for _ in range(rate // 2 // n):
            process(silence, silence)
    out = np.zeros_like(mp)
    for f in range(frames):
        s = slice(f * n, (f + 1) * n)
        out[s] = process(mp[s], rp[s])
    sf.write(a.out, out[:len(mic)], rate, subtype="PCM_16")


if __name__ == "__main__":
    main()
