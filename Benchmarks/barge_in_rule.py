"""BargeInRule's defaults (Sources/Conversation/Engine/BargeInRule.swift) and what the engine does once
the voice is paused (ConversationEngine+BargeIn), replicated once for the benchmarks that play the rule:
Benchmarks/aec/barge_in_sweep.py and Benchmarks/aec-real/score.py. Benchmarks/check_barge_in_rule.py (run
by .ci/run) checks these constants against BargeInRule's defaults."""
import numpy as np

CONFIRMATION_MS = 0
LOOKBACK_MS = 300
MINIMUM_SPEECH_MS = 400
RESUME_AFTER_MS = 500
POSSIBLE_SPEECH_LIMIT_MS = 1500
SILENT_AFTER_MS = 25  # the playback loop's next wakeup (the reflex holds the voice there), the period playing, the fade


def pause_outcome(speech_ms, heard_ms, at):
    """The voice paused at `at` ms. `speech_ms`: the detector's verdict per ms (numpy bools); `heard_ms`: the
    verdict or its looser, possible one (what pauses). The verdict adds up, from the start of its run on at
    `at`, until MINIMUM_SPEECH_MS stop the assistant; RESUME_AFTER_MS with neither verdict on let the voice
    go on, and so do POSSIBLE_SPEECH_LIMIT_MS with only the possible one on. Returns (True, the stop's ms) or
    (False, the resume's ms)."""
    n = len(speech_ms)
    start = at
    while 0 < start <= n and speech_ms[start - 1] and at < n and speech_ms[at]:
        start -= 1
    heard = np.cumsum(speech_ms[start:].astype(np.int32))
    enough = np.flatnonzero(heard >= MINIMUM_SPEECH_MS)
    stop = start + int(enough[0]) + 1 if len(enough) else None
    quiet_since, possible_since = None, None
    for t in range(at, n):
        if heard_ms[t]:
            quiet_since = None
        elif quiet_since is None:
            quiet_since = t
        if speech_ms[t] or not heard_ms[t]:
            possible_since = None
        elif possible_since is None:
            possible_since = t
        if stop is not None and t >= stop:
            return True, stop
        if quiet_since is not None and t - quiet_since >= RESUME_AFTER_MS:
            return False, t
        if possible_since is not None and t - possible_since >= POSSIBLE_SPEECH_LIMIT_MS:
            return False, t
    if stop is not None:
        return True, stop
    return False, (quiet_since if quiet_since is not None else n) + RESUME_AFTER_MS


def detector_runs(verdict_ms):
    """(on ms, off ms) of each run of near-end speech in a per-millisecond verdict (numpy bools)."""
    d = np.diff(np.concatenate([[0], verdict_ms.astype(np.int8), [0]]))
    return list(zip(np.flatnonzero(d == 1), np.flatnonzero(d == -1)))


def verdict_ms(trace):
    """`jarvis-voice dsp --near-end-trace`'s text (one character per 16 ms frame, '1' = near-end speech, 'p' =
    possible near-end speech only) as one bool per millisecond: the verdict."""
    return (np.frombuffer(trace.strip().encode(), np.uint8) == ord("1")).repeat(16)


def heard_ms(trace):
    """The same trace's verdict or possible verdict (what pauses the assistant) per millisecond."""
    codes = np.frombuffer(trace.strip().encode(), np.uint8)
    return ((codes == ord("1")) | (codes == ord("p"))).repeat(16)


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
