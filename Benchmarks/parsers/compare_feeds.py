#!/usr/bin/env python3
"""Compares what jarvis-voice's feed parser (via `parse-dump feeds`) reads from real podcast feeds with
what Python feedparser (the reference) reads: per episode with an http(s) enclosure, the enclosure URL,
the title (itunes:title, else title) and the publication date; per feed, the latest episode's URL.

usage: compare_feeds.py PARSE_DUMP FEED_FILE...   (prints a summary; mismatches go to stderr)"""
import calendar
import json
import subprocess
import sys
import urllib.parse

import feedparser

BASE = "https://feeds.example/podcast/feed.xml"


def normalize_url(url):
    """As MediaURL stores a URL: spaces percent-encoded, scheme and host lower-case, no fragment, path at least "/"."""
    url = url.strip().replace(" ", "%20")
    parts = urllib.parse.urlsplit(url)
    path = parts.path or "/"
    return urllib.parse.urlunsplit((parts.scheme.lower(), parts.netloc.lower(), path, parts.query, ""))


def words(text):
    return " ".join((text or "").split())


def reference(path):
    with open(path, "rb") as f:
        data = f.read()
    parsed = feedparser.parse(data, response_headers={"content-location": BASE})
    episodes = []
    for entry in parsed.entries:
        hrefs = [e.get("href", "").strip() for e in entry.get("enclosures", []) if e.get("href", "").strip()]
        if not hrefs:
            continue
        url = normalize_url(urllib.parse.urljoin(BASE, hrefs[0]))
        if not url.startswith(("http://", "https://")):
            continue
        stamp = entry.get("published_parsed") or entry.get("updated_parsed")
        episodes.append({
            "enclosure": url,
            # An untitled episode is named after its file (lower-cased), as the product does.
            "title": words(entry.get("itunes_title") or entry.get("title"))
            or urllib.parse.urlsplit(url).path.rstrip("/").rsplit("/", 1)[-1].lower(),
            "published": calendar.timegm(stamp) if stamp else None,
        })
    latest = None
    if episodes:
        ranked = sorted(enumerate(episodes), key=lambda p: (p[1]["published"] is None, -(p[1]["published"] or 0), p[0]))
        latest = ranked[0][1]["enclosure"]
    return episodes, latest


def main():
    parse_dump, files = sys.argv[1], sys.argv[2:]
    run = subprocess.run([parse_dump, "feeds", BASE], input="\n".join(files) + "\n", capture_output=True, text=True, check=True)
    ours = {}
    for line in run.stdout.splitlines():
        record = json.loads(line)
        ours[record["file"]] = record
    totals = dict(feeds=0, episodes=0, enclosure=0, title=0, published=0, latest_feeds=0, latest=0, count_mismatch=0)
    for path in files:
        expected, expected_latest = reference(path)
        got = ours.get(path, {})
        episodes = [{"enclosure": normalize_url(e["enclosure"]), "title": words(e["title"]), "published": e["published"]}
                    for e in got.get("episodes", [])]
        totals["feeds"] += 1
        if len(episodes) != len(expected):
            totals["count_mismatch"] += 1
            print(f"{path}: {len(episodes)} episodes, feedparser {len(expected)} {got.get('error', '')}", file=sys.stderr)
        for index, want in enumerate(expected):
            have = episodes[index] if index < len(episodes) else {}
            totals["episodes"] += 1
            for key in ("enclosure", "title", "published"):
                if have.get(key) == want[key]:
                    totals[key] += 1
                else:
                    print(f"{path} #{index} {key}: ours {have.get(key)!r} feedparser {want[key]!r}", file=sys.stderr)
        if expected:
            totals["latest_feeds"] += 1
            have_latest = normalize_url(got["latest"]) if got.get("latest") else None
            if have_latest == expected_latest:
                totals["latest"] += 1
            else:
                print(f"{path} latest: ours {have_latest!r} feedparser {expected_latest!r}", file=sys.stderr)
    n = totals["episodes"]
    pct = lambda k: f"{totals[k]}/{n} ({100.0 * totals[k] / n:.2f} %)" if n else "0/0"
    print(f"feeds {totals['feeds']}, episodes with an http(s) enclosure (feedparser) {n}, feeds whose episode count differs {totals['count_mismatch']}")
    print(f"latest-episode URL {totals['latest']}/{totals['latest_feeds']}")
    print(f"enclosure URLs {pct('enclosure')}")
    print(f"titles {pct('title')}")
    print(f"pubDates {pct('published')}")


if __name__ == "__main__":
    main()
