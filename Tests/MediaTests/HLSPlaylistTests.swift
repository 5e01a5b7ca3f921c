import Basics
import Media
import Testing

@Suite struct HLSPlaylistTests {
    let base = try! MediaURL(parsing: "https://radio.example/live/master.m3u8")

    @Test func aMasterPlaylistPicksTheBestAudioOnlyVariantWithinTheLimit() throws {
        let text = """
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=64000,CODECS="mp4a.40.5"
            low/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=128000,CODECS="mp4a.40.2"
            mid/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=384000,CODECS="mp4a.40.2"
            high/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=2000000,CODECS="avc1.4d401f,mp4a.40.2",RESOLUTION=1280x720
            video/index.m3u8
            """
        let playlist = HLSPlaylist(parsing: text, base: base)
        #expect(playlist.isMaster && playlist.variants.count == 4)
        #expect(playlist.audioPlaylist(maxBandwidth: 320_000)?.absoluteString == "https://radio.example/live/mid/index.m3u8")
        #expect(playlist.audioPlaylist(maxBandwidth: 32_000)?.absoluteString == "https://radio.example/live/low/index.m3u8")
    }

    @Test func videoVariantsGiveTheirAudioRendition() throws {
        let text = """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English, main",DEFAULT=YES,URI="audio/en.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=2000000,CODECS="avc1.4d401f,mp4a.40.2",AUDIO="aud"
            video/index.m3u8
            """
        let playlist = HLSPlaylist(parsing: text, base: base)
        #expect(playlist.audioRenditions.first?.group == "aud")
        #expect(playlist.audioPlaylist(maxBandwidth: 320_000)?.absoluteString == "https://radio.example/live/audio/en.m3u8")
    }

    @Test func aMediaPlaylistNumbersItsSegmentsFromItsSequence() throws {
        let text = """
            #EXTM3U
            #EXT-X-VERSION:3
            #EXT-X-TARGETDURATION:6
            #EXT-X-MEDIA-SEQUENCE:1041
            #EXTINF:6.006,Song One
            seg1041.ts
            #EXT-X-DISCONTINUITY
            #EXTINF:5.5,
            https://cdn.example/seg1042.ts?token=x
            """
        let playlist = HLSPlaylist(parsing: text, base: base)
        #expect(!playlist.isMaster && !playlist.ended && !playlist.encrypted && playlist.initialization == nil)
        #expect(playlist.targetDuration == 6)
        #expect(playlist.segments.map(\.sequence) == [1041, 1042])
        #expect(playlist.segments.map(\.url.absoluteString) == ["https://radio.example/live/seg1041.ts", "https://cdn.example/seg1042.ts?token=x"])
        #expect(playlist.segments.first?.duration == 6.006)
    }

    @Test func endListKeysAndMapsAreRead() throws {
        let text = """
            #EXTM3U
            #EXT-X-TARGETDURATION:4
            #EXT-X-KEY:METHOD=AES-128,URI="key.bin"
            #EXT-X-MAP:URI="init.mp4"
            #EXTINF:4,
            a.m4s
            #EXT-X-ENDLIST
            """
        let playlist = HLSPlaylist(parsing: text, base: base)
        #expect(playlist.ended && playlist.encrypted)
        #expect(playlist.initialization?.absoluteString == "https://radio.example/live/init.mp4")
        #expect(HLSPlaylist.isHLS(text) && !HLSPlaylist.isHLS("#EXTM3U\n#EXTINF:-1,Radio\nhttp://a/b\n"))
    }

    @Test func attributeListsKeepQuotedCommas() {
        #expect(HLSPlaylist.attributes(#"BANDWIDTH=1,CODECS="a,b",NAME="x=y""#) == ["BANDWIDTH": "1", "CODECS": "a,b", "NAME": "x=y"])
    }
}
