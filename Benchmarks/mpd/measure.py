#!/usr/bin/env python3
"""The media path's cost against MPD, side by side in one run (docs/benchmarks.md).

Both players run AT THE SAME TIME for the whole measurement, so a busy shared machine loads both
alike: the same live stream (stream_server.py on 127.0.0.1; MP3, AAC and Ogg Vorbis, one after the
other), the same output format (48 kHz stereo S16) into the same kind of device (the package's paced
ALSA plugin, jvpaced, one PCM each, defined in one asoundrc). Whole-process CPU is utime+stime from
/proc/PID/stat over each round; each of the service's threads is read from /proc/PID/task/TID/stat, and
`rt:capture` (the capture chain: mic read, echo canceller, resampler, uplink ring) is reported separately. Also: RSS/PSS, bytes each device was fed
(proof both play in real time), start-up to READY=1 over $NOTIFY_SOCKET, the binary's size.
Standard library only.
"""
import argparse
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from procstat import cpu_seconds, free_port, memory, threads  # noqa: E402


def wait_port(port, timeout=20):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"nothing listens on 127.0.0.1:{port} after {timeout} s")


class MPD:
    """MPD's own text protocol: one connection per command (MPD drops clients idle for 60 s)."""

    def __init__(self, port):
        self.port = port

    def command(self, line):
        with socket.create_connection(("127.0.0.1", self.port), timeout=10) as sock, sock.makefile("rb") as file:
            greeting = file.readline()
            if not greeting.startswith(b"OK MPD"):
                raise SystemExit(f"not MPD: {greeting!r}")
            sock.sendall(line.encode() + b"\n")
            answer = {}
            while True:
                reply = file.readline().decode().rstrip("\n")
                if reply == "OK":
                    return answer
                if not reply or reply.startswith("ACK"):
                    raise SystemExit(f"MPD: {line}: {reply or 'connection closed'}")
                key, _, value = reply.partition(": ")
                answer[key] = value


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--service", required=True, help="the jarvis-voice binary")
    parser.add_argument("--plugin", required=True, help="libasound_module_pcm_jvpaced.so")
    parser.add_argument("--stream", action="append", required=True, metavar="LABEL=FILE",
                        help="a stream's label and audio (looped); repeat for each stream, in order")
    parser.add_argument("--stream-seconds", type=float, required=True, help="the length of each stream file")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--seconds", type=float, default=20, help="length of one round")
    parser.add_argument("--warmup", type=float, default=10)
    parser.add_argument("--ready-runs", type=int, default=5)
    parser.add_argument("--out", required=True, help="results (markdown) file")
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="jarvis-voice-mpd-bench-")
    children = []

    def spawn(argv, **kw):
        child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, **kw)
        children.append(child)
        return child

    def stop(child, sig=signal.SIGTERM, timeout=10):
        if child.poll() is None:
            child.send_signal(sig)
            try:
                return child.wait(timeout)
            except subprocess.TimeoutExpired:
                child.kill()
                return child.wait()
        return child.returncode

    try:
        asound = os.path.join(work, "asound.conf")
        with open(asound, "w") as f:
            f.write(f'pcm_type.jvpaced {{ lib "{args.plugin}" }}\n'
                    f'pcm.bench_mpd {{ type jvpaced outfile "{work}/mpd.raw" }}\n'
                    f'pcm.bench_speaker {{ type jvpaced outfile "{work}/service.raw" }}\n'
                    'pcm.bench_mic { type jvpaced }\n')
        env = dict(os.environ, ALSA_CONFIG_PATH=f"/usr/share/alsa/alsa.conf:{asound}",
                   OPENAI_API_KEY="", CREDENTIALS_DIRECTORY="", NOTIFY_SOCKET="", WATCHDOG_USEC="")

        streams = [entry.split("=", 1) for entry in args.stream]
        stream_port = free_port()
        spawn([sys.executable, os.path.join(os.path.dirname(__file__), "stream_server.py"), str(stream_port),
               str(args.stream_seconds), *(path for _, path in streams)])
        wait_port(stream_port)
        urls = [f"http://127.0.0.1:{stream_port}/{os.path.basename(path)}" for _, path in streams]

        # MPD: no database, no state file; ALSA output into its paced PCM at 48 kHz stereo S16
        # (MPD resamples 44.1 -> 48 kHz itself, with its default resampler), software volume.
        mpd_port = free_port()
        os.makedirs(os.path.join(work, "music"))
        mpd_conf = os.path.join(work, "mpd.conf")
        with open(mpd_conf, "w") as f:
            f.write(f'music_directory "{work}/music"\nbind_to_address "127.0.0.1"\nport "{mpd_port}"\n'
                    f'log_file "{work}/mpd.log"\nzeroconf_enabled "no"\n'
                    'audio_output {\n type "alsa"\n name "paced"\n device "bench_mpd"\n'
                    ' format "48000:16:2"\n mixer_type "software"\n}\n')
        mpd = spawn(["mpd", "--no-daemon", mpd_conf], env=env)
        wait_port(mpd_port)
        client = MPD(mpd_port)

        # The service: paced mic (silence) and speaker; Realtime/Jarvis never contacted (no conversation).
        for name, value in (("openai.key", "sk-unused"), ("jarvis.token", "unused")):
            path = os.path.join(work, name)
            with open(path, "w") as f:
                f.write(value + "\n")
            os.chmod(path, 0o600)
        os.makedirs(os.path.join(work, "state"), mode=0o700)
        config = os.path.join(work, "config.toml")
        with open(config, "w") as f:
            f.write(f'[audio]\ncapture_device = "bench_mic"\nplayback_device = "bench_speaker"\n'
                    'capture_rate = 16000\ncapture_channels = 1\nplayback_rate = 48000\nplayback_channels = 2\n'
                    'realtime_priority = 0\n'
                    f'[realtime]\nurl = "ws://127.0.0.1:9/v1/realtime"\napi_key_file = "{work}/openai.key"\n'
                    f'[jarvis]\nurl = "http://127.0.0.1:9/ui"\ntoken_file = "{work}/jarvis.token"\n'
                    '[button]\nenabled = false\n'
                    f'[media]\nstate_dir = "{work}/state"\nstation_catalog_url = ""\nvolume = 1.0\n'
                    f'[control]\nsocket = "{work}/control.sock"\n[log]\nlevel = "notice"\n')

        def ctl(*words):
            return subprocess.run([args.service, "ctl", "--config", config, *words], capture_output=True, text=True, timeout=20)

        service = spawn([args.service, "run", "--config", config], env=env,
                        stderr=open(os.path.join(work, "service.log"), "w"))
        deadline = time.monotonic() + 30
        while ctl("status").returncode != 0:
            if time.monotonic() > deadline or service.poll() is not None:
                raise SystemExit("the service did not answer `status`; log: " + open(os.path.join(work, "service.log")).read())
            time.sleep(0.2)
        def rounds(label, count):
            rows = []
            for _ in range(count):
                tids = threads(service.pid)
                t0 = time.monotonic()
                m0, s0 = cpu_seconds(mpd.pid), cpu_seconds(service.pid)
                per0 = {t: cpu_seconds(service.pid, t) for t in tids}
                b0 = {n: os.path.getsize(os.path.join(work, n)) for n in ("mpd.raw", "service.raw")}
                time.sleep(args.seconds)
                t1 = time.monotonic()
                m1, s1 = cpu_seconds(mpd.pid), cpu_seconds(service.pid)
                per = {}
                for t, comm in tids.items():
                    try:
                        per[comm] = per.get(comm, 0) + 100 * (cpu_seconds(service.pid, t) - per0[t]) / (t1 - t0)
                    except OSError:
                        pass
                b1 = {n: os.path.getsize(os.path.join(work, n)) for n in ("mpd.raw", "service.raw")}
                wall = t1 - t0
                rows.append(dict(mpd=100 * (m1 - m0) / wall, service=100 * (s1 - s0) / wall,
                                 capture=per.get("rt:capture", 0), threads=per,
                                 mpd_bps=(b1["mpd.raw"] - b0["mpd.raw"]) / wall,
                                 service_bps=(b1["service.raw"] - b0["service.raw"]) / wall))
                print(f"{label}: MPD {rows[-1]['mpd']:.2f} %, service {rows[-1]['service']:.2f} % "
                      f"(rt:capture {rows[-1]['capture']:.2f} %), fed {rows[-1]['mpd_bps']:.0f} / {rows[-1]['service_bps']:.0f} B/s",
                      flush=True)
            return rows

        playing = {}
        for (label, _), url in zip(streams, urls):
            client.command("clear")
            client.command(f"add {url}")
            client.command("play")
            played = ctl("play", url)
            if played.returncode != 0:
                raise SystemExit(f"ctl play {url}: {played.stdout}{played.stderr}")
            time.sleep(args.warmup)
            if client.command("status").get("state") != "play":
                raise SystemExit(f"MPD is not playing {label}: {client.command('status')}; see {work}/mpd.log")
            if '"state":"playing"' not in ctl("status").stdout:
                raise SystemExit(f"the service is not playing {label}: {ctl('status').stdout}")
            playing[label] = rounds(f"{label:>6}", args.rounds)
            for who, key in (("MPD", "mpd_bps"), ("the service", "service_bps")):
                if statistics.median(r[key] for r in playing[label]) < 0.9 * 192_000:
                    log = open(os.path.join(work, "mpd.log" if who == "MPD" else "service.log")).read()[-3000:]
                    raise SystemExit(f"{who} did not feed its device in real time ({label}); its log ends:\n{log}")
        mem = {"MPD": memory(mpd.pid), "service": memory(service.pid)}
        names = sorted(set(threads(service.pid).values()))

        client.command("stop")
        ctl("stop")
        time.sleep(3)
        idle = rounds("idle ", max(2, args.rounds // 2))

        stop(service)
        stop(mpd)

        # Start-up to READY=1: spawn -> the datagram on $NOTIFY_SOCKET.
        ready = []
        notify_path = os.path.join(work, "notify.sock")
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(notify_path)
        sock.settimeout(30)
        for _ in range(args.ready_runs):
            started = time.monotonic()
            child = spawn([args.service, "run", "--config", config], env=dict(env, NOTIFY_SOCKET=notify_path),
                          stderr=subprocess.DEVNULL)
            while True:
                message = sock.recv(4096).decode()
                if "READY=1" in message.split("\n"):
                    ready.append(1000 * (time.monotonic() - started))
                    break
            stop(child)
            time.sleep(0.5)
        sock.close()

        size = os.path.getsize(args.service)
        stripped = os.path.join(work, "jarvis-voice.stripped")
        subprocess.run(["strip", "-o", stripped, args.service], check=True)
        stripped_size = os.path.getsize(stripped)

        def med(rows, key):
            return statistics.median(r[key] for r in rows)

        lines = [
            f"Media path cost vs MPD ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores, "
            f"load average at the end {os.getloadavg()[0]:.2f}; per stream {args.rounds} rounds of {args.seconds:.0f} s, "
            "both playing at once)",
            "",
            "| radio, CPU % of one core (median of the rounds) | MPD 0.23 | jarvis-voice (whole process) "
            "| jarvis-voice without the capture chain | ratio, whole process / without the capture chain |",
            "|---|---|---|---|---|",
        ]
        for label, rows in playing.items():
            mpd_cpu, svc_cpu = med(rows, "mpd"), med(rows, "service")
            bare = statistics.median(r["service"] - r["capture"] for r in rows)
            lines.append(f"| {label} | {mpd_cpu:.2f} | {svc_cpu:.2f} | {bare:.2f} "
                         f"| **{svc_cpu / mpd_cpu:.2f}×** / {bare / mpd_cpu:.2f}× |")
        lines += [
            f"| idle (nothing playing) | {med(idle, 'mpd'):.2f} | {med(idle, 'service'):.2f} "
            f"| {statistics.median(r['service'] - r['capture'] for r in idle):.2f} | |",
            "",
            "| per round, CPU % (MPD / whole process / rt:capture) | bytes/s fed to each device (192000 = real time) |",
            "|---|---|",
        ]
        for label, rows in playing.items():
            lines.append(f"| {label}: " + "; ".join(f"{r['mpd']:.2f} / {r['service']:.2f} / {r['capture']:.2f}" for r in rows)
                         + f" | {med(rows, 'mpd_bps'):.0f} / {med(rows, 'service_bps'):.0f} |")
        lines.append("")
        for label, rows in playing.items():
            comms = sorted({c for r in rows for c in r["threads"]},
                           key=lambda c: -statistics.median(r["threads"].get(c, 0) for r in rows))
            shares = ", ".join(f"{c} {statistics.median(r['threads'].get(c, 0) for r in rows):.2f}" for c in comms
                               if statistics.median(r["threads"].get(c, 0) for r in rows) > 0)
            lines.append(f"{label}, the service's threads (CPU %, median): {shares}")
        lines += [
            "",
            f"RSS / PSS / anonymous, MiB: MPD {mem['MPD']['VmRSS'] / 1024:.1f} / {mem['MPD']['Pss'] / 1024:.1f} / "
            f"{mem['MPD']['RssAnon'] / 1024:.1f}, jarvis-voice {mem['service']['VmRSS'] / 1024:.1f} / "
            f"{mem['service']['Pss'] / 1024:.1f} / {mem['service']['RssAnon'] / 1024:.1f}; threads / fds: MPD "
            f"{mem['MPD']['Threads']} / {mem['MPD']['fds']}, jarvis-voice {mem['service']['Threads']} / {mem['service']['fds']}",
            f"jarvis-voice threads: {', '.join(names)}",
            f"start-up to READY=1: median {statistics.median(ready):.0f} ms (runs: {', '.join('%.0f' % r for r in ready)} ms)",
            f"binary {args.service}: {size / 1e6:.1f} MB, stripped {stripped_size / 1e6:.1f} MB",
        ]
        text = "\n".join(lines) + "\n"
        print("\n" + text)
        with open(args.out, "w") as f:
            f.write(text)
    finally:
        for child in children:
            stop(child, signal.SIGKILL)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
