#!/bin/sh
# Reproduces the AEC benchmark table: builds the release binary (or takes JARVIS_VOICE), sets up a venv, runs the scenes.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
venv=${AEC_VENV:-$here/.venv}
work=${AEC_WORK:-$here/.work}
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q numpy scipy pyroomacoustics soundfile
fi
# JARVIS_VOICE=path: score that binary instead of building the release one (as Benchmarks/aec-real/run.sh).
bin=${JARVIS_VOICE:-}
if [ -z "$bin" ]; then
    (cd "$root" && swift build -c release --product jarvis-voice >/dev/null)
    bin=$root/.build/release/jarvis-voice
fi
mkdir -p "$work"
"$venv/bin/python" "$here/aec_bench.py" --binary "$bin" --work "$work" --json "$work/results.json"
