#!/usr/bin/env bash
# MP3 decode cost in instructions per second of audio (callgrind), ours vs the mpg123 command.
#   ours/decode : MP3Decoder (libmpg123 feed API) only
#   ours/mix qN : MP3Decoder + PlaybackChannelWriter (speexdsp quality N, 44.1 -> 48 kHz) + Mixer render
#   ours/level  : MP3Decoder + LoudnessLeveler (the loudness meter and follower); its cost is level − decode
#   mpg123 -t   : the mpg123 1.31 command decoding the same file without output (perf-anchors.md §3)
# Usage: Benchmarks/media/run.sh [SECONDS]   (default 120; needs sox with MP3, valgrind, mpg123)
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds="${1:-120}"
work="$(mktemp -d /tmp/media-bench.XXXXXX)"
trap 'rm -rf "$work"' EXIT
mp3="$work/noise-128k.mp3"
sox -D -n -r 44100 -c 2 -C 128 "$mp3" synth "$seconds" pinknoise vol 0.4
swift build -c release --product media-bench >/dev/null
# valgrind 3.19 cannot read the DWARF 5 Swift emits ("Possibly corrupted debuginfo"): run a stripped copy.
bench="$work/media-bench"
cp "$(swift build -c release --show-bin-path)/media-bench" "$bench"
strip "$bench"

instructions() {  # callgrind total Ir of a command
    local out="$work/cg.$RANDOM"
    valgrind --tool=callgrind --callgrind-out-file="$out" "$@" >/dev/null 2>"$work/valgrind.log"
    grep -E '^(summary|totals):' "$out" | head -1 | awk '{print $2}'
}

audio_seconds="$("$bench" "$mp3" decode | sed -E 's/.*audio_seconds=([0-9.]+).*/\1/')"
printf 'file: %s s of 44.1 kHz stereo, %s bytes (128 kbit/s CBR, sox/libmp3lame)\n' "$audio_seconds" "$(stat -c %s "$mp3")"
printf '%-14s %16s %18s\n' "what" "instructions" "instr per audio s"
total="$(instructions "$bench" "$mp3" decode)"
printf '%-14s %16s %18.0f\n' "ours/decode" "$total" "$(awk -v t="$total" -v s="$audio_seconds" 'BEGIN { print t / s }')"
total="$(instructions "$bench" "$mp3" level)"
printf '%-14s %16s %18.0f\n' "ours/level" "$total" "$(awk -v t="$total" -v s="$audio_seconds" 'BEGIN { print t / s }')"
for quality in 5 3 1; do
    total="$(instructions "$bench" "$mp3" mix "$quality")"
    printf '%-14s %16s %18.0f\n' "ours/mix q$quality" "$total" "$(awk -v t="$total" -v s="$audio_seconds" 'BEGIN { print t / s }')"
done
total="$(instructions mpg123 -q -t "$mp3")"
printf '%-14s %16s %18.0f\n' "mpg123 -t" "$total" "$(awk -v t="$total" -v s="$audio_seconds" 'BEGIN { print t / s }')"
# CPU time outside valgrind, for orientation (cumulative, not a top snapshot).
/usr/bin/time -f 'ours/mix wall %e s, user %U s, max RSS %M KiB' "$bench" "$mp3" mix >/dev/null
/usr/bin/time -f 'mpg123 -t wall %e s, user %U s, max RSS %M KiB' mpg123 -q -t "$mp3" >/dev/null
