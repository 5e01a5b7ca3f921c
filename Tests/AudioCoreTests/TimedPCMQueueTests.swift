import AudioCore
import Testing

@Suite struct TimedPCMQueueTests {
    static let format = AudioFormat(sampleRate: 48_000, channels: 2)

    static func block(frames: Int, first: Int16) -> [Int16] {
        (0..<frames).flatMap { [first &+ Int16($0), -(first &+ Int16($0))] }
    }

    @Test func continuingBlocksQueueUpAndTheHeadTimeFollowsWhatWasRead() {
        var queue = TimedPCMQueue(format: Self.format, capacityFrames: 4_800)
        Self.block(frames: 480, first: 0).withUnsafeBufferPointer { queue.append($0, at: 1_000_000_000) }
        Self.block(frames: 480, first: 480).withUnsafeBufferPointer { queue.append($0, at: 1_010_000_000) }
        #expect(queue.frames == 960)
        var out = [Int16](repeating: 0, count: 2 * 3)
        #expect(out.withUnsafeMutableBufferPointer { queue.read(3, into: $0) } == 3)
        #expect(out == [0, 0, 1, -1, 2, -2])
        // 3 frames at 48 kHz are 62,500 ns: counted from the anchor, not rounded per read.
        for _ in 0..<3 { _ = out.withUnsafeMutableBufferPointer { queue.read(1, into: $0) } }
        #expect(queue.headNanoseconds == 1_000_125_000)
        #expect(queue.tailNanoseconds == 1_020_000_000)
    }

    @Test func aBlockThatDoesNotContinueTheTimelineStartsOver() {
        var queue = TimedPCMQueue(format: Self.format, capacityFrames: 4_800)
        Self.block(frames: 480, first: 0).withUnsafeBufferPointer { queue.append($0, at: 0) }
        Self.block(frames: 480, first: 100).withUnsafeBufferPointer { queue.append($0, at: 500_000_000) }
        #expect(queue.frames == 480)
        #expect(queue.headNanoseconds == 500_000_000)
        #expect(queue.discontinuities == 1)
        // Within the tolerance (a server's rounding), the block continues the timeline.
        Self.block(frames: 480, first: 0).withUnsafeBufferPointer { queue.append($0, at: 510_001_000) }
        #expect(queue.frames == 960 && queue.discontinuities == 1)
    }

    @Test func beyondItsCapacityTheOldestFramesGo() {
        var queue = TimedPCMQueue(format: Self.format, capacityFrames: 1_000)
        Self.block(frames: 800, first: 0).withUnsafeBufferPointer { queue.append($0, at: 0) }
        Self.block(frames: 400, first: 800).withUnsafeBufferPointer { queue.append($0, at: Int64(800) * 1_000_000_000 / 48_000) }
        #expect(queue.frames == 1_000)
        #expect(queue.headNanoseconds == Int64(200) * 1_000_000_000 / 48_000)
        var out = [Int16](repeating: 0, count: 2)
        _ = out.withUnsafeMutableBufferPointer { queue.read(1, into: $0) }
        #expect(out == [200, -200])
        // One block larger than the whole queue keeps its newest frames.
        Self.block(frames: 1_500, first: 1_200).withUnsafeBufferPointer { queue.append($0, at: Int64(1_200) * 1_000_000_000 / 48_000) }
        #expect(queue.frames == 1_000)
        _ = out.withUnsafeMutableBufferPointer { queue.read(1, into: $0) }
        #expect(out == [1_700, -1_700])
        #expect(abs(queue.headNanoseconds - Int64(1_701) * 1_000_000_000 / 48_000) <= 1)
    }
}
