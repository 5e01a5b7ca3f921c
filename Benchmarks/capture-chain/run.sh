#!/bin/sh
# Instructions per second of audio (callgrind) for speexdsp called from C vs `jarvis-voice dsp`
# (release), on the same input. Set-up and file I/O are removed by differencing a 20 s and a 5 s run.
# Needs the AEC benchmark's scene (Benchmarks/aec/run.sh) or any 16 kHz mono mic/ref WAV pair.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=${CC_WORK:-$here/.work}
mic=${1:-$root/Benchmarks/aec/.work/lag0_ppm0_mic.wav}
ref=${2:-$root/Benchmarks/aec/.work/lag0_ppm0_ref.wav}
mkdir -p "$work"
cc -O2 -o "$work/speex_chain" "$here/speex_chain.c" $(pkg-config --cflags --libs speexdsp)
(cd "$root" && swift build -c release --product jarvis-voice >/dev/null)
for s in 5 20; do
    sox -D "$mic" "$work/mic$s.wav" trim 0 $s
    sox -D "$ref" "$work/ref$s.wav" trim 0 $s
done
count() { # prints the total instruction count (Ir) of a command
    valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$@" 2>&1 >/dev/null | awk '/refs:/ {gsub(",", "", $NF); print $NF}'
}
c5=$(count "$work/speex_chain" "$work/mic5.wav" "$work/ref5.wav" "$work/out.raw")
c20=$(count "$work/speex_chain" "$work/mic20.wav" "$work/ref20.wav" "$work/out.raw")
s5=$(count "$root/.build/release/jarvis-voice" dsp --mic "$work/mic5.wav" --reference "$work/ref5.wav" --out "$work/out.wav")
s20=$(count "$root/.build/release/jarvis-voice" dsp --mic "$work/mic20.wav" --reference "$work/ref20.wav" --out "$work/out.wav")
awk -v c5="$c5" -v c20="$c20" -v s5="$s5" -v s20="$s20" 'BEGIN {
    c = (c20 - c5) / 15 / 1e6; s = (s20 - s5) / 15 / 1e6
    printf "| program | instructions per second of audio |\n| --- | --- |\n"
    printf "| C: speex echo (256/3072) + preprocess (NS, RES) | %.1f M |\n", c
    printf "| Swift: jarvis-voice dsp (same + delay estimator + drift resampler/tracker + WAV parse) | %.1f M |\n", s
    printf "| Swift overhead | %+.1f %% |\n", (s / c - 1) * 100
}'
