#!/bin/sh
# Boot KERNEL+INITRD under KVM with this machine's / shared read-only over 9p and
# WORKDIR shared read-write at /tmp/job in the guest; runs WORKDIR/guest.sh as root,
# multidevs=remap: without it, host mount points with equal inode numbers (/proc, /sys) collide
# in the guest (sysfs ended up on /proc and Swift binaries died without /proc/self).
# modules for the guest kernel must be reachable from the guest (e.g. inside WORKDIR).
# usage: run-in-vm.sh KERNEL INITRD WORKDIR [extra qemu args]   -> exit code of guest.sh
set -eu
K=$1; I=$2; W=$(cd "$3" && pwd); shift 3
rm -f "$W/guest.rc" "$W/guest.log"
# Default: TCG (software emulation). On the build machines /dev/kvm is PVM-backed (kvm_pvm) and a
# stock Debian kernel hangs in its early boot code under it; set QEMU_ACCEL=kvm on real KVM hosts.
if [ "${QEMU_ACCEL:-tcg}" = kvm ]; then ACCEL="-enable-kvm -cpu host,-arch-capabilities"; else ACCEL="-accel tcg -cpu max"; fi
timeout 300 qemu-system-x86_64 $ACCEL -m 1024 -smp 2 -nographic -no-reboot \
  -kernel "$K" -initrd "$I" -append "console=ttyS0 quiet panic=-1" \
  -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
  -virtfs local,path="$W",mount_tag=work,security_model=none \
  "$@" > "$W/console.log" 2>&1 || true
[ -f "$W/guest.log" ] && cat "$W/guest.log"
[ -f "$W/guest.rc" ] || { echo "no guest.rc; console:"; tail -30 "$W/console.log"; exit 125; }
exit "$(cat "$W/guest.rc")"
