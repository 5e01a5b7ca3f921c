#!/bin/sh
# Reproduces the AEC benchmark table: builds the release binary, sets up a venv, runs the scenes.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
venv=${AEC_VENV:-$here/.venv}
work=${AEC_WORK:-$here/.work}
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q numpy scipy pyroomacoustics soundfile
fi
(cd "$root" && swift build -c release --product jarvis-voice >/dev/null)
mkdir -p "$work"
"$venv/bin/python" "$here/aec_bench.py" --binary "$root/.build/release/jarvis-voice" --work "$work" --json "$work/results.json"
