#!/usr/bin/env python3
"""Writes the size-limit feeds for the timing run: DIR/limit-8mib.xml (real-looking items up to the
8 MiB feed limit) and DIR/nested-8mib.xml (unclosed <a> elements up to the limit: the old hang)."""
import sys

LIMIT = 8 * 1024 * 1024
out = sys.argv[1]
item = (
    "<item><title>Episode {n}: caf&eacute; &amp; more</title>"
    "<itunes:title>Episode {n}</itunes:title><guid isPermaLink=\"false\">ep-{n}</guid>"
    "<pubDate>Tue, {d:02d} Jul 2024 09:30:00 +0200</pubDate><itunes:duration>1:02:03</itunes:duration>"
    "<enclosure url=\"https://cdn.example/show/{n}.mp3\" length=\"12345678\" type=\"audio/mpeg\"/>"
    "<description><![CDATA[<p>Show notes " + "lorem ipsum dolor sit amet " * 30 + "</p>]]></description></item>\n"
)
head = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\" xmlns:itunes=\"http://www.itunes.com/dtds/podcast-1.0.dtd\">"
        "<channel><title>Limit</title>\n")
tail = "</channel></rss>\n"
parts, size, n = [head], len(head) + len(tail), 0
while True:
    text = item.format(n=n, d=n % 28 + 1)
    if size + len(text) > LIMIT:
        break
    parts.append(text)
    size += len(text)
    n += 1
parts.append(tail)
with open(f"{out}/limit-8mib.xml", "w") as f:
    f.write("".join(parts))
with open(f"{out}/nested-8mib.xml", "w") as f:
    prefix = "<rss><channel>"
    f.write(prefix + "<a>" * ((LIMIT - len(prefix)) // 3))
print(n, "items")
