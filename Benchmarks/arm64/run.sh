#!/usr/bin/env bash
# The cost on a Raspberry Pi, counted in aarch64 instructions: the arm64 package in the arm64
# systemd VM of `scripts/vm-test --arch arm64` (qemu-system-aarch64, TCG, one Cortex-A72 CPU),
# with a QEMU plugin (insncount.c) counting the guest's user-space instructions between marks the
# guest sets (guest-measure). Counts are exact and repeatable where times under emulation are not.
# Measured: the capture chain per audio-second beside plain C speexdsp (Benchmarks/capture-chain's
# programs built for aarch64, a 20 s run minus a 5 s run), the whole system with the service idle
# for a minute, playing radio for a minute, and over one spoken turn; the service's peak resident
# memory. Reported as percent of a Pi Zero 2 W core and a Pi 4 core with the stated IPC.
# usage (root, amd64 Debian 12): Benchmarks/arm64/run.sh      (~15 min with the caches warm)
# env: ARM64_BENCH_JOB=DIR (default .build/arm64-bench), JARVIS_CROSS_CACHE, JARVIS_VM_CACHE
set -euo pipefail; export LC_ALL=C
cd "$(dirname "$0")/../.."
repo=$PWD; here=$repo/Benchmarks/arm64
cross=${JARVIS_CROSS_CACHE:-/var/cache/jarvis-voice-cross}
cache=${JARVIS_VM_CACHE:-/var/cache/jarvis-voice-vm-arm64}
job=${ARM64_BENCH_JOB:-$repo/.build/arm64-bench}
say() { echo "arm64-bench: $*"; }
rm -rf "$job"; mkdir -p "$job/deb"

# 1. the package, and the benchmark programs for aarch64 (speex_chain against bookworm's libspeexdsp)
say "package and programs (cross-built)"
scripts/package-deb --arch arm64 "$job/deb" > "$job/package.log" 2>&1 || { tail -n 30 "$job/package.log"; exit 1; }
deb=$(ls "$job"/deb/*.deb)
scripts/cross/build "$cross" -c release --product capture-bench --static-swift-stdlib > "$job/build.log" 2>&1 \
  || { tail -n 30 "$job/build.log"; exit 1; }
scripts/cross/build "$cross" -c release --product media-bench --static-swift-stdlib >> "$job/build.log" 2>&1 \
  || { tail -n 30 "$job/build.log"; exit 1; }
cp .build-arm64/release/capture-bench .build-arm64/release/media-bench "$job/"
clang=(scripts/cross/enter "$cross" sid-amd64 /usr/libexec/swift/bin/clang --target=aarch64-linux-gnu
       --sysroot="$cross/bookworm-arm64" -fuse-ld=lld -O2)
"${clang[@]}" -o "$job/speex_chain" "$repo/Benchmarks/capture-chain/speex_chain.c" -lspeexdsp
"${clang[@]}" -nostdlib -static -o "$job/insn-mark" "$here/insn-mark.c"
gcc -shared -fPIC -O2 -Wall -o "$job/insncount.so" "$here/insncount.c"
Benchmarks/capture-chain/scene.sh "$job" >/dev/null 2>&1
for s in 5 20; do
  sox -D "$job/scene_mic.wav" "$job/mic$s.wav" trim 0 $s
  sox -D "$job/scene_ref.wav" "$job/ref$s.wav" trim 0 $s
done

# 2. the VM image (shared with scripts/vm-test --arch arm64), the stand-ins and a radio on the host
say "VM image"
ARCH=arm64 scripts/vm/prepare "$cache" "$deb" | sed 's/^/arm64-bench: /'
swift build -c release --static-swift-stdlib --product vm-standins > "$job/standins-build.log" 2>&1 \
  || { tail -n 30 "$job/standins-build.log"; exit 1; }
"$(swift build -c release --static-swift-stdlib --show-bin-path)/vm-standins" "$job" 3600 > "$job/standins.log" 2>&1 &
pids=($!)
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
sox -D -n -r 44100 -c 2 -C 128 "$job/radio.mp3" synth 60 pinknoise vol 0.3
for s in 5 20; do sox -D "$job/radio.mp3" "$job/radio$s.mp3" trim 0 $s; done
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 Benchmarks/mpd/stream_server.py "$port" 60 "$job/radio.mp3" > "$job/radio.log" 2>&1 &
pids+=($!)
echo "RADIO_PORT=$port" > "$job/radio.env"
for _ in $(seq 600); do [ -f "$job/standins.report" ] && break; sleep 0.1; done
[ -f "$job/standins.report" ] || { cat "$job/standins.log"; exit 1; }
. "$cache/vm.env"
qemu-img create -q -f qcow2 -F raw -b "$cache/$IMAGE" "$job/disk.qcow2"
printf 'DEB=%s\nDEB_UPGRADE=\nVERSION_UPGRADE=\n' "$(basename "$deb")" > "$job/debs.env"
cp "$deb" "$job/"

# 3. install as the owner does (scripts/vm-test's first boot), then the measuring boot
say "boot 1: install"
cp scripts/vm/guest-checks "$job/guest.sh"; echo install > "$job/phase"; : > "$job/results"
VM_QUIET=1 scripts/vm/run-vm "$cache" "$job/disk.qcow2" "$job" || true
grep -q '^0 .* PASS ' "$job/results" || { cat "$job/results" "$job/guest.log" 2>/dev/null | tail -n 30; exit 1; }
say "boot 2: measure (one CPU, counting)"
cp scripts/vm/guest-checks "$job/guest-checks.sh"; cp "$here/guest-measure" "$job/guest.sh"; echo measure > "$job/phase"
VM_QUIET=1 VM_CPUS=1 VM_TIMEOUT=1200 scripts/vm/run-vm "$cache" "$job/disk.qcow2" "$job" \
  -plugin "$job/insncount.so,profile=$job/profile.txt" -d plugin -D "$job/insncount.log" || { tail -n 30 "$job/guest.log"; exit 1; }
# a stretch that did not run as meant is no figure
if grep -E "radio not playing|not ready" "$job/guest.log"; then say "a stretch did not run as meant (above; $job/guest.log)"; exit 1; fi

# 4. the table: each stretch's user instructions from the plugin's marks, in the guest's order; where
#    the service's instructions go while idle and while playing radio, by function
cp .build-arm64/release/jarvis-voice "$job/jarvis-voice.unstripped"
python3 "$here/report.py" "$job" "$cross/bookworm-arm64"
