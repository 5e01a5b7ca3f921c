#!/bin/sh
# Runs barge_in_sweep.py over 15 answer/talker voice pairings (1160 talker starts; the barge-in figures in
# docs/benchmarks.md, rebuilt from its voice tables), two at a time, and prints one summary line per pairing and
# the totals.
# Usage: Benchmarks/aec/sweep_pairings.sh [BINARY]   (default: builds and takes the release jarvis-voice;
# SWEEP_WORK=DIR keeps the per-pairing outputs there, default Benchmarks/aec/work/pairings; 2-6 min on 2 cores)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
venv=${AEC_VENV:-$here/.venv}
work=${SWEEP_WORK:-$here/work/pairings}
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q numpy scipy pyroomacoustics soundfile
fi
bin=${1:-}
if [ -z "$bin" ]; then
    (cd "$root" && swift build -c release --product jarvis-voice >/dev/null)
    bin=$root/.build/release/jarvis-voice
fi
mkdir -p "$work"
# name, then barge_in_sweep.py's voice options (the answer's and the talker's; en-us at pitch 50 by default).
cat > "$work/pairings.txt" <<'PAIRS'
usual
female-talker --talker-voice en-us+f3
deeper-talker --talker-pitch 25
higher-talker --talker-pitch 75
answer-pitch-10 --answer-pitch 10
answer-pitch-20 --answer-pitch 20
answer-m7 --answer-voice en-us+m7
answer-m3 --answer-voice en-us+m3 --talker-voice en-us+f4
answer-f3 --answer-voice en-us+f3 --talker-voice en-us+f3
answer-f2 --answer-voice en-us+f2 --talker-voice en-us+f4
answer-f4 --answer-voice en-us+f4
answer-m1 --answer-voice en-us+m1
answer-m2 --answer-voice en-us+m2
answer-m4 --answer-voice en-us+m4
answer-f3-deeper-talker --answer-voice en-us+f3 --talker-pitch 25
PAIRS
export bin work venv here
xargs -P "${SWEEP_JOBS:-2}" -L 1 sh -c '"$venv/bin/python" "$here/barge_in_sweep.py" --binary "$bin" --verbose \
    --work "$work/$0" --json "$work/$0.json" "$@" > "$work/$0.out"' < "$work/pairings.txt"
"$venv/bin/python" - "$work" <<'PY'
import json, sys
work = sys.argv[1]
keys = ("starts", "late", "false_frames", "resumed_pauses")
total = dict.fromkeys(keys, 0)
print("| pairing | starts | late (> 400 ms) | verdict median / 90th pct / max (ms) | frames on the echo / pauses resumed |")
print("|---|---|---|---|---|")
for line in open(f"{work}/pairings.txt"):
    name = line.split()[0]
    r = json.load(open(f"{work}/{name}.json"))
    for k in keys:
        total[k] += r[k]
    print(f"| {name} | {r['starts']} | {r['late']} | {r['median_ms']:.0f} / {r['p90_ms']:.0f} / {r['max_ms']:.0f} | "
          f"{r['false_frames']} / {r['resumed_pauses']} |")
print(f"| **total** | {total['starts']} | **{total['late']}** | | "
      f"**{total['false_frames']} / {total['resumed_pauses']}** |")
PY
