import Basics

@testable import Media

/// What a radio or podcast server sends: feeds, dates and durations inside them, playlists, ICY
/// metadata in a stream, the SomaFM catalogue, URLs.
enum MediaFuzzing {
    static let base = try? MediaURL(parsing: "https://example.org/feeds/show.xml")

    static func feed(_ bytes: [UInt8]) {
        keep(try? PodcastFeed(parsing: bytes, base: base))
    }

    static func dates(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        keep(RFC822Date.parse(text))
        keep(ISO8601Date.parse(text))
        keep(PodcastFeed.parseDuration(text))
    }

    static func playlist(_ bytes: [UInt8]) {
        keep(Playlist.kind(contentType: nil, url: nil, body: bytes))
        for kind in [Playlist.Kind.pls, .m3u] {
            if let list = try? Playlist(parsing: bytes, kind: kind, base: base) {
                keep(try? list.firstStream())
            }
        }
    }

    /// HLS master and media playlists, and the variant choice over what they list.
    static func hls(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        keep(HLSPlaylist.isHLS(text))
        guard let base else { return }
        let playlist = HLSPlaylist(parsing: text, base: base)
        keep(playlist.audioPlaylist(maxBandwidth: 320_000))
        keep(HLSPlaylist.attributes(text))
    }

    static func icy(_ bytes: [UInt8]) {
        keep(IcyMetadata(parsing: bytes))
        // The first byte picks the metadata interval, the rest arrives in fuzzer-chosen chunks.
        var demuxer = IcyDemuxer(metaInterval: Int(bytes.first ?? 0) + 1)
        var audioBytes = 0
        for chunk in chunks(bytes) {
            chunk.withUnsafeBytes { raw in
                demuxer.push(raw, audio: { audioBytes += $0.count }, onMetadata: { keep($0) })
            }
        }
        keep(audioBytes)
    }

    static func somafm(_ bytes: [UInt8]) {
        keep(try? SomaFMCatalog(channelsJSON: bytes))
    }

    static func url(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        if let url = try? MediaURL(parsing: text) {
            keep(try? url.resolving(text))
        }
        keep(try? base?.resolving(text))
        // The same parser under the other clients' rules (check-config and the clients share them).
        keep(try? WebURL(parsing: text, rules: .realtime))
        keep(try? WebURL(parsing: text, rules: .jarvis))
    }
}
