import Testing

@testable import Media

/// Playlists and ICY titles as stations and IPTV lists really write them.
@Suite struct PlaylistRealWorldTests {
    @Test func extinfTitlesKeepCommasInsideQuotedAttributes() throws {
        let text = """
            #EXTM3U
            #EXTINF:-1 tvg-id="r1" tvg-name="Radio One, Two" tvg-logo="https://l/x.png" group-title="Music,Pop",Radio One, the best
            http://radio.example/one
            #EXTINF:123,Plain Title
            http://radio.example/two
            """
        let playlist = try Playlist(parsing: Array(text.utf8), kind: .m3u, base: nil)
        #expect(playlist.entries.map(\.title) == ["Radio One, the best", "Plain Title"])
    }

    @Test func windows1252PlaylistTitlesAreDecoded() throws {
        let bytes =
            Array("[playlist]\nFile1=http://h/s\nTitle1=".utf8) + [0x93, 0x4A, 0x61, 0x7A, 0x7A, 0x94, 0x20, 0x96, 0x20, 0x43, 0x61, 0x66, 0xE9]
            + Array("\n".utf8)
        let playlist = try Playlist(parsing: bytes, kind: .pls, base: nil)
        #expect(playlist.entries.first?.title == "“Jazz” – Café")
    }

    @Test func entriesWithSpacesArePercentEncoded() throws {
        let playlist = try Playlist(parsing: Array("#EXTM3U\nhttp://h/My Station.mp3\n".utf8), kind: .m3u, base: nil)
        #expect(playlist.entries.first?.url.absoluteString == "http://h/My%20Station.mp3")
    }

    @Test(arguments: [
        ("../x.mp3", "http://a.example/b/x.mp3"),
        ("../../../x", "http://a.example/x"),
        ("./x", "http://a.example/b/c/x"),
        ("?y=2", "http://a.example/b/c/d.m3u?y=2"),
        ("x?y=1", "http://a.example/b/c/x?y=1"),
        ("/p/../q", "http://a.example/q"),
        ("g/.", "http://a.example/b/c/g/"),
        ("..", "http://a.example/b/"),
        ("#frag", "http://a.example/b/c/d.m3u?q=1"),
        ("", "http://a.example/b/c/d.m3u?q=1"),
        ("//cdn.example/s", "http://cdn.example/s"),
        ("stream?u=http://x", "http://a.example/b/c/stream?u=http://x"),
        ("HTTPS://Other.Example/s", "https://other.example/s")
    ])
    func relativeReferencesResolvePerRFC3986(_ reference: String, _ expected: String) throws {
        let base = try MediaURL(parsing: "http://a.example/b/c/d.m3u?q=1")
        #expect(try base.resolving(reference).absoluteString == expected)
    }

    @Test func icyTitlesTrimSpacesAroundTheEqualsSign() {
        #expect(IcyMetadata(parsing: Array("StreamTitle = 'Artist - Song';".utf8)).streamTitle == "Artist - Song")
        #expect(IcyMetadata(parsing: Array("StreamTitle=  \"Quoted\";StreamUrl='';".utf8)).streamTitle == "Quoted")
    }

    @Test func icyTitlesInWindows1252AreDecoded() {
        let bytes = Array("StreamTitle='".utf8) + [0x93, 0x48, 0x69, 0x94, 0x20, 0x96, 0x20, 0x80, 0x35] + Array("';".utf8)
        #expect(IcyMetadata(parsing: bytes).streamTitle == "“Hi” – €5")
    }
}
