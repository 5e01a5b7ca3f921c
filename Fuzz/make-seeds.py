#!/usr/bin/env python3
"""Writes the small seed corpora under Fuzz/corpus/<target>/ (all hand-made here, shaped after the
formats' real files). Run from the repo root; scripts/fuzz copies them into a scratch corpus."""
import os, struct, sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")

def put(target, name, data):
    d = os.path.join(root, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode("utf-8"))

repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
with open(os.path.join(repo, "systemd/jarvis-voice.toml.example"), "rb") as f:
    put("toml", "example.toml", f.read())
put("toml", "types.toml", '''title = "x"
[a.b]
int = +1_000
hex = 0xDEAD_beef
oct = 0o755
bin = 0b1101
flt = 6.626e-34
inf = -inf
date = 1979-05-27T07:32:00-08:00
ld = 1979-05-27
lt = 07:32:00.999
arr = [ 1, [2, "3"], {x = 1} ]
ml = """
multi\\
  line"""
lit = 'C:\\path'
mll = \'\'\'
raw \'\'\'
"quoted key" = true
[[tables]]
name = "one"
[[tables]]
name = "two"
''')
put("toml", "media.toml", '[media]\nvolume = 0.5\nstation_catalog_url = "https://somafm.com/channels.json"\n[control]\nsocket = "/run/x.sock"\n')

rss = '''<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" xmlns:content="http://purl.org/rss/1.0/modules/content/">
<channel><title>Show &amp; Tell</title><link>https://example.org/</link>
<item><title><![CDATA[Episode 2: <b>bold</b>]]></title><pubDate>Tue, 02 Jan 2024 10:00:00 +0100</pubDate>
<enclosure url="https://example.org/ep2.mp3" length="123" type="audio/mpeg"/><itunes:duration>1:02:03</itunes:duration>
<guid isPermaLink="false">ep2</guid></item>
<item><title>Episode 1 &#233;&#x263A; &eacute;</title><pubDate>Mon, 1 Jan 2024 9:00 GMT</pubDate>
<enclosure url="ep1.mp3" type="audio/mpeg"/><itunes:duration>3600</itunes:duration></item>
</channel></rss>
'''
put("feed", "rss2.xml", rss)
put("feed", "latin1.xml", '<?xml version="1.0" encoding="ISO-8859-1"?><rss><channel><item><title>Caf\xe9</title><enclosure url="http://a/b c.mp3"/><pubDate>2024-01-02T03:04:05+13:00</pubDate></item></channel></rss>'.encode("latin-1"))
put("feed", "default-ns.xml", '<?xml version="1.0"?><rss xmlns="http://backend.userland.com/rss2" version="2.0"><channel><item><title>t</title><enclosure url="https://e/x.mp3"/></item></channel></rss>')
put("feed", "atom.xml", '<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>A</title><entry><title>E</title><updated>2024-01-02T03:04:05Z</updated><link rel="enclosure" href="https://e/a.m4a" type="audio/mp4"/></entry></feed>')
put("feed", "utf16.xml", '<?xml version="1.0" encoding="UTF-16"?><rss><channel><item><title>x</title><enclosure url="https://e/x.mp3"/></item></channel></rss>'.encode("utf-16"))
put("feed", "gb2312.xml", '<?xml version="1.0" encoding="GB2312"?><rss><channel><item><title>\u4e2d\u6587\u64ad\u5ba2</title><enclosure url="https://e/zh.mp3"/></item></channel></rss>'.encode("gb2312"))
put("feed", "sjis.xml", '<?xml version="1.0" encoding="Shift_JIS"?><rss><channel><item><title>\u65e5\u672c\u8a9e</title><enclosure url="https://e/ja.mp3"/></item></channel></rss>'.encode("shift_jis"))
put("feed", "win1251.xml", '<?xml version="1.0" encoding="windows-1251"?><rss><channel><item><title>\u041f\u043e\u0434\u043a\u0430\u0441\u0442 \u201cx\u201d</title><enclosure url="https://e/ru.mp3"/></item></channel></rss>'.encode("cp1251"))
put("feed", "doctype.xml", '<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY x "y">]><!-- c --><?pi x?><rss><channel><item><a:b xmlns:a="urn:x" a:c="1"/></item></channel></rss>')

for i, d in enumerate(["Tue, 02 Jan 2024 10:00:00 +0100", "1 Jan 2024 9:00 GMT", "Mon, 01 Jan 2024 09:00:00 EST",
                       "Sun, 31 Dec 2023 23:59:59 +13:00", "2024-01-02T03:04:05Z", "2024-01-02T03:04:05.123+05:30",
                       "2024-01-02", "1:02:03", "3600", "59:59", "12.5"]):
    put("dates", f"d{i}", d)

put("playlist", "somafm.pls", "[playlist]\nnumberofentries=2\nFile1=https://ice1.somafm.com/groovesalad-128-mp3\nTitle1=SomaFM: Groove Salad (#1): A nicely chilled plate\nLength1=-1\nFile2=https://ice2.somafm.com/groovesalad-128-mp3\nTitle2=SomaFM\nLength2=-1\nVersion=2\n")
put("playlist", "ext.m3u", '#EXTM3U\n#EXTINF:-1 tvg-id="x" group-title="Radio, News",Station, One\nhttp://stream.example/live\n#EXTINF:123,Song\n../audio/song.mp3\n?query=1\n')
put("playlist", "plain.m3u", "\xef\xbb\xbfhttp://a.example/stream\r\n# comment\r\nrelative.aac\r\n")

put("icy", "title", b"\x10StreamTitle='Artist - Title';StreamUrl='http://x';\x00\x00\x00")
put("icy", "quotes", b"\x05StreamTitle = 'It''s \x93quoted\x94';\x00")
block = b"StreamTitle='Hello';"
block += b"\x00" * ((16 - len(block) % 16) % 16)
put("icy", "stream", bytes([15]) + b"A" * 16 + bytes([len(block) // 16]) + block + b"B" * 16 + b"\x00" + b"C" * 16)

sse_chat = ('data: {"choices":[{"delta":{"content":"Hel"}}]}\n\n'
            'data: {"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":"{}"}}]}}]}\n\n'
            ': ping\n\n'
            'data: {"error":{"message":"bad","type":"server_error"}}\n\n'
            'data: [DONE]\n\n')
sse_resp = ('event: response.created\ndata: {"type":"response.created","response":{"id":"resp_1"}}\n\n'
            'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"Hi"}\n\n'
            'event: response.output_item.done\ndata: {"type":"response.output_item.done","item":{"type":"function_call","name":"x","arguments":"{}"}}\n\n'
            'event: response.completed\ndata: {"type":"response.completed","response":{"id":"resp_1"}}\n\n')
for t in ("sse", "termllm"):
    put(t, "chat", "\x07" + sse_chat)
    put(t, "responses", "\x03" + sse_resp)
put("sse", "fields", "\x01\xef\xbb\xbfid: 1\r\nretry: 1000\r\nevent: x\rdata\ndata:  two\n\nid: a\x00b\ndata: y\n")

def crc32_ogg(data):
    crc = 0
    for b in data:
        crc ^= b << 24
        for _ in range(8):
            crc = ((crc << 1) ^ 0x04C11DB7) & 0xFFFFFFFF if crc & 0x80000000 else (crc << 1) & 0xFFFFFFFF
    return crc

def page(packet, seq, flags, granule, serial=0x1234):
    lacing = []
    n = len(packet)
    while n >= 255:
        lacing.append(255); n -= 255
    lacing.append(n)
    header = b"OggS" + bytes([0, flags]) + struct.pack("<qII", granule, serial, seq) + b"\0\0\0\0" + bytes([len(lacing)]) + bytes(lacing)
    crc = crc32_ogg(header + packet)
    return header[:22] + struct.pack("<I", crc) + header[26:] + packet

head = b"OpusHead" + bytes([1, 1]) + struct.pack("<HIhB", 312, 48000, 0, 0)
tags = b"OpusTags" + struct.pack("<I", 6) + b"jarvis" + struct.pack("<I", 2) + struct.pack("<I", 7) + b"TITLE=x" + struct.pack("<I", 8) + b"ARTIST=y"
audio = bytes([0xFC, 0xFF, 0xFE])  # a 20 ms CELT silence frame
ogg = page(head, 0, 2, 0) + page(tags, 1, 0, 0) + page(audio, 2, 4, 960)
put("ogg", "opus.ogg", b"\x1f" + ogg)
put("ogg", "long-packet.ogg", b"\x05" + page(b"x" * 600, 0, 2, 0) + b"junk" + page(audio, 1, 4, 960))

def wav(rate, channels, bits, frames, fmt_tag=1, extra=b""):
    data = b"\x01\x00" * frames * channels
    fmt = struct.pack("<HHIIHH", fmt_tag, channels, rate, rate * channels * bits // 8, channels * bits // 8, bits)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + extra + b"data" + struct.pack("<I", len(data)) + data
    return b"RIFF" + struct.pack("<I", len(body)) + body
put("wav", "mono16k.wav", wav(16000, 1, 16, 8))
put("wav", "stereo48k-list.wav", wav(48000, 2, 16, 4, extra=b"LIST" + struct.pack("<I", 4) + b"INFO"))

events = [
    '{"type":"session.created","event_id":"e1","session":{"id":"sess_1","model":"gpt-realtime"}}',
    '{"type":"response.output_audio.delta","event_id":"e2","response_id":"r","item_id":"i","output_index":0,"content_index":0,"delta":"AAAA"}',
    '{"type":"response.function_call_arguments.done","event_id":"e3","call_id":"c","name":"ask_jarvis","arguments":"{\\"query\\":\\"hi\\"}"}',
    '{"type":"error","event_id":"e4","error":{"type":"invalid_request_error","code":"session_expired","message":"expired"}}',
    '{"type":"response.done","event_id":"e5","response":{"id":"r","status":"completed","usage":{"total_tokens":10,"input_tokens":6,"output_tokens":4,"input_token_details":{"audio_tokens":3,"text_tokens":3,"cached_tokens":0},"output_token_details":{"audio_tokens":2,"text_tokens":2}}}}',
    '{"type":"input_audio_buffer.speech_started","event_id":"e6","audio_start_ms":10,"item_id":"i"}',
    '{"type":"rate_limits.updated","event_id":"e7","rate_limits":[{"name":"tokens","limit":1,"remaining":0,"reset_seconds":1.5}]}',
    '{"type":"some.future.event","x":[1,2,{"y":null}]}',
]
for i, e in enumerate(events):
    put("realtime", f"e{i}.json", e)

for i, line in enumerate(['{"command":"status"}\n', '{"command":"volume","argument":"0.4"}\r\n{"command":"tap"}\n',
                          '{"command":"ask","argument":"what is \\u00e9 \\"up\\""}', '{"ok":true,"result":{"state":"idle"}}\n',
                          '{"ok":false,"error":"busy"}\n']):
    put("control", f"c{i}", "\x09" + line)

put("somafm", "channels.json", '{"channels":[{"id":"groovesalad","title":"Groove Salad","genre":"ambient|electronica","lastPlaying":"A - B","playlists":[{"url":"https://somafm.com/groovesalad.pls","format":"mp3","quality":"highest"},{"url":"https://somafm.com/groovesalad130.pls","format":"aac","quality":"high"}]}]}')
for i, u in enumerate(["https://example.org/a/b?c=d#e", "http://[::1]:8000/x y", "../up/file.mp3", "//host/path", "?q=1", "HTTPS://EXAMPLE.ORG:65536/"]):
    put("url", f"u{i}", u)

# Decoder seeds are a tenth of a second of a tone encoded by Debian's ffmpeg, so the fuzzer starts from
# real frames and headers (its first byte is the chunk size, as above).
import subprocess
def ffmpeg_tone(args):
    return subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=22050",
                           "-t", "0.1"] + args + ["-"], check=True, capture_output=True).stdout
put("adts", "lc.aac", b"\x0d" + ffmpeg_tone(["-c:a", "aac", "-b:a", "32k", "-f", "adts"]))
put("adts", "id3-junk.aac", b"\x03" + b"ID3\x04\x00\x00\x00\x00\x00\x04abcd" + b"\xff\xf1junk" + ffmpeg_tone(["-c:a", "aac", "-f", "adts"])[:600])
put("vorbis", "tone.ogg", b"\x1f" + ffmpeg_tone(["-c:a", "libvorbis", "-q:a", "0", "-f", "ogg"]))
put("flac", "tone.flac", b"\x1f" + ffmpeg_tone(["-c:a", "flac", "-f", "flac"]))
put("flac", "tone.oga", b"\x0b" + ffmpeg_tone(["-c:a", "flac", "-f", "ogg"]))
# MP4 needs a seekable output: ffmpeg writes to a temporary file
import tempfile
for name, flags in [("faststart.m4a", ["-movflags", "+faststart"]), ("index-at-end.m4a", []),
                    ("fragmented.mp4", ["-movflags", "frag_keyframe+empty_moov+default_base_moof", "-frag_duration", "50000"])]:
    with tempfile.NamedTemporaryFile(suffix=".m4a") as f:
        subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=22050",
                        "-t", "0.1", "-c:a", "aac", "-b:a", "32k"] + flags + [f.name], check=True)
        put("mp4", name, b"\x1e" + open(f.name, "rb").read())
put("hls", "master.m3u8", '#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="en, main",DEFAULT=YES,URI="a/en.m3u8"\n#EXT-X-STREAM-INF:BANDWIDTH=64000,CODECS="mp4a.40.5"\nlow.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=2000000,CODECS="avc1.4d401f,mp4a.40.2",AUDIO="a"\nv.m3u8\n')
put("hls", "media.m3u8", '#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-MEDIA-SEQUENCE:1041\n#EXT-X-KEY:METHOD=NONE\n#EXT-X-MAP:URI="init.mp4"\n#EXTINF:6.006,Song\nseg1041.ts\n#EXT-X-DISCONTINUITY\n#EXTINF:5.5,\nhttps://cdn.example/s.ts?t=1\n#EXT-X-ENDLIST\n')
with tempfile.NamedTemporaryFile(suffix=".ts") as f:
    subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=22050",
                    "-t", "0.2", "-c:a", "aac", "-b:a", "32k", "-f", "mpegts", f.name], check=True)
    put("ts", "aac.ts", b"\xbb" + open(f.name, "rb").read()[:12032])
put("ts", "id3.id3", b"ID3\x04\x00\x00\x00\x00\x00\x1dTPE1\x00\x00\x00\x05\x00\x00\x03Band" + b"TIT2\x00\x00\x00\x04\x00\x00\x01\xff\xfeA\x00")

# Snapcast: what a 0.26 server sends after the Hello (as PROBE-dumped in notes), little endian, 26-byte
# headers; the first byte is the chunk size as above.
def snap(kind, payload, refers=0, sent=(0, 0)):
    return struct.pack("<HHHiiiiI", kind, 0, refers, sent[0], sent[1], 0, 0, len(payload)) + payload
def sized(data):
    data = data.encode() if isinstance(data, str) else data
    return struct.pack("<I", len(data)) + data
riff = bytes.fromhex("52494646 24000000 57415645 666d7420 10000000 0100 0200 80bb0000 00ee0200 0400 1000 64617461 00000000")
settings = snap(3, sized('{"bufferMs":400,"latency":0,"muted":false,"volume":100}'), refers=1)
header = snap(1, sized("pcm") + sized(riff))
chunks = b"".join(snap(2, struct.pack("<ii", 63788, 10000 + 20000 * i) + sized(bytes(range(i, i + 64)))) for i in range(3))
times = b"".join(snap(4, struct.pack("<ii", 0, 150 + i), refers=2 + i, sent=(63788, 5000 + i)) for i in range(3))
put("snapcast", "session.bin", b"\x07" + settings + header + chunks + times)
put("snapcast", "opus.bin", b"\x1e" + snap(1, sized("opus") + sized(bytes.fromhex("5355504f80bb000010000200"))) + snap(2, struct.pack("<ii", 5, 0) + sized(b"\xfc\xff\xfe")))
put("snapcast", "unknown-error.bin", b"\x0d" + snap(6, sized("{}")) + snap(42, b"xyz") + snap(8, struct.pack("<I", 401) + sized("Unauthorized") + sized("auth required")))
# snapcontrol: the first byte picks the chunk size; then control-port lines as a 0.26 server writes them
status = '{"id":1,"jsonrpc":"2.0","result":{"server":{"groups":[{"clients":[{"config":{"instance":1,"latency":0,"name":"","volume":{"muted":false,"percent":40}},"connected":true,"host":{"name":"fuzz"},"id":"fuzz"}],"id":"g1","muted":false,"name":"","stream_id":"radio"}],"streams":[{"id":"radio","status":"playing"},{"id":"jazz","status":"idle"}]}}}'
put("snapcontrol", "status.jsonl", "\x11" + status + "\n")
put("snapcontrol", "notes.jsonl", "\x07" + '{"jsonrpc":"2.0","method":"Client.OnVolumeChanged","params":{"id":"fuzz","volume":{"muted":false,"percent":30}}}\r\n'
    + '{"jsonrpc":"2.0","method":"Group.OnStreamChanged","params":{"id":"g1","stream_id":"jazz"}}\n'
    + '{"error":{"code":-32603,"message":"Stream not found"},"id":1,"jsonrpc":"2.0"}\n{"id":2,"jsonrpc":"2.0","result":{"stream_id":"jazz"}}\n')
# snapaudio: codec index (pcm, flac, opus, ogg, null), u16 LE header length, the CodecHeader, then chunk bytes
def snapaudio(codec, header, chunks):
    return bytes([codec]) + struct.pack("<H", len(header)) + header + bytes([min(len(chunks[0]), 31) - 1]) + b"".join(chunks)
put("snapaudio", "pcm.snap", snapaudio(0, wav(48000, 2, 16, 0), [b"\x01\x00\x02\x00\x03\x00"] * 4))
put("snapaudio", "opus.snap", snapaudio(2, struct.pack("<IIHH", 0x4F505553, 48000, 16, 2), [audio] * 4))
with tempfile.NamedTemporaryFile(suffix=".flac") as f:
    subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=48000",
                    "-t", "0.05", "-ac", "2", "-c:a", "flac", "-frame_size", "1152", f.name], check=True)
    flac = open(f.name, "rb").read()
    end = 4
    while True:
        last = flac[end] & 0x80
        end += 4 + int.from_bytes(flac[end + 1:end + 4], "big")
        if last: break
    put("snapaudio", "flac.snap", snapaudio(1, flac[:end], [flac[end:]]))
