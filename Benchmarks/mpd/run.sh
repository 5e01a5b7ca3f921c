#!/usr/bin/env bash
# The media path's cost against MPD, side by side in one run; binary size; start-up to READY=1.
# Both players run at once for the whole measurement (a shared, noisy machine loads both alike): the same
# live 44.1 kHz stereo stream from stream_server.py, each into its own paced ALSA PCM (jvpaced) at 48 kHz
# stereo S16; MP3 128 kbit/s, then AAC-LC 128 kbit/s (ADTS), then Ogg Vorbis q4. Writes the table to Benchmarks/mpd/results.md (docs/benchmarks.md explains it).
# Usage: Benchmarks/mpd/run.sh [ROUNDS] [SECONDS_PER_ROUND]   (per stream; default 6 × 20 s; needs mpd, sox,
# ffmpeg, python3)
#   SWIFT_BUILD_FLAGS="--scratch-path .build-perf" uses another build directory (default .build).
#   JARVIS_VOICE=/path/to/jarvis-voice measures that binary instead (e.g. an older build, for a before/after),
#   OUT=file writes the table there instead of Benchmarks/mpd/results.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds="${1:-6}"
seconds="${2:-20}"
for tool in mpd sox ffmpeg; do
    command -v "$tool" >/dev/null || { echo "Benchmarks/mpd/run.sh: needs $tool (scripts/install-deps installs it)" >&2; exit 1; }
done
read -r -a flags <<< "${SWIFT_BUILD_FLAGS:-}"
swift build -c release "${flags[@]}" --product jarvis-voice >/dev/null
swift build -c release "${flags[@]}" --product asound_module_pcm_jvpaced >/dev/null
bin="$(swift build -c release "${flags[@]}" --show-bin-path)"
work="$(mktemp -d /tmp/jarvis-voice-mpd-radio.XXXXXX)"
trap 'rm -rf "$work"' EXIT
# A minute of wideband sound (pink noise), looped by the server: the decoders work as hard as on music.
sox -D -n -r 44100 -c 2 "$work/radio.wav" synth 60 pinknoise vol 0.3
sox -D "$work/radio.wav" -C 128 "$work/radio.mp3"
ffmpeg -loglevel error -i "$work/radio.wav" -c:a aac -b:a 128k -f adts "$work/radio.aac"
ffmpeg -loglevel error -i "$work/radio.wav" -c:a libvorbis -q:a 4 "$work/radio.ogg"
python3 Benchmarks/mpd/measure.py --service "${JARVIS_VOICE:-$bin/jarvis-voice}" --plugin "$bin/libasound_module_pcm_jvpaced.so" \
    --stream "MP3 128k=$work/radio.mp3" --stream "AAC-LC 128k (ADTS)=$work/radio.aac" \
    --stream "Ogg Vorbis q4=$work/radio.ogg" --stream-seconds 60 \
    --rounds "$rounds" --seconds "$seconds" --out "${OUT:-Benchmarks/mpd/results.md}"
