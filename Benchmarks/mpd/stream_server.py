#!/usr/bin/env python3
"""A live MP3 radio on 127.0.0.1, like an Icecast mount: loops one MP3 file, paced at its bitrate after a
64 kB burst (Icecast's burst-on-connect), every client on its own clock. Standard library only.

Usage: stream_server.py FILE.mp3 PORT [BYTES_PER_SECOND]   (default 16000 = 128 kbit/s)
"""
import http.server
import socketserver
import sys
import time

path, port = sys.argv[1], int(sys.argv[2])
rate = int(sys.argv[3]) if len(sys.argv) > 3 else 16_000
audio = open(path, "rb").read()
BURST = 64_000
CHUNK = 4_000


class Radio(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "audio/mpeg")
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
