#!/usr/bin/env python3
"""The Snapcast player's cost against Debian's snapclient, side by side in one run (docs/benchmarks.md).

One snapserver 0.26 on 127.0.0.1 plays a looped minute of pink noise (48 kHz stereo S16, from a fifo) to
two clients AT THE SAME TIME, so a busy shared machine loads both alike: `jarvis-voice run` with
`[snapcast]` on, and `snapclient --player alsa`, each into its own paced ALSA PCM (jvpaced, one asoundrc).
The server runs once per codec (flac, opus, pcm); both clients reconnect to it. Whole-process CPU is
utime+stime from /proc/PID/stat over each round; the service's `rt:capture` thread (the capture chain,
which snapclient does not have) is reported separately. Bytes fed to each device prove both play in real
time. Standard library only.
"""
import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from procstat import cpu_seconds, free_port, memory, threads  # noqa: E402

REAL_TIME = 48_000 * 2 * 2  # bytes per second into a 48 kHz stereo S16 device


def thread_named(pid, name):
    return next((tid for tid, comm in threads(pid).items() if comm == name), None)


def accepts(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--service", required=True, help="the jarvis-voice binary")
    parser.add_argument("--plugin", required=True, help="libasound_module_pcm_jvpaced.so")
    parser.add_argument("--audio", required=True, help="raw 48 kHz stereo S16 audio, looped into the server")
    parser.add_argument("--codec", action="append", help="snapserver codecs, in order (default flac, opus, pcm)")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--seconds", type=float, default=20, help="length of one round")
    parser.add_argument("--warmup", type=float, default=10)
    parser.add_argument("--out", required=True, help="results (markdown) file")
    args = parser.parse_args()
    codecs = args.codec or ["flac", "opus", "pcm"]

    work = tempfile.mkdtemp(prefix="jarvis-voice-rooms-bench-")
    children = []

    def spawn(argv, log, **kw):
        child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                 stderr=open(os.path.join(work, log), "a"), **kw)
        children.append(child)
        return child

    def stop(child, sig=signal.SIGTERM, timeout=10):
        if child.poll() is None:
            child.send_signal(sig)
            try:
                child.wait(timeout)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()

    def log_tail(name):
        return open(os.path.join(work, name)).read()[-3000:]

    try:
        asound = os.path.join(work, "asound.conf")
        with open(asound, "w") as f:
            f.write(f'pcm_type.jvpaced {{ lib "{args.plugin}" }}\n'
                    f'pcm.bench_snapclient {{ type jvpaced outfile "{work}/snapclient.raw" }}\n'
                    f'pcm.bench_speaker {{ type jvpaced outfile "{work}/service.raw" }}\n'
                    'pcm.bench_mic { type jvpaced }\n')
        env = dict(os.environ, ALSA_CONFIG_PATH=f"/usr/share/alsa/alsa.conf:{asound}",
                   OPENAI_API_KEY="", CREDENTIALS_DIRECTORY="", NOTIFY_SOCKET="", WATCHDOG_USEC="")
        stream_port, control_port = free_port(), free_port()
        fifo = os.path.join(work, "default.fifo")

        def start_server(codec):
            server = spawn([
                "snapserver", "-c", f"{work}/none.conf", f"--server.datadir={work}", "--logging.sink=stderr",
                "--http.enabled=false", "--tcp.bind_to_address=127.0.0.1", f"--tcp.port={control_port}",
                "--stream.bind_to_address=127.0.0.1", f"--stream.port={stream_port}", f"--stream.codec={codec}",
                f"--stream.source=pipe://{fifo}?name=default&sampleformat=48000:16:2&mode=create"], "snapserver.log")
            deadline = time.monotonic() + 20
            while not (accepts(stream_port) and os.path.exists(fifo)):
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit("snapserver did not start; its log ends:\n" + log_tail("snapserver.log"))
                time.sleep(0.1)
            # The feed: the audio looped into the fifo; the server reads it in real time and the
            # writes block in between. It ends with the server (EPIPE).
            def feed():
                audio = open(args.audio, "rb").read()
                try:
                    with open(fifo, "wb") as pipe:
                        while True:
                            pipe.write(audio)
                except OSError:
                    pass
            threading.Thread(target=feed, daemon=True).start()
            return server

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
                    f'[snapcast]\nenabled = true\nserver = "127.0.0.1:{stream_port}"\nname = "bench-box"\n'
                    f'control_port = {control_port}\n'
                    f'[control]\nsocket = "{work}/control.sock"\n[log]\nlevel = "notice"\n')

        def status():
            result = subprocess.run([args.service, "ctl", "--config", config, "status", "--json"],
                                    capture_output=True, text=True, timeout=20)
            return json.loads(result.stdout) if result.returncode == 0 else None

        server = start_server(codecs[0])
        snapclient = spawn(["snapclient", "-h", "127.0.0.1", "-p", str(stream_port), "--hostID", "bench-snapclient",
                            "-s", "bench_snapclient", "--player", "alsa"], "snapclient.log", env=env)
        service = spawn([args.service, "run", "--config", config], "service.log", env=env)

        def rounds(label, count):
            rows = []
            capture = thread_named(service.pid, "rt:capture")
            for _ in range(count):
                t0 = time.monotonic()
                c0, s0 = cpu_seconds(snapclient.pid), cpu_seconds(service.pid)
                r0 = cpu_seconds(service.pid, capture) if capture else 0
                b0 = {n: os.path.getsize(os.path.join(work, n)) for n in ("snapclient.raw", "service.raw")}
                time.sleep(args.seconds)
                wall = time.monotonic() - t0
                c1, s1 = cpu_seconds(snapclient.pid), cpu_seconds(service.pid)
                r1 = cpu_seconds(service.pid, capture) if capture else 0
                b1 = {n: os.path.getsize(os.path.join(work, n)) for n in ("snapclient.raw", "service.raw")}
                rows.append(dict(snapclient=100 * (c1 - c0) / wall, service=100 * (s1 - s0) / wall, capture=100 * (r1 - r0) / wall,
                                 snapclient_bps=(b1["snapclient.raw"] - b0["snapclient.raw"]) / wall,
                                 service_bps=(b1["service.raw"] - b0["service.raw"]) / wall))
                row = rows[-1]
                print(f"{label}: snapclient {row['snapclient']:.2f} %, service {row['service']:.2f} % "
                      f"(rt:capture {row['capture']:.2f} %), fed {row['snapclient_bps']:.0f} / {row['service_bps']:.0f} B/s",
                      flush=True)
            return rows

        playing, mem = {}, {}
        for index, codec in enumerate(codecs):
            if index > 0:
                stop(server)
                server = start_server(codec)
            deadline = time.monotonic() + 30
            while True:
                state = status()
                snapcast = (state or {}).get("snapcast") or {}
                if snapcast.get("playing") and snapcast.get("codec") == codec:
                    break
                if time.monotonic() > deadline or service.poll() is not None:
                    raise SystemExit(f"the box is not playing the {codec} group: {snapcast}; its log ends:\n" + log_tail("service.log"))
                time.sleep(0.2)
            time.sleep(args.warmup)
            playing[codec] = rounds(f"{codec:>5}", args.rounds)
            for who, key, log in (("snapclient", "snapclient_bps", "snapclient.log"), ("the box", "service_bps", "service.log")):
                if statistics.median(r[key] for r in playing[codec]) < 0.9 * REAL_TIME:
                    raise SystemExit(f"{who} did not feed its device in real time ({codec}); its log ends:\n" + log_tail(log))
            mem[codec] = {"snapclient": memory(snapclient.pid), "service": memory(service.pid)}
        stop(server)
        time.sleep(3)
        idle = rounds(" idle", max(2, args.rounds // 2))

        def med(rows, key):
            return statistics.median(r[key] for r in rows)

        lines = [
            f"Snapcast player cost vs snapclient ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores, "
            f"load average at the end {os.getloadavg()[0]:.2f}; per codec {args.rounds} rounds of {args.seconds:.0f} s, "
            "both playing at once)",
            "",
            "| the group's codec, CPU % of one core (median of the rounds) | snapclient 0.26 | jarvis-voice (whole process) "
            "| jarvis-voice without the capture chain | ratio, whole process / without the capture chain |",
            "|---|---|---|---|---|",
        ]
        for codec, rows in playing.items():
            client_cpu, box_cpu = med(rows, "snapclient"), med(rows, "service")
            bare = statistics.median(r["service"] - r["capture"] for r in rows)
            lines.append(f"| {codec} | {client_cpu:.2f} | {box_cpu:.2f} | {bare:.2f} "
                         f"| **{box_cpu / client_cpu:.2f}×** / {bare / client_cpu:.2f}× |")
        lines += [
            f"| no server (both waiting to reconnect) | {med(idle, 'snapclient'):.2f} | {med(idle, 'service'):.2f} "
            f"| {statistics.median(r['service'] - r['capture'] for r in idle):.2f} | |",
            "",
            "| per round, CPU % (snapclient / whole process / rt:capture) | bytes/s fed to each device (192000 = real time) |",
            "|---|---|",
        ]
        for codec, rows in playing.items():
            lines.append(f"| {codec}: " + "; ".join(f"{r['snapclient']:.2f} / {r['service']:.2f} / {r['capture']:.2f}" for r in rows)
                         + f" | {med(rows, 'snapclient_bps'):.0f} / {med(rows, 'service_bps'):.0f} |")
        lines.append("")
        for codec, both in mem.items():
            client, box = both["snapclient"], both["service"]
            lines.append(f"{codec}, RSS / PSS / anonymous MiB: snapclient {client['VmRSS'] / 1024:.1f} / {client['Pss'] / 1024:.1f} / "
                         f"{client['RssAnon'] / 1024:.1f}, jarvis-voice {box['VmRSS'] / 1024:.1f} / {box['Pss'] / 1024:.1f} / "
                         f"{box['RssAnon'] / 1024:.1f}; threads: snapclient {client['Threads']}, jarvis-voice {box['Threads']}")
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
