import Testing

@testable import Media

/// Inputs libFuzzer (`scripts/fuzz dates`, same seeds) found trapping the parsers as they were before
/// the overflow fixes (commit 39addbd): each took the whole service down with a Swift overflow trap.
/// Run against the fixed parsers they must give "unreadable", not a trap. Base64 as the fuzzer
/// printed them (the inputs contain no secrets; see docs/testing.md, "Fuzzing").
@Suite struct FuzzFindingsRegressionTests {
    static func text(_ base64: String) -> String {
        String(decoding: decodeBase64(base64), as: UTF8.self)
    }

    /// RFC822Date.parse: `Int64(days) * 86_400` / `daysFromCivil` on a 17- to 22-digit year.
    @Test(arguments: [
        "U3knbiwgMzEgRGVjIDAwMDAwMDAwOTkxOTYzNjY5OTU0NTYgMjM6NT06NTkgLTEz",  // found in 3.4 s
        "MSBKYW4gNDExMTExMTExMTExMTExMTEgMTowOjEgKzAxMDA="  // a second run
    ])
    func pubDatesWithHugeYearsAreUnreadable(_ base64: String) {
        let date = Self.text(base64)
        #expect(RFC822Date.parse(date) == nil, "\(date)")
        #expect(FeedDate.parse(date) == nil, "\(date)")
    }

    /// PodcastFeed.parseDuration: `total * 60` on `7777777777773771:2:7077773` (found in 69 s).
    @Test func durationsThatOverflowAreUnreadable() {
        let duration = Self.text("Nzc3Nzc3Nzc3Nzc3Mzc3MToyOjcwNzc3NzM=")
        #expect(duration == "7777777777773771:2:7077773")
        #expect(PodcastFeed.parseDuration(duration) == nil)
    }

    /// The same inputs inside a feed: the episode is kept, without the unreadable fields.
    @Test func aFeedCarryingThemStillGivesItsEpisode() throws {
        let feed = """
            <rss><channel><item><title>x</title><enclosure url="https://h/e.mp3"/>\
            <pubDate>\(Self.text("U3knbiwgMzEgRGVjIDAwMDAwMDAwOTkxOTYzNjY5OTU0NTYgMjM6NT06NTkgLTEz"))</pubDate>\
            <itunes:duration>7777777777773771:2:7077773</itunes:duration></item></channel></rss>
            """
        let parsed = try PodcastFeed(parsing: Array(feed.utf8))
        #expect(parsed.episodes.count == 1)
        #expect(parsed.episodes.first?.durationSeconds == nil)
    }
}

/// RFC 4648 base64 (the fuzzer's `Base64:` line), enough for test literals.
private func decodeBase64(_ text: String) -> [UInt8] {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    var table = [UInt8](repeating: 255, count: 256)
    for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
    var bits = 0
    var count = 0
    var bytes: [UInt8] = []
    for byte in text.utf8 where table[Int(byte)] != 255 {
        bits = (bits << 6 | Int(table[Int(byte)])) & 0xFFFF
        count += 6
        if count >= 8 {
            count -= 8
            bytes.append(UInt8((bits >> count) & 0xFF))
        }
    }
    return bytes
}
