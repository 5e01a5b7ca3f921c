#!/usr/bin/env bash
# Endurance run: the real service (`jarvis-voice run`) on paced test devices against the stand-ins, with
# radio, a turn every minute, Realtime drops, a stream-server restart, Jarvis down, a SIGHUP reload.
# Fails (exit 1) when memory, descriptors, threads or latency trend upward, or a turn is lost/stuck or
# leaves the music ducked (rules: DevTools/jarvis-voice-soak/SoakAnalysis.swift).
# Usage: Benchmarks/soak/run.sh [SECONDS] [--debug] [--no-plot]
#   SECONDS   default 3600 (the record); CI runs 180 --debug --no-plot
#   --debug   use the debug build (what `swift test` already built) instead of building release
#   --no-plot skip the PNG (the plot needs matplotlib from PyPI in Benchmarks/soak/.venv)
# Results: Benchmarks/soak/work/SECONDS-s/{samples,turns,faults}.csv, summary.txt, service.log, soak.png
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=3600
configuration=release
plot=1
for arg in "$@"; do
    case "$arg" in
        --debug) configuration=debug ;;
        --no-plot) plot=0 ;;
        *) seconds="$arg" ;;
    esac
done
for product in jarvis-voice jarvis-voice-soak asound_module_pcm_jvpaced; do
    swift build -c "$configuration" --product "$product" >/dev/null
done
bin="$(swift build -c "$configuration" --show-bin-path)"
out="Benchmarks/soak/work/${seconds}-s"
mkdir -p "$out"
status=0
"$bin/jarvis-voice-soak" --seconds "$seconds" --out "$out" || status=$?
if [ "$plot" = 1 ] && [ -s "$out/samples.csv" ]; then
    venv=Benchmarks/soak/.venv
    [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
    "$venv/bin/python" -c 'import matplotlib' 2>/dev/null || "$venv/bin/pip" install -q matplotlib
    "$venv/bin/python" Benchmarks/soak/plot.py "$out" "$out/soak.png"
fi
exit "$status"
