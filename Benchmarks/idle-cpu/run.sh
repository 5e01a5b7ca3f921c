#!/usr/bin/env bash
# Idle CPU of `jarvis-voice run` (release build, paced test sound devices, no conversation, nothing
# playing) beside MPD's (Debian `mpd`, started and not playing), both measured over the same window
# from /proc/PID/stat (utime + stime, in 10 ms ticks) and from the scheduler's own run time of every thread
# (/proc/PID/task/TID/schedstat, in ns: the ticks only count whichever thread a tick lands on, which is coarse for
# a few milliseconds per second). Usage: Benchmarks/idle-cpu/run.sh [SECONDS] (default 60).
# JARVIS_VOICE=/path/to/jarvis-voice measures that binary instead (e.g. an older build, for a before/after).
set -euo pipefail
export LC_ALL=C
cd "$(dirname "$0")/../.."
window=${1:-60}
command -v mpd >/dev/null || { echo "mpd is not installed: apt-get install mpd" >&2; exit 1; }

swift build -c release --product jarvis-voice >&2
swift build -c release --product asound_module_pcm_jvpaced >&2
bin=$(swift build -c release --show-bin-path)

work=$(mktemp -d /tmp/jarvis-idle-cpu.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait "${pids[@]}" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

# The service on two paced test PCMs (16 kHz mic, 48 kHz stereo speaker, 10 ms periods, as on the device),
# the button off. No emulated acoustic link: its per-sample cost is the emulator's, not the service's.
cat > "$work/asound.conf" <<CONF
pcm_type.jvpaced { lib "$bin/libasound_module_pcm_jvpaced.so" }
pcm.idle_mic { type jvpaced }
pcm.idle_speaker { type jvpaced }
CONF
printf 'sk-idle-measurement\n' > "$work/openai.key"; chmod 600 "$work/openai.key"
printf 'token\n' > "$work/jarvis.token"; chmod 600 "$work/jarvis.token"
cat > "$work/config.toml" <<CONF
[audio]
capture_device = "idle_mic"
playback_device = "idle_speaker"
realtime_priority = 0
[realtime]
url = "ws://127.0.0.1:9/v1/realtime"
api_key_file = "$work/openai.key"
[jarvis]
url = "http://127.0.0.1:9"
token_file = "$work/jarvis.token"
[button]
enabled = false
[control]
socket = "$work/control.sock"
[media]
state_dir = "$work/state"
[log]
level = "notice"
CONF
ALSA_CONFIG_PATH="/usr/share/alsa/alsa.conf:$work/asound.conf" NOTIFY_SOCKET= WATCHDOG_USEC= CREDENTIALS_DIRECTORY= \
    "${JARVIS_VOICE:-$bin/jarvis-voice}" run --config "$work/config.toml" 2> "$work/service.log" &
service=$!; pids+=("$service")

# MPD, idle: an empty library, a null output, not playing.
mkdir -p "$work/music" "$work/playlists"
cat > "$work/mpd.conf" <<CONF
music_directory "$work/music"
playlist_directory "$work/playlists"
db_file "$work/mpd.db"
state_file "$work/mpd.state"
bind_to_address "127.0.0.1"
port "$((20000 + RANDOM % 20000))"
audio_output {
    type "null"
    name "null"
}
CONF
mpd --no-daemon --stderr "$work/mpd.conf" 2> "$work/mpd.log" &
mpdpid=$!; pids+=("$mpdpid")

sleep 5  # start-up (device open, first periods, MPD's database scan) is not idle
kill -0 "$service" 2>/dev/null || { echo "jarvis-voice exited:" >&2; cat "$work/service.log" >&2; exit 1; }
kill -0 "$mpdpid" 2>/dev/null || { echo "mpd exited:" >&2; cat "$work/mpd.log" >&2; exit 1; }

ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }   # utime + stime, in clock ticks
threads() {  # tid:name ticks run-time-ns runs, for each thread still alive
    for t in /proc/"$1"/task/*; do
        { comm=$(tr ' ' '_' < "$t/comm") && ticks=$(awk '{ print $14 + $15 }' "$t/stat") &&
            read -r ns _ runs < "$t/schedstat"; } 2>/dev/null || continue
        printf '%s:%s %s %s %s\n' "${t##*/}" "$comm" "$ticks" "$ns" "$runs"
    done
}
runtime() {  # ns on a CPU, summed over the threads alive now
    cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ n += $1 } END { printf "%d", n }'
}
hz=$(getconf CLK_TCK)
s0=$(ticks "$service"); m0=$(ticks "$mpdpid"); threads "$service" | sort > "$work/threads0"
r0=$(runtime "$service"); q0=$(runtime "$mpdpid")
sleep "$window"
s1=$(ticks "$service"); m1=$(ticks "$mpdpid"); threads "$service" | sort > "$work/threads1"
r1=$(runtime "$service"); q1=$(runtime "$mpdpid")

percent() { awk -v d="$1" -v hz="$hz" -v w="$window" 'BEGIN { printf "%.2f", 100 * d / hz / w }'; }
exact() { awk -v d="$1" -v w="$window" 'BEGIN { printf "%.3f", 100 * d / 1e9 / w }'; }
echo "idle CPU over ${window} s (% of one core: scheduler run time, and /proc utime+stime at ${hz} ticks/s):"
printf '| program | idle CPU (run time) | idle CPU (ticks) |\n|---|---|---|\n'
printf '| jarvis-voice run (release, paced devices, no conversation) | %s %% | %s %% |\n' \
    "$(exact $((r1 - r0)))" "$(percent $((s1 - s0)))"
printf '| mpd %s (not playing) | %s %% | %s %% |\n' "$(mpd --version | head -1 | awk '{ print $NF }')" \
    "$(exact $((q1 - q0)))" "$(percent $((m1 - m0)))"
echo "jarvis-voice threads over the window (run time, ticks, times it ran):"
join "$work/threads0" "$work/threads1" | awk -v w="$window" '{ ns = $6 - $3; if (ns > 0) { sub(/^[0-9]+:/, "", $1)
    printf "  %-20s %8.1f ms %4d ticks %7.1f runs/s\n", $1, ns / 1e6, $5 - $2, ($7 - $4) / w } }' | sort -k2 -nr
