#!/usr/bin/env python3
"""The media path's cost against MPD, side by side in one run (docs/benchmarks.md).

Both players run AT THE SAME TIME for the whole measurement, so a busy shared machine loads both
alike: the same live MP3 stream (stream_server.py on 127.0.0.1), the same output format (48 kHz
stereo S16) into the same kind of device (the package's paced ALSA plugin, jvpaced, one PCM each,
defined in one asoundrc). Whole-process CPU is utime+stime from /proc/PID/stat over each round;
the service's `rt:capture` thread (the capture chain: mic read, echo canceller, resampler, uplink ring)
is read from /proc/PID/task/TID/stat and reported separately. Also: RSS/PSS, bytes each device was fed
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

TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid, tid=None):
    path = f"/proc/{pid}/stat" if tid is None else f"/proc/{pid}/task/{tid}/stat"
    with open(path) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def threads(pid):
    """{tid: comm} of the process's threads."""
    result = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                result[tid] = f.read().strip()
        except OSError:
            pass
    return result


def memory(pid):
    values = {}
    for path, keys in ((f"/proc/{pid}/status", ("VmRSS", "RssAnon", "RssFile", "Threads")),
                       (f"/proc/{pid}/smaps_rollup", ("Pss", "Pss_Anon"))):
        with open(path) as f:
            for line in f:
                key, _, rest = line.partition(":")
                if key in keys:
                    values[key] = int(rest.split()[0])
    values["fds"] = len(os.listdir(f"/proc/{pid}/fd"))
    return values


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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
    parser.add_argument("--mp3", required=True, help="the stream's audio (looped)")
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

        stream_port = free_port()
        spawn([sys.executable, os.path.join(os.path.dirname(__file__), "stream_server.py"), args.mp3, str(stream_port)])
        wait_port(stream_port)
        url = f"http://127.0.0.1:{stream_port}/radio.mp3"

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
        client.command(f"add {url}")
        client.command("play")

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
        played = ctl("play", url)
        if played.returncode != 0:
            raise SystemExit(f"ctl play: {played.stdout}{played.stderr}")

        time.sleep(args.warmup)
        if client.command("status").get("state") != "play":
            raise SystemExit(f"MPD is not playing: {client.command('status')}; see {work}/mpd.log")
        if '"state":"playing"' not in ctl("status").stdout:
            raise SystemExit(f"the service is not playing: {ctl('status').stdout}")

        def rounds(label, count):
            rows = []
            capture_tids = [t for t, comm in threads(service.pid).items() if comm == "rt:capture"]
            for _ in range(count):
                t0 = time.monotonic()
                m0, s0 = cpu_seconds(mpd.pid), cpu_seconds(service.pid)
                c0 = sum(cpu_seconds(service.pid, t) for t in capture_tids)
                b0 = {n: os.path.getsize(os.path.join(work, n)) for n in ("mpd.raw", "service.raw")}
                time.sleep(args.seconds)
                t1 = time.monotonic()
                m1, s1 = cpu_seconds(mpd.pid), cpu_seconds(service.pid)
                c1 = sum(cpu_seconds(service.pid, t) for t in capture_tids)
                b1 = {n: os.path.getsize(os.path.join(work, n)) for n in ("mpd.raw", "service.raw")}
                wall = t1 - t0
                rows.append(dict(mpd=100 * (m1 - m0) / wall, service=100 * (s1 - s0) / wall,
                                 capture=100 * (c1 - c0) / wall,
                                 mpd_bps=(b1["mpd.raw"] - b0["mpd.raw"]) / wall,
                                 service_bps=(b1["service.raw"] - b0["service.raw"]) / wall))
                print(f"{label}: MPD {rows[-1]['mpd']:.2f} %, service {rows[-1]['service']:.2f} % "
                      f"(rt:capture {rows[-1]['capture']:.2f} %), fed {rows[-1]['mpd_bps']:.0f} / {rows[-1]['service_bps']:.0f} B/s",
                      flush=True)
            return rows

        playing = rounds("radio", args.rounds)
        for who, key in (("MPD", "mpd_bps"), ("the service", "service_bps")):
            if statistics.median(r[key] for r in playing) < 0.9 * 192_000:
                log = open(os.path.join(work, "mpd.log" if who == "MPD" else "service.log")).read()[-3000:]
                raise SystemExit(f"{who} did not feed its device in real time; its log ends:\n{log}")
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

        def series(rows, key, minus=None):
            return ", ".join("%.2f" % (r[key] - (r[minus] if minus else 0)) for r in rows)

        mpd_cpu, svc_cpu, cap_cpu = med(playing, "mpd"), med(playing, "service"), med(playing, "capture")
        lines = [
            f"Media path cost vs MPD ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores, "
            f"load average at the end {os.getloadavg()[0]:.2f}; {args.rounds} rounds of {args.seconds:.0f} s, both playing at once)",
            "",
            "| | MPD 0.23 | jarvis-voice (whole process) | jarvis-voice without the capture chain | ratio, without / with the capture chain |",
            "|---|---|---|---|---|",
            f"| radio, CPU % of one core (median) | {mpd_cpu:.2f} | {svc_cpu:.2f} | {svc_cpu - cap_cpu:.2f} "
            f"| {(svc_cpu - cap_cpu) / mpd_cpu:.2f}× / {svc_cpu / mpd_cpu:.2f}× |",
            f"| radio, CPU % per round | {series(playing, 'mpd')} | {series(playing, 'service')} "
            f"| {series(playing, 'service', 'capture')} | |",
            f"| idle (nothing playing), CPU % (median) | {med(idle, 'mpd'):.2f} | {med(idle, 'service'):.2f} "
            f"| {med(idle, 'service') - med(idle, 'capture'):.2f} | |",
            f"| bytes/s fed to the device while playing (48 kHz × 2 ch × 2 B = 192000) | {med(playing, 'mpd_bps'):.0f} "
            f"| {med(playing, 'service_bps'):.0f} | | |",
            f"| RSS / PSS / anonymous, MiB | {mem['MPD']['VmRSS'] / 1024:.1f} / {mem['MPD']['Pss'] / 1024:.1f} / {mem['MPD']['RssAnon'] / 1024:.1f} "
            f"| {mem['service']['VmRSS'] / 1024:.1f} / {mem['service']['Pss'] / 1024:.1f} / {mem['service']['RssAnon'] / 1024:.1f} | | |",
            f"| threads / fds | {mem['MPD']['Threads']} / {mem['MPD']['fds']} | {mem['service']['Threads']} / {mem['service']['fds']} | | |",
            "",
            f"jarvis-voice threads: {', '.join(names)}; the capture chain is `rt:capture` "
            f"({cap_cpu:.2f} % while the radio plays, {med(idle, 'capture'):.2f} % idle).",
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
