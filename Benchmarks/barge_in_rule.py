"""BargeInRule's defaults (Sources/Appliance/Conversation/BargeInRule.swift) and what the engine does once
the voice is paused (ConversationEngine+BargeIn), replicated once for the benchmarks that play the rule:
Benchmarks/aec/barge_in_sweep.py and Benchmarks/aec-real/score.py."""
import numpy as np

CONFIRMATION_MS = 0
LOOKBACK_MS = 300
MINIMUM_SPEECH_MS = 400
RESUME_AFTER_MS = 500
SILENT_AFTER_MS = 25  # the playback loop's next wakeup (the reflex holds the voice there), the period playing, the fade


def pause_outcome(runs, at, run):
    """The voice paused at `at` ms. `runs`: the detector's (on, off) ms runs in time order; `run`: the index
    of the one on at `at` (its speech counts from its start), or None. Near-end speech adds up over the
    runs until MINIMUM_SPEECH_MS stop the assistant, or a gap of RESUME_AFTER_MS lets the voice go on.
    Returns (True, the stop's ms) or (False, the resume's ms)."""
    heard, last_end = 0, (at if run is None else None)
    j = run if run is not None else next((k for k, (a, _) in enumerate(runs) if a > at), len(runs))
    while j < len(runs):
        a, b = runs[j]
        if last_end is not None and a - last_end >= RESUME_AFTER_MS:
            break
        if heard + (b - a) >= MINIMUM_SPEECH_MS:
            return True, a + MINIMUM_SPEECH_MS - heard
        heard, last_end, j = heard + (b - a), b, j + 1
    return False, last_end + RESUME_AFTER_MS


def detector_runs(verdict_ms):
    """(on ms, off ms) of each run of near-end speech in a per-millisecond verdict (numpy bools)."""
    d = np.diff(np.concatenate([[0], verdict_ms.astype(np.int8), [0]]))
    return list(zip(np.flatnonzero(d == 1), np.flatnonzero(d == -1)))


def verdict_ms(trace):
    """`jarvis-voice dsp --near-end-trace`'s text (one character per 16 ms frame, '1' = near-end speech) as
    one bool per millisecond."""
    return (np.frombuffer(trace.strip().encode(), np.uint8) == ord("1")).repeat(16)


def held(signal, holds, rate, rt60_ms=None):
    """`signal` with the assistant held at each (ms, length ms), in time order and in the held signal's
    own time: silent from there (or, with `rt60_ms`, what was playing dies away as in a room with that
    reverberation time) and going on later by the hold; as long as `signal`."""
    out = signal
    for at_ms, length_ms in holds:
        cut, n = int(at_ms) * rate // 1000, int(length_ms) * rate // 1000
        gap = np.zeros(n)
        if rt60_ms is not None:
            tail = out[cut:cut + n]
            gap[:len(tail)] = tail * 10 ** (-3 * np.arange(len(tail)) / (rt60_ms * rate / 1000))
        out = np.concatenate([out[:cut], gap, out[cut:]])
    return out[: len(signal)]
