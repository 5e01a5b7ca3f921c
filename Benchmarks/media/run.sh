#!/usr/bin/env bash
# Decode cost in instructions per second of audio (callgrind), ours vs the decoder MPD would use, per format.
#   ours        : media-bench FILE decode: the product's decoder for the sniffed format (AudioCodec.sniff,
#                 makeDecoder), fed in 4 KiB reads as a stream is, to interleaved Int16
#   ours/mix qN : MP3 only: MP3Decoder + PlaybackChannelWriter (quality N, 44.1 -> 48 kHz) + Mixer render
#   ours/level  : MP3 only: MP3Decoder + LoudnessLeveler (the loudness meter and follower); its cost is level - decode
#   anchor      : the library MPD 0.23 (Debian 12) decodes that format with, through a command-line tool:
#                 MP3 `mpg123 -t` (libmpg123), Vorbis `oggdec` (libvorbis via libvorbisfile), FLAC `flac -t` (libFLAC; it
#                 checks the MD5 signature, MPD does not), Opus `opusdec` (libopus),
#                 AAC `ffmpeg -threads 1 -i FILE -f null -` (libavcodec)
#   every figure excludes start-up (ffmpeg's is ~235 M instructions): (Ir(file) - Ir(0.5 s file of the
#   same format)) / (audio s(file) - audio s(0.5 s file)); "in library": the same for the self cost of
#   the codec library's ELF object (libfaad for ours and libavcodec for ffmpeg on AAC)
# Test files: one music-like source (pink noise bursts under plucked tones, 44.1 kHz stereo) encoded by
# ffmpeg per format; nothing is kept. HE-AAC only when ffmpeg has libfdk_aac (Debian's has not).
# Usage: Benchmarks/media/run.sh [SECONDS]   (default 120; needs ffmpeg, valgrind, mpg123, vorbis-tools,
#        flac, opus-tools: scripts/install-deps bench)
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds="${1:-120}"
work="$(mktemp -d /tmp/media-bench.XXXXXX)"
trap 'rm -rf "$work"' EXIT

# The source: two pink-noise channels pulsing 4 times a second (a drum-like bed) under plucked notes that
# change every half second (a melody and a fifth, panned apart).
source_wav() {  # DURATION OUTPUT
    local note='pow(2,floor(mod(t*2,8))*2/12)' pluck='exp(-5*mod(t,0.5))'
    ffmpeg -v error -y \
        -f lavfi -i "anoisesrc=color=pink:amplitude=0.3:seed=1:sample_rate=44100:duration=$1" \
        -f lavfi -i "anoisesrc=color=pink:amplitude=0.3:seed=2:sample_rate=44100:duration=$1" \
        -f lavfi -i "aevalsrc='0.25*sin(2*PI*220*$note*t)*$pluck|0.2*sin(2*PI*330*$note*t)*$pluck':s=44100:d=$1" \
        -filter_complex "[0][1]amerge=inputs=2,tremolo=f=4:d=0.6[bed];[bed][2]amix=inputs=2:normalize=0,lowpass=f=16000" \
        -c:a pcm_s16le "$2"
}
source_wav "$seconds" "$work/source.wav"
source_wav 0.5 "$work/tiny.wav"

# name, file suffix, ffmpeg encoder options, anchor kind
formats=(
    "MP3 128k|mp3|-c:a libmp3lame -b:a 128k|mpg123"
    "AAC-LC 128k ADTS|aac|-c:a aac -b:a 128k -f adts|ffmpeg"
    "AAC-LC 128k M4A|m4a|-c:a aac -b:a 128k -movflags +faststart|ffmpeg"
    "Vorbis q4|ogg|-c:a libvorbis -q:a 4|oggdec"
    "Opus 128k|opus|-c:a libopus -b:a 128k|opusdec"
    "FLAC 16-bit|flac|-c:a flac -sample_fmt s16|flac"
)
if ffmpeg -hide_banner -encoders 2>/dev/null | grep -q libfdk_aac; then
    formats+=("HE-AAC 64k ADTS|he.aac|-c:a libfdk_aac -profile:a aac_he -b:a 64k -f adts|ffmpeg")
    he_aac=""
else
    # its native aac encoder has no SBR: `-profile:a aac_he` writes a file no decoder opens
    he_aac="HE-AAC: not measured: Debian's ffmpeg cannot encode it (no libfdk_aac; the aac encoder does LC only)"
fi
for entry in "${formats[@]}"; do
    IFS='|' read -r _ suffix options _ <<<"$entry"
    read -r -a encode <<<"$options"
    ffmpeg -v error -y -i "$work/source.wav" "${encode[@]}" "$work/test.$suffix"
    ffmpeg -v error -y -i "$work/tiny.wav" "${encode[@]}" "$work/tiny.$suffix"
done

swift build -c release --product media-bench >/dev/null
# valgrind 3.19 cannot read the DWARF 5 Swift emits ("Possibly corrupted debuginfo"): run a stripped copy.
bench="$work/media-bench"
cp "$(swift build -c release --show-bin-path)/media-bench" "$bench"
strip "$bench"

measure() {  # LIBRARY COMMAND... (@ stands for the file): sets total, startup, rate, library_rate
    local library="$1" run file out
    shift
    for run in file tiny; do
        file="$work/test.$suffix"
        [ $run = file ] || file="$work/tiny.$suffix"
        out="$work/cg.$run"
        valgrind --tool=callgrind --callgrind-out-file="$out" "${@/#@/$file}" >/dev/null 2>"$work/valgrind.log"
        grep -E '^(summary|totals):' "$out" | head -1 | awk '{print $2}' >"$out.total"
        callgrind_annotate --threshold=100 "$out" 2>/dev/null \
            | awk -v lib="/$library" 'index($0, lib) && /\[/ { gsub(",", "", $1); sum += $1 } END { printf "%.0f\n", sum }' >"$out.library"
    done
    total="$(cat "$work/cg.file.total")"
    startup="$(cat "$work/cg.tiny.total")"
    rate="$(per_second "$((total - startup))" "$span")"
    library_rate="$(per_second "$(($(cat "$work/cg.file.library") - $(cat "$work/cg.tiny.library")))" "$span")"
}
audio_seconds() { "$bench" "$1" decode | sed -E 's/.*audio_seconds=([0-9.]+).*/\1/'; }
per_second() { awk -v t="$1" -v s="$2" 'BEGIN { printf "%.0f", t / s }'; }
millions() { awk -v n="$1" 'BEGIN { printf "%.2f M", n / 1e6 }'; }
line() {  # WHAT KBITS
    printf '%-22s %7s %13s %11s %15s %13s\n' "$1" "$2" "$total" "$startup" "$rate" "$library_rate"
}

printf 'files: %s s of 44.1 kHz stereo (Opus decodes at 48 kHz), music-like source, encoded by ffmpeg %s\n' \
    "$seconds" "$(ffmpeg -version | head -1 | awk '{print $3}')"
printf '%-22s %7s %13s %11s %15s %13s\n' "what" "kbit/s" "instructions" "0.5 s file" "instr/audio s" "in library"
rows=()
for entry in "${formats[@]}"; do
    IFS='|' read -r name suffix _ kind <<<"$entry"
    audio="$(audio_seconds "$work/test.$suffix")"
    span="$(awk -v a="$audio" -v b="$(audio_seconds "$work/tiny.$suffix")" 'BEGIN { print a - b }')"
    kbits="$(awk -v b="$(stat -c %s "$work/test.$suffix")" -v s="$audio" 'BEGIN { printf "%.0f", b * 8 / s / 1000 }')"
    case "$kind" in
        mpg123) library=libmpg123 what="mpg123 -t" anchor=(mpg123 -q -t @) ;;
        ffmpeg) library=libavcodec what="ffmpeg (libavcodec)" anchor=(ffmpeg -nostdin -v error -threads 1 -i @ -f null -) ;;
        oggdec) library=libvorbis. what="oggdec (libvorbis)" anchor=(oggdec -Q -o /dev/null @) ;;
        opusdec) library=libopus what="opusdec (libopus)" anchor=(opusdec --quiet --rate 48000 --no-dither @ /dev/null) ;;
        flac) library=libFLAC what="flac -t (libFLAC)" anchor=(flac -t -s @) ;;
    esac
    ours_library="$library"
    [ "$kind" != ffmpeg ] || ours_library=libfaad
    measure "$ours_library" "$bench" @ decode
    ours="$rate"
    line "ours $name" "$kbits"
    measure "$library" "${anchor[@]}"
    line "${anchor[0]} $name" ""
    rows+=("$name|$(millions "$ours")|$(millions "$rate")|$what|$(awk -v o="$ours" -v a="$rate" 'BEGIN { printf "%.2f", o / a }')")
    if [ "$kind" = mpg123 ]; then
        measure "$library" "$bench" @ level
        line "ours/level" ""
        for quality in 5 3 1; do
            measure "$library" "$bench" @ mix "$quality"
            line "ours/mix q$quality" ""
        done
        mp3="$work/test.$suffix"
    fi
done

printf '\ninstructions per second of audio (start-up excluded)\n'
printf '%-18s | %9s | %9s | %-19s | %5s\n' "format" "ours" "anchor" "anchor is" "ratio"
for row in "${rows[@]}"; do
    IFS='|' read -r name ours anchor what ratio <<<"$row"
    printf '%-18s | %9s | %9s | %-19s | %5s\n' "$name" "$ours" "$anchor" "$what" "$ratio"
done
[ -z "$he_aac" ] || echo "$he_aac"

# CPU time outside valgrind, for orientation (cumulative, not a top snapshot).
/usr/bin/time -f 'ours/mix MP3 wall %e s, user %U s, max RSS %M KiB' "$bench" "$mp3" mix >/dev/null
/usr/bin/time -f 'mpg123 -t wall %e s, user %U s, max RSS %M KiB' mpg123 -q -t "$mp3" >/dev/null
# AAC, where the anchor is vectorized and ours is not: does user time agree with the instruction counts?
# Ten runs each; ffmpeg's on the 0.5 s file is its start-up.
ten() { for _ in 1 2 3 4 5 6 7 8 9 10; do "$@" >/dev/null; done; }
export -f ten
/usr/bin/time -f 'ours AAC ADTS x10 user %U s' bash -c 'ten "$@"' _ "$bench" "$work/test.aac" decode
/usr/bin/time -f 'ffmpeg AAC ADTS x10 user %U s' bash -c 'ten "$@"' _ ffmpeg -nostdin -v error -threads 1 -i "$work/test.aac" -f null -
/usr/bin/time -f 'ffmpeg AAC ADTS 0.5 s file x10 user %U s' bash -c 'ten "$@"' _ ffmpeg -nostdin -v error -threads 1 -i "$work/tiny.aac" -f null -
