import AudioCore
import Basics
import Realtime
import Testing

@Suite struct UplinkDownlinkTests {
    @Test func pumpSendsFullChunksAndKeepsAudioWhileTheSocketRefuses() {
        let ring = SPSCRing<Int16>(capacity: 24_000, zero: 0)
        let samples = (0..<1000).map { Int16(truncatingIfNeeded: $0 * 7) }
        samples.withUnsafeBufferPointer { _ = ring.write($0) }
        let pump = UplinkPump(ring: ring, chunkSamples: 480)
        #expect(pump.pump { _ in false } == 0)
        #expect(ring.availableToRead == 1000)

        var frames: [String] = []
        #expect(
            pump.pump {
                frames.append($0)
                return true
            } == 2)
        #expect(ring.availableToRead == 40)
        #expect(
            pump.pump(flush: true) {
                frames.append($0)
                return true
            } == 1)
        #expect(ring.availableToRead == 0)
        #expect(frames.count == 3)
        var decoded: [Int16] = []
        for frame in frames {
            guard let json = JSONValue.parse(frame), let audio = json["audio"]?.stringValue else {
                Issue.record("not an append frame: \(frame.prefix(60))")
                continue
            }
            #expect(json["type"]?.stringValue == "input_audio_buffer.append")
            decoded += Base64.decodeSamples(audio) ?? []
        }
        #expect(decoded == samples)
        #expect(pump.samplesSent == 1000)
    }

    @Test func downlinkDecodesDeltasAndCountsPerItem() {
        final class Collected: @unchecked Sendable {
            var samples: [Int16] = []
            var items: [String] = []
        }
        let collected = Collected()
        var downlink = DownlinkAudio(initialCapacityBytes: 8) { item, samples in
            collected.samples += samples
            collected.items.append(item)
        }
        let first = (0..<2400).map { Int16(truncatingIfNeeded: $0 &* 13) }
        #expect(downlink.handle(AudioDelta(responseID: "r", itemID: "a", delta: Base64.encode(samples: first))) == 2400)
        #expect(downlink.receivedMilliseconds == 100)
        #expect(downlink.handle(AudioDelta(responseID: "r", itemID: "a", delta: Base64.encode(samples: first))) == 2400)
        #expect(downlink.receivedMilliseconds == 200)
        #expect(downlink.handle(AudioDelta(responseID: "r", itemID: "a", delta: "%%%")) == 0)
        #expect(downlink.malformedDeltas == 1)
        #expect(downlink.handle(AudioDelta(responseID: "r2", itemID: "b", delta: Base64.encode(samples: [1, 2, 3]))) == 3)
        #expect(downlink.currentItemID == "b")
        #expect(downlink.samplesReceivedForItem == 3)
        #expect(collected.samples == first + first + [1, 2, 3])
        #expect(collected.items == ["a", "a", "b"])
    }
}
