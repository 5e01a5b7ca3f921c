#!/bin/sh
# Instructions per second of audio (callgrind) of the capture chain: speexdsp called from C
# (speex_chain.c: echo + preprocess + 16 -> 24 kHz resampler) vs the service's `CaptureChain` in
# `capture-bench` (release; a copy without debug info, as valgrind 3.19 cannot read Swift's DWARF 5;
# the symbol table stays, so `callgrind_annotate $CC_WORK/cg.out` names Swift functions), once with the
# delay estimator and drift compensation off (`plain`: the same work as C, so the difference is the
# Swift overhead), once with both on (`full`, the defaults, as in a conversation), and once with the
# defaults as between conversations while the far end plays (`track`: the canceller and what aligns it
# until the filter explains the echo, then nothing but keeping the last seconds; no suppressor,
# preprocessor or uplink). Set-up and file I/O are removed by differencing a 20 s and a 5 s run. `wake`
# counts what a conversation starting after 20 s of that costs in its first frame (the catch-up), the
# 20 s tracked run subtracted.
# Usage: Benchmarks/capture-chain/run.sh [MIC.wav REF.wav]   (16 kHz mono; default: generated scene)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=${CC_WORK:-$here/.work}
mkdir -p "$work"
if [ $# -ge 2 ]; then
    mic=$1 ref=$2
else
    mic=$work/scene_mic.wav ref=$work/scene_ref.wav
    "$here/scene.sh" "$work"
fi
cc -O2 -o "$work/speex_chain" "$here/speex_chain.c" $(pkg-config --cflags --libs speexdsp)
(cd "$root" && swift build -c release --product capture-bench >/dev/null)
bench=$work/capture-bench
cp "$(cd "$root" && swift build -c release --show-bin-path)/capture-bench" "$bench"
strip --strip-debug "$bench"
for s in 5 20; do
    sox -D "$mic" "$work/mic$s.wav" trim 0 $s
    sox -D "$ref" "$work/ref$s.wav" trim 0 $s
done
count() { # total instructions (Ir) of a command under callgrind
    valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$@" >/dev/null 2>"$work/valgrind.log"
    grep -E '^(summary|totals):' "$work/cg.out" | head -1 | awk '{print $2}'
}
c5=$(count "$work/speex_chain" "$work/mic5.wav" "$work/ref5.wav" "$work/c.raw")
c20=$(count "$work/speex_chain" "$work/mic20.wav" "$work/ref20.wav" "$work/c.raw")
p5=$(count "$bench" "$work/mic5.wav" "$work/ref5.wav" "$work/plain.raw" plain)
p20=$(count "$bench" "$work/mic20.wav" "$work/ref20.wav" "$work/plain.raw" plain)
f5=$(count "$bench" "$work/mic5.wav" "$work/ref5.wav" "$work/full.raw" full)
f20=$(count "$bench" "$work/mic20.wav" "$work/ref20.wav" "$work/full.raw" full)
t5=$(count "$bench" "$work/mic5.wav" "$work/ref5.wav" "$work/track.raw" track)
t20=$(count "$bench" "$work/mic20.wav" "$work/ref20.wav" "$work/track.raw" track)
w20=$(count "$bench" "$work/mic20.wav" "$work/ref20.wav" "$work/wake.raw" wake)
cmp -s "$work/c.raw" "$work/plain.raw" && same="identical" || same="different"
awk -v c5="$c5" -v c20="$c20" -v p5="$p5" -v p20="$p20" -v f5="$f5" -v f20="$f20" -v t5="$t5" -v t20="$t20" -v w20="$w20" -v same="$same" 'BEGIN {
    c = (c20 - c5) / 15 / 1e6; p = (p20 - p5) / 15 / 1e6; f = (f20 - f5) / 15 / 1e6; t = (t20 - t5) / 15 / 1e6
    printf "| program | instructions per second of audio |\n| --- | --- |\n"
    printf "| C: speex echo (256/3072) + preprocess (NS, RES) + 16->24 kHz resampler (q5) | %.2f M |\n", c
    printf "| Swift CaptureChain, plain (max_reference_lag_ms = 0, drift_compensation = false) | %.2f M |\n", p
    printf "| Swift overhead (plain vs C) | %+.1f %% |\n", (p / c - 1) * 100
    printf "| Swift CaptureChain, full (estimator 500 ms + drift compensation, the defaults) | %.2f M |\n", f
    printf "| estimator + drift cost (full - plain) | %.2f M (%+.1f %% of C) |\n", f - p, (f - p) / c * 100
    printf "| Swift CaptureChain, the defaults between conversations while the far end plays (track) | %.2f M (%+.1f %% against full) |\n", t, (t / f - 1) * 100
    printf "| a conversation'"'"'s first frame after that (wake: the catch-up on the rested seconds), once | %.0f M |\n", (w20 - t20) / 1e6
    printf "\n20 s uplink output of C and Swift plain: %s (the chain delays the mic by its causality margin + FIFO slack, 96 samples, so the outputs are not sample-identical)\n", same
}'
