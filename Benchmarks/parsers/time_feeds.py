#!/usr/bin/env python3
"""Times `parse-dump feeds` (the product's parser, one process per run) and feedparser (the anchor) on the
same files, best of 3 each. usage: time_feeds.py PARSE_DUMP FILE..."""
import subprocess
import sys
import time

import feedparser


def best(fn, runs=3):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


dump = sys.argv[1]
print(f"{'file':<22} {'MiB':>5} {'jarvis-voice s':>15} {'feedparser s':>13}")
for path in sys.argv[2:]:
    with open(path, "rb") as f:
        data = f.read()
    ours = best(lambda: subprocess.run([dump, "feeds"], input=path + "\n", capture_output=True, text=True, check=True))
    theirs = best(lambda: feedparser.parse(data))
    name = path.rsplit("/", 1)[-1]
    print(f"{name:<22} {len(data) / 1048576:5.1f} {ours:15.3f} {theirs:13.3f}")
