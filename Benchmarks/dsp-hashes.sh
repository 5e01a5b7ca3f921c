#!/bin/sh
# Hashes of everything `jarvis-voice dsp` writes for the benchmark recordings and scenes, so a change meant
# to keep the capture chain's output (a restructuring, a refactor) can show it did, bit for bit:
#   Benchmarks/dsp-hashes.sh BINARY OUTDIR      then: diff OLD/hashes.txt NEW/hashes.txt
# Every recording in Benchmarks/aec-real/cache (prepare.sh; with room_noise.py's variants) cold, warm and
# without the residual echo suppressor (output WAV, near-end and suppressor traces, the chain's log), the
# capture-chain scene, and Benchmarks/aec's kitchen scenes (their WAVs and results.json).
set -eu
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=$2
here=$(cd "$(dirname "$0")" && pwd)
cache=$here/aec-real/cache
venv=${DSP_HASHES_VENV:-$here/aec-real/.venv}
mkdir -p "$out/scene"
"$here/aec-real/prepare.sh" >&2
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q numpy scipy soundfile pyroomacoustics
fi
"$venv/bin/python" "$here/aec-real/room_noise.py" "$cache" >/dev/null
"$here/capture-chain/scene.sh" "$out/scene" >/dev/null 2>&1
printf '[dsp]\nresidual_echo_suppressor = false\n' > "$out/no-res.toml"
run() { # NAME MIC REF
    "$bin" dsp --mic "$2" --reference "$3" --out "$out/$1.wav" --near-end-trace "$out/$1.ne" \
        --suppressor-trace "$out/$1.res" 2>"$out/$1.log"
    "$bin" dsp --warm --mic "$2" --reference "$3" --out "$out/$1-warm.wav" --near-end-trace "$out/$1-warm.ne" \
        --suppressor-trace "$out/$1-warm.res" 2>"$out/$1-warm.log"
    "$bin" dsp --config "$out/no-res.toml" --mic "$2" --reference "$3" --out "$out/$1-nores.wav" 2>"$out/$1-nores.log"
}
for mic in "$cache"/*_mic.wav; do
    name=$(basename "$mic" _mic.wav)
    [ -f "$cache/${name}_ref.wav" ] && run "$name" "$mic" "$cache/${name}_ref.wav"
done
run scene "$out/scene/scene_mic.wav" "$out/scene/scene_ref.wav"
"$venv/bin/python" "$here/aec/aec_bench.py" --binary "$bin" --work "$out/aec" --json "$out/aec/results.json" >"$out/aec.log" 2>&1
(cd "$out" && find . -path ./scene -prune -o \( -name '*.wav' -o -name '*.ne' -o -name '*.res' -o -name '*.log' \
    -o -name results.json \) -print | sort | xargs sha256sum) > "$out/hashes.txt"
echo "$(wc -l < "$out/hashes.txt") files hashed: $out/hashes.txt"
