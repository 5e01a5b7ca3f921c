import Snapcast
import Testing

@Suite struct SnapcastTimeSyncTests {
    @Test func oneReplyGivesHalfTheDifferenceOfTheTwoLegs() throws {
        // Server clock = ours + 5 s; 3 ms out, 1 ms back: c2s = 5.003 s, s2c = 0.001 - 5 s.
        var sync = SnapcastTimeSync()
        let sentByUs: Int64 = 100_000_000_000
        let serverReceived = sentByUs + 5_000_000_000 + 3_000_000
        let serverSent = serverReceived + 200_000
        let weReceived = serverSent - 5_000_000_000 + 1_000_000
        let added = sync.addReply(latencyNanoseconds: serverReceived - sentByUs, sentNanoseconds: serverSent, receivedNanoseconds: weReceived)
        #expect(added)
        #expect(sync.offsetNanoseconds == Int64(5_001_000_000), "the asymmetry (3 vs 1 ms) shows up as half its difference")
        #expect(sync.serverNow(localNow: 10) == 5_001_000_010)
        #expect(sync.localTime(serverTime: 5_001_000_010) == 10)
        #expect(!sync.isSynced && sync.sampleCount == 1)
    }

    @Test func theOffsetIsTheMedianOfTheLast200() {
        var sync = SnapcastTimeSync(minimumSamples: 3)
        #expect(sync.offsetNanoseconds == nil && sync.serverNow(localNow: 0) == nil)
        for (index, offset) in [Int64(10), 1_000_000, 30, 20].enumerated() { sync.add(offsetNanoseconds: offset, at: Int64(index)) }
        #expect(sync.offsetNanoseconds == 25, "even count: between the two middle values")
        #expect(sync.isSynced)
        sync.add(offsetNanoseconds: -5_000_000, at: 5)
        #expect(sync.offsetNanoseconds == 20)
        for index in 0..<200 { sync.add(offsetNanoseconds: 7_000 + Int64(index % 3), at: Int64(10 + index)) }
        #expect(sync.sampleCount == 200)
        #expect(sync.offsetNanoseconds == 7_001, "the earlier outliers left the window")
    }

    @Test func theSpreadIsTheInterquartileRange() {
        var sync = SnapcastTimeSync()
        for value in 1...100 { sync.add(offsetNanoseconds: Int64(value) * 10_000, at: Int64(value)) }
        #expect(sync.spreadNanoseconds == Int64(75 - 26) * 10_000, "the 26th to the 75th smallest")
        #expect(sync.spreadMicroseconds == 490)
        #expect(sync.offsetNanoseconds == 505_000)
    }

    @Test func samplesOlderThanAMinuteAreForgotten() {
        var sync = SnapcastTimeSync()
        sync.add(offsetNanoseconds: 1_000, at: 0)
        sync.add(offsetNanoseconds: 2_000, at: 1_000_000_000)
        sync.add(offsetNanoseconds: 9_000, at: 62_000_000_000)
        #expect(sync.sampleCount == 1 && sync.offsetNanoseconds == 9_000)
    }

    @Test func overflowingRepliesAreRefusedAndResetForgets() {
        var sync = SnapcastTimeSync()
        let wrapped = sync.addReply(latencyNanoseconds: 0, sentNanoseconds: .min, receivedNanoseconds: .max)
        let wrappedDifference = sync.addReply(latencyNanoseconds: .min, sentNanoseconds: 0, receivedNanoseconds: 1)
        #expect(!wrapped && !wrappedDifference)
        #expect(sync.sampleCount == 0)
        sync.add(offsetNanoseconds: 1, at: 0)
        sync.reset()
        #expect(sync.sampleCount == 0 && sync.offsetNanoseconds == nil && sync.spreadNanoseconds == nil)
    }
}
