import Media
import Testing

@Suite struct IcyTests {
    /// An ICY body: `interval` audio bytes (a counting pattern), then a metadata block, repeated.
    private func body(interval: Int, blocks: [IcyMetadata?], trailingAudio: Int = 0) -> (wire: [UInt8], audio: [UInt8]) {
        var wire: [UInt8] = []
        var audio: [UInt8] = []
        var counter: UInt8 = 0
        func addAudio(_ count: Int) {
            for _ in 0..<count {
                wire.append(counter)
                audio.append(counter)
                counter &+= 1
            }
        }
        for block in blocks {
            addAudio(interval)
            let encoded = block?.encoded() ?? []
            wire.append(UInt8(encoded.count / 16))
            wire += encoded
        }
        addAudio(trailingAudio)
        return (wire, audio)
    }

    @Test func splitsAudioAndTitlesAtEverySplitPoint() {
        let first = IcyMetadata(fields: [("StreamTitle", "Boards of Canada - Dayvan Cowboy"), ("StreamUrl", "")])
        let second = IcyMetadata(fields: [("StreamTitle", "Tycho - Awake")])
        let (wire, audio) = body(interval: 64, blocks: [first, nil, second], trailingAudio: 10)
        for split in 0...wire.count {
            var demuxer = IcyDemuxer(metaInterval: 64)
            let a = demuxer.push(Array(wire[..<split]))
            let b = demuxer.push(Array(wire[split...]))
            #expect(a.audio + b.audio == audio, "split at \(split)")
            #expect(
                (a.metadata + b.metadata).map(\.streamTitle) == ["Boards of Canada - Dayvan Cowboy", "Tycho - Awake"],
                "split at \(split)")
            #expect(demuxer.blocks == 3)
        }
    }

    @Test func byteByByteAndThreeWaySplitsAgree() {
        let block = IcyMetadata(fields: [("StreamTitle", "A - B")])
        let (wire, audio) = body(interval: 16, blocks: [block, block, nil, block], trailingAudio: 3)
        var single = IcyDemuxer(metaInterval: 16)
        var gotAudio: [UInt8] = []
        var titles: [String] = []
        for byte in wire {
            let out = single.push([byte])
            gotAudio += out.audio
            titles += out.metadata.compactMap(\.streamTitle)
        }
        #expect(gotAudio == audio)
        #expect(titles == ["A - B", "A - B", "A - B"])
        for i in stride(from: 0, to: wire.count, by: 5) {
            for j in stride(from: i, to: wire.count, by: 7) {
                var demuxer = IcyDemuxer(metaInterval: 16)
                let parts = [wire[..<i], wire[i..<j], wire[j...]].map { demuxer.push(Array($0)) }
                #expect(parts.flatMap(\.audio) == audio)
                #expect(parts.flatMap(\.metadata).count == 3)
            }
        }
    }

    @Test func withoutMetaIntervalEverythingIsAudio() {
        var demuxer = IcyDemuxer(metaInterval: nil)
        let bytes: [UInt8] = Array(0..<200)
        let out = demuxer.push(bytes)
        #expect(out.audio == bytes)
        #expect(out.metadata.isEmpty)
    }

    @Test func parsesTitlesWithQuotesSemicolonsAndPadding() {
        let raw = Array("StreamTitle='Guns N' Roses - Don't Cry; Live';StreamUrl='http://x/y';".utf8) + [0, 0, 0, 0]
        let meta = IcyMetadata(parsing: raw)
        #expect(meta.streamTitle == "Guns N' Roses - Don't Cry; Live")
        #expect(meta.streamURL == "http://x/y")
        #expect(IcyMetadata(parsing: Array("StreamTitle='';".utf8)).streamTitle == nil)
        #expect(IcyMetadata(parsing: Array("StreamTitle='Unterminated".utf8)).streamTitle == "Unterminated")
        #expect(IcyMetadata(parsing: Array("StreamTitle='No semicolon'".utf8)).streamTitle == "No semicolon")
        #expect(IcyMetadata(parsing: [0, 0, 0]).fields.isEmpty)
    }

    @Test func decodesUTF8ElseLatin1() {
        let utf8 = IcyMetadata(parsing: Array("StreamTitle='Björk - Jóga';".utf8))
        #expect(utf8.streamTitle == "Björk - Jóga")
        // "Björk" in Latin-1: ö is the single byte 0xF6, invalid as UTF-8.
        let latin1 = IcyMetadata(parsing: Array("StreamTitle='Bj".utf8) + [0xF6] + Array("rk';".utf8))
        #expect(latin1.streamTitle == "Björk")
    }

    @Test func limitsTitleLength() {
        let long = String(repeating: "x", count: 2_000)
        let meta = IcyMetadata(parsing: Array("StreamTitle='\(long)';".utf8), maxTitleCharacters: 300)
        #expect(meta.streamTitle?.count == 300)
    }

    @Test func skipsMetadataBlocksOverTheLimit() {
        let long = IcyMetadata(fields: [("StreamTitle", String(repeating: "y", count: 100))])
        let short = IcyMetadata(fields: [("StreamTitle", "ok")])
        let (wire, audio) = body(interval: 32, blocks: [long, short], trailingAudio: 5)
        var demuxer = IcyDemuxer(metaInterval: 32, maxMetadataBytes: 64)
        let out = demuxer.push(wire)
        #expect(out.audio == audio)
        #expect(out.metadata.map(\.streamTitle) == ["ok"])
        #expect(demuxer.oversizedBlocks == 1)
    }

    @Test func readsIcyHeadersWithinLimits() {
        let headers = ["icy-metaint": "16000", "icy-name": " Groove Salad ", "icy-br": "128, 128", "content-type": "audio/mpeg"]
        let icy = IcyHeaders { headers[$0.lowercased()] }
        #expect(icy.metaInterval == 16_000)
        #expect(icy.name == "Groove Salad")
        #expect(icy.bitrate == 128)
        #expect(icy.contentType == "audio/mpeg")
        for bad in ["0", "-5", "abc", "99999999"] {
            #expect(IcyHeaders { $0 == "icy-metaint" ? bad : nil }.metaInterval == nil, "\(bad)")
        }
    }
}
