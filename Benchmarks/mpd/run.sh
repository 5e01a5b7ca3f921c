#!/usr/bin/env bash
# The media path's cost against MPD, side by side in one run; binary size; start-up to READY=1.
# Both players run at once for the whole measurement (a shared, noisy machine loads both alike): the same
# live 128 kbit/s 44.1 kHz MP3 stream from stream_server.py, each into its own paced ALSA PCM (jvpaced)
# at 48 kHz stereo S16. Writes the table to Benchmarks/mpd/results.md (docs/benchmarks.md explains it).
# Usage: Benchmarks/mpd/run.sh [ROUNDS] [SECONDS_PER_ROUND]   (default 6 × 20 s; needs mpd, sox, python3)
#   SWIFT_BUILD_FLAGS="--scratch-path .build-perf" uses another build directory (default .build).
#   JARVIS_VOICE=/path/to/jarvis-voice measures that binary instead (e.g. an older build, for a before/after),
#   OUT=file writes the table there instead of Benchmarks/mpd/results.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds="${1:-6}"
seconds="${2:-20}"
command -v mpd >/dev/null || { echo "Benchmarks/mpd/run.sh: needs MPD (scripts/install-deps installs it)" >&2; exit 1; }
read -r -a flags <<< "${SWIFT_BUILD_FLAGS:-}"
swift build -c release "${flags[@]}" --product jarvis-voice >/dev/null
swift build -c release "${flags[@]}" --product asound_module_pcm_jvpaced >/dev/null
bin="$(swift build -c release "${flags[@]}" --show-bin-path)"
work="$(mktemp -d /tmp/jarvis-voice-mpd-radio.XXXXXX)"
trap 'rm -rf "$work"' EXIT
# A minute of wideband sound (pink noise), looped by the server: the decoder works as hard as on music.
sox -D -n -r 44100 -c 2 -C 128 "$work/radio.mp3" synth 60 pinknoise vol 0.3
python3 Benchmarks/mpd/measure.py --service "${JARVIS_VOICE:-$bin/jarvis-voice}" --plugin "$bin/libasound_module_pcm_jvpaced.so" \
    --mp3 "$work/radio.mp3" --rounds "$rounds" --seconds "$seconds" --out "${OUT:-Benchmarks/mpd/results.md}"
