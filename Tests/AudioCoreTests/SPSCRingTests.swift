import Testing

@testable import AudioCore

@Suite struct SPSCRingTests {
    @Test func wrapsAroundAndKeepsOrder() {
        let ring = SPSCRing<Int16>(capacity: 5, zero: 0)
        #expect(ring.write([1, 2, 3]) == 3)
        #expect(ring.read(upTo: 2) == [1, 2])
        #expect(ring.write([4, 5, 6, 7]) == 4)
        #expect(ring.availableToWrite == 0)
        #expect(ring.write([8]) == 0)
        #expect(ring.read(upTo: 10) == [3, 4, 5, 6, 7])
        #expect(ring.availableToRead == 0)
    }

    @Test func peekDoesNotConsumeAndSkipDoes() {
        let ring = SPSCRing<Int16>(capacity: 4, zero: 0)
        ring.write([1, 2, 3])
        var buffer = [Int16](repeating: 0, count: 2)
        let n = buffer.withUnsafeMutableBufferPointer { ring.peek(into: $0) }
        #expect(n == 2 && buffer == [1, 2])
        #expect(ring.skip(2) == 2)
        #expect(ring.read(upTo: 4) == [3])
    }

    @Test func producerAndConsumerOnTwoThreadsSeeEverySampleOnce() async {
        let ring = SPSCRing<Int32>(capacity: 64, zero: 0)
        let total = 200_000
        async let produced: Void = {
            var next: Int32 = 0
            var chunk = [Int32](repeating: 0, count: 17)
            while Int(next) < total {
                let count = min(chunk.count, total - Int(next))
                for i in 0..<count { chunk[i] = next + Int32(i) }
                let written = chunk.withUnsafeBufferPointer { ring.write(UnsafeBufferPointer(rebasing: $0[0..<count])) }
                next += Int32(written)
                if written == 0 { await Task.yield() }
            }
        }()
        var expected: Int32 = 0
        var buffer = [Int32](repeating: 0, count: 23)
        var ok = true
        while Int(expected) < total {
            let n = buffer.withUnsafeMutableBufferPointer { ring.read(into: $0) }
            for i in 0..<n where buffer[i] != expected + Int32(i) { ok = false }
            expected += Int32(n)
            if n == 0 { await Task.yield() }
        }
        await produced
        #expect(ok)
        #expect(Int(expected) == total)
    }
}
