import Media
import Testing

@Suite struct PlaylistTests {
    let base = try! MediaURL(parsing: "https://somafm.com/groovesalad.pls")

    @Test func plsGivesEntriesInNumberOrder() throws {
        let text = """
            [playlist]
            numberofentries=3
            File2=https://ice2.somafm.com/groovesalad-128-mp3
            Title2=SomaFM: Groove Salad (#2): A nicely chilled plate of ambient/downtempo beats and grooves.
            File1=https://ice1.somafm.com/groovesalad-128-mp3
            Title1=SomaFM: Groove Salad (#1)
            File3=ftp://bad.example/stream
            Length1=-1
            Version=2
            """
        let playlist = try Playlist(parsing: Array(text.utf8), kind: .pls, base: base)
        #expect(
            playlist.entries.map(\.url.absoluteString) == [
                "https://ice1.somafm.com/groovesalad-128-mp3", "https://ice2.somafm.com/groovesalad-128-mp3"
            ])
        #expect(playlist.entries.first?.title == "SomaFM: Groove Salad (#1)")
        #expect(playlist.rejectedEntries == 1)
        #expect(try playlist.firstStream().host == "ice1.somafm.com")
    }

    @Test func m3uSkipsCommentsAndResolvesRelativeEntries() throws {
        let text =
            "\u{FEFF}#EXTM3U\r\n#EXTINF:-1,Radio One\r\nstream.mp3\r\n\r\n/abs/path.mp3\r\nhttp://other.example:8000/live\r\nfile:///etc/passwd\r\n"
        let playlist = try Playlist(parsing: Array(text.utf8), kind: .m3u, base: try MediaURL(parsing: "http://radio.example/lists/x.m3u"))
        #expect(
            playlist.entries.map(\.url.absoluteString) == [
                "http://radio.example/lists/stream.mp3", "http://radio.example/abs/path.mp3", "http://other.example:8000/live"
            ])
        #expect(playlist.entries[0].title == "Radio One")
        #expect(playlist.rejectedEntries == 1)
    }

    @Test func hlsAndEmptyPlaylistsSayWhy() throws {
        let hls = "#EXTM3U\n#EXT-X-TARGETDURATION:10\nseg1.ts\n"
        #expect(throws: PlaylistError.hls) { try Playlist(parsing: Array(hls.utf8), kind: .m3u, base: nil) }
        let empty = try Playlist(parsing: Array("[playlist]\nFile1=file:///x\n".utf8), kind: .pls, base: nil)
        #expect(throws: PlaylistError.noUsableEntry(kind: .pls, rejected: 1)) { try empty.firstStream() }
        #expect(PlaylistError.hls.description.contains("HLS"))
    }

    @Test func detectsPlaylistKinds() throws {
        let none: [UInt8] = []
        #expect(Playlist.kind(contentType: "audio/x-scpls", url: nil, body: none) == .pls)
        #expect(Playlist.kind(contentType: "audio/x-mpegurl; charset=utf-8", url: nil, body: none) == .m3u)
        #expect(Playlist.kind(contentType: "text/plain", url: nil, body: Array("  [playlist]\n".utf8)) == .pls)
        #expect(Playlist.kind(contentType: "application/octet-stream", url: nil, body: Array("#EXTM3U".utf8)) == .m3u)
        #expect(Playlist.kind(contentType: nil, url: try MediaURL(parsing: "http://a/b/list.M3U8?x=1"), body: none) == .m3u)
        #expect(Playlist.kind(contentType: "audio/mpeg", url: try MediaURL(parsing: "http://a/stream"), body: [0xFF, 0xFB]) == nil)
    }
}

@Suite struct MediaURLTests {
    @Test func acceptsOnlyHTTPAndHTTPS() throws {
        let url = try MediaURL(parsing: "  HTTPS://User:pw@Ice1.SomaFM.com:8443/groovesalad?token=abc#frag ")
        #expect(url.scheme == .https)
        #expect(url.host == "ice1.somafm.com")
        #expect(url.port == 8443)
        #expect(url.pathAndQuery == "/groovesalad?token=abc")
        #expect(url.absoluteString == "https://User:pw@ice1.somafm.com:8443/groovesalad?token=abc")
        #expect(url.description == "https://ice1.somafm.com:8443/groovesalad?…")
        #expect(try MediaURL(parsing: "http://[::1]:8000").pathAndQuery == "/")
        for bad in [
            "file:///etc/passwd", "ftp://x/y", "javascript:alert(1)", "data:audio/mpeg;base64,AAAA", "//host/x", "relative/path", "",
            "http://", "http://host:0/", "http://host:99999/", "http://ho st/", "http://host/\u{7}"
        ] {
            #expect(throws: MediaURLError.self, "\(bad)") { try MediaURL(parsing: bad) }
        }
        do {
            _ = try MediaURL(parsing: "file:///etc/passwd")
        } catch {
            #expect(error.description.contains("\"file\" is not allowed"))
        }
        #expect(throws: MediaURLError.self) { try MediaURL(parsing: "http://x/" + String(repeating: "a", count: 3_000)) }
    }

    @Test func resolvesReferences() throws {
        let base = try MediaURL(parsing: "http://radio.example:8000/dir/list.pls?x=1")
        #expect(try base.resolving("a.mp3").absoluteString == "http://radio.example:8000/dir/a.mp3")
        #expect(try base.resolving("/b.mp3").absoluteString == "http://radio.example:8000/b.mp3")
        #expect(try base.resolving("//cdn.example/c.mp3").absoluteString == "http://cdn.example/c.mp3")
        #expect(try base.resolving("https://x.example/d").absoluteString == "https://x.example/d")
        #expect(throws: MediaURLError.self) { try base.resolving("file:///etc/passwd") }
    }

    @Test func limitsHaveDocumentedDefaults() {
        let limits = MediaLimits()
        #expect(limits.maxRedirects == 5)
        #expect(limits.maxMetadataBytes == 4_080)
        #expect(limits.maxPlaylistBytes == 65_536)
        #expect(limits.maxFeedBytes == 8 * 1_048_576)
    }
}
