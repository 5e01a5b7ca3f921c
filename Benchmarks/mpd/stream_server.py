#!/usr/bin/env python3
"""Live radio on 127.0.0.1, like Icecast mounts: each file is looped at its own mount (/NAME of the file),
paced at its average rate (its size over SECONDS) after a 64 kB burst (Icecast's burst-on-connect), every
client on its own clock. Standard library only.

Usage: stream_server.py PORT SECONDS FILE...   (SECONDS: the length of the audio in each file)
"""
import http.server
import os
import socketserver
import sys
import time

port, seconds = int(sys.argv[1]), float(sys.argv[2])
TYPES = {".mp3": "audio/mpeg", ".aac": "audio/aac", ".ogg": "audio/ogg"}
mounts = {}
for path in sys.argv[3:]:
    data = open(path, "rb").read()
    mounts["/" + os.path.basename(path)] = (data, TYPES[os.path.splitext(path)[1]], len(data) / seconds)
BURST = 64_000
CHUNK = 4_000


class Radio(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def do_GET(self):
        if self.path not in mounts:
            self.send_error(404)
            return
        audio, content_type, rate = mounts[self.path]
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("icy-name", "Benchmark Radio")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        offset = 0
        sent = 0
        start = time.monotonic()
        try:
            while True:
                due = BURST + (time.monotonic() - start) * rate
                if sent >= due:
                    time.sleep(min(0.25, (sent - due) / rate + 0.01))
                    continue
                piece = audio[offset:offset + CHUNK]
                if len(piece) < CHUNK:
                    piece += audio[:CHUNK - len(piece)]
                offset = (offset + CHUNK) % len(audio)
                self.wfile.write(piece)
                sent += len(piece)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, *args):
        pass


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


Server(("127.0.0.1", port), Radio).serve_forever()
