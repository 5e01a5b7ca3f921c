#!/usr/bin/env bash
# The Snapcast player's cost against Debian's snapclient, side by side in one run: one snapserver plays
# a looped minute of pink noise to `jarvis-voice run` (with [snapcast]) and to `snapclient`, each into its
# own paced ALSA PCM (jvpaced), with the server's codec flac, then opus, then pcm. Writes the table to
# Benchmarks/rooms/results.md (docs/benchmarks.md explains it).
# Usage: Benchmarks/rooms/run.sh [ROUNDS] [SECONDS_PER_ROUND]   (per codec; default 6 × 20 s; needs
# snapserver, snapclient, sox, python3: scripts/install-deps test installs them)
#   JARVIS_VOICE=/path/to/jarvis-voice measures that binary instead; OUT=file writes the table there.
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds="${1:-6}"
seconds="${2:-20}"
for tool in snapserver snapclient sox; do
    command -v "$tool" >/dev/null || { echo "Benchmarks/rooms/run.sh: needs $tool (scripts/install-deps test installs it)" >&2; exit 1; }
done
swift build -c release --product jarvis-voice >/dev/null
swift build -c release --product asound_module_pcm_jvpaced >/dev/null
bin="$(swift build -c release --show-bin-path)"
work="$(mktemp -d /tmp/jarvis-voice-rooms.XXXXXX)"
trap 'rm -rf "$work"' EXIT
# A minute of wideband sound: the decoders work as hard as on music.
sox -D -n -r 48000 -c 2 -b 16 -e signed-integer -t raw "$work/noise.raw" synth 60 pinknoise vol 0.3
python3 Benchmarks/rooms/measure.py --service "${JARVIS_VOICE:-$bin/jarvis-voice}" --plugin "$bin/libasound_module_pcm_jvpaced.so" \
    --audio "$work/noise.raw" --rounds "$rounds" --seconds "$seconds" --out "${OUT:-Benchmarks/rooms/results.md}"
