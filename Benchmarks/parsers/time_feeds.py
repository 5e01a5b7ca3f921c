#!/usr/bin/env python3
"""Times `parse-dump feeds` (the product's parser, one process per run) and feedparser (the anchor, in a
child process, stopped after LIMIT seconds) on the same files, best of 3 each.
usage: time_feeds.py PARSE_DUMP FILE..."""
import json
import subprocess
import sys
import time

LIMIT = 60


def best(fn, runs=3):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


dump = sys.argv[1]
print(f"{'file':<22} {'MiB':>5} {'parse s':>8} {'process s':>10} {'feedparser s':>13}")
for path in sys.argv[2:]:
    size = len(open(path, "rb").read())
    # The parse alone (best of 3 inside parse-dump), and the whole process (start, parse, JSON out).
    parse = json.loads(subprocess.run([dump, "feed-time"], input=path + "\n", capture_output=True, text=True, check=True).stdout)["seconds"]
    ours = best(lambda: subprocess.run([dump, "feeds"], input=path + "\n", capture_output=True, text=True, check=True))
    # Start-up of the child (importing feedparser) is measured and subtracted.
    script = "import feedparser, sys; data = open(sys.argv[1], 'rb').read(); feedparser.parse(data) if sys.argv[2] == '1' else None"
    try:
        start_up = best(lambda: subprocess.run([sys.executable, "-c", script, path, "0"], check=True))
        theirs = f"{best(lambda: subprocess.run([sys.executable, '-c', script, path, '1'], check=True, timeout=LIMIT)) - start_up:13.3f}"
    except subprocess.TimeoutExpired:
        theirs = f"{'> ' + str(LIMIT) + ' (stopped)':>13}"
    name = path.rsplit("/", 1)[-1]
    print(f"{name:<22} {size / 1048576:5.1f} {parse:8.3f} {ours:10.3f} {theirs}")
