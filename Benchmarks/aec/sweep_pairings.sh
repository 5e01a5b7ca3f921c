#!/bin/sh
# Runs barge_in_sweep.py over the 15 answer/talker voice pairings the README's barge-in figures cite (1160 talker
# starts), two at a time, and prints one summary line per pairing plus the totals.
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
    --work "$work/$0" "$@" > "$work/$0.out"' < "$work/pairings.txt"
"$venv/bin/python" - "$work" <<'PY'
import re, sys
work = sys.argv[1]
total = [0, 0, 0, 0]
print("| pairing | starts | late (> 400 ms) | verdict median / 90th pct / max (ms) | frames on the echo / pauses resumed |")
print("|---|---|---|---|---|")
for line in open(f"{work}/pairings.txt"):
    name = line.split()[0]
    text = open(f"{work}/{name}.out").read()
    s = re.search(r"talker starts: (\d+).*?median (\d+) ms, 90th percentile (\d+) ms, max (\d+) ms; later than 400 ms or "
                  r"missed: (\d+); verdict frames before the talker: (\d+)", text)
    r = re.search(r"pauses that resumed: (\d+)", text)
    starts, med, p90, mx, late, false = (int(x) for x in s.groups())
    resumed = int(r.group(1)) if r else 0
    for i, v in enumerate((starts, late, false, resumed)):
        total[i] += v
    print(f"| {name} | {starts} | {late} | {med} / {p90} / {mx} | {false} / {resumed} |")
print(f"| **total** | {total[0]} | **{total[1]}** | | **{total[2]} / {total[3]}** |")
PY
