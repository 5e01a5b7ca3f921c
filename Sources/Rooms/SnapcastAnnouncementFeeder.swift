import AudioCore
import NIOCore
import NIOPosix

/// Sends an announcement to the snapserver's announcement stream: a `tcp://` source (server mode) that
/// takes 48 kHz stereo S16LE, which the server stamps and sends to every box in the group. The audio
/// goes out in real time (a little ahead), so the server never runs dry in the middle of a word.
public enum SnapcastAnnouncementFeeder {
    public static let format = AudioFormat(sampleRate: 48_000, channels: 2)

    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// `audio` is mono at `rate`; `leadMilliseconds` of silence go first (the stream starts on the
    /// server as it arrives). Returns once the last sample was sent.
    public static func send(
        _ audio: [Int16], rate: Int, host: String, port: Int, leadMilliseconds: Int = 300, connectTimeout: Duration = .seconds(5)
    ) async throws(Failure) {
        let bytes = try interleaved(audio, rate: rate, leadMilliseconds: leadMilliseconds)
        do {
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(TimeAmount(connectTimeout))
                .connect(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
                }
            try await channel.executeThenClose { _, outbound in
                let block = format.frames(milliseconds: 20) * format.channels * 2
                let bytesPerSecond = format.sampleRate * format.channels * 2
                let start = ContinuousClock.now
                var sent = 0
                while sent < bytes.count {
                    let end = min(bytes.count, sent + block)
                    try await outbound.write(ByteBuffer(bytes: bytes[sent..<end]))
                    sent = end
                    // 200 ms ahead of the clock.
                    let due = start + .milliseconds(sent * 1_000 / bytesPerSecond - 200)
                    if due > .now { try await Task.sleep(until: due) }
                }
            }
        } catch {
            throw Failure(description: "cannot send the announcement to the snapserver's announcement stream at \(host):\(port): \(error)")
        }
    }

    /// Mono at `rate` to the stream's 48 kHz stereo S16LE bytes, after `leadMilliseconds` of silence.
    static func interleaved(_ audio: [Int16], rate: Int, leadMilliseconds: Int) throws(Failure) -> [UInt8] {
        var mono: [Int16]
        if rate == format.sampleRate {
            mono = audio
        } else {
            guard let resampler = PolyphaseResampler(inputRate: rate, outputRate: format.sampleRate, quality: 5) else {
                throw Failure(description: "cannot resample an announcement at \(rate) Hz")
            }
            resampler.skipZeros()
            // The filter's tail: the last input samples come out once this much silence follows them.
            let input = audio + [Int16](repeating: 0, count: resampler.inputLatency + 8)
            mono = [Int16](repeating: 0, count: input.count * format.sampleRate / rate + 16)
            let produced = input.withUnsafeBufferPointer { source in
                mono.withUnsafeMutableBufferPointer { resampler.process(input: source, output: $0).produced }
            }
            mono.removeLast(mono.count - produced)
        }
        let lead = format.frames(milliseconds: leadMilliseconds)
        var bytes = [UInt8](repeating: 0, count: (lead + mono.count) * format.channels * 2)
        for (index, sample) in mono.enumerated() {
            let at = (lead + index) * format.channels * 2
            for channel in 0..<format.channels {
                bytes[at + channel * 2] = UInt8(truncatingIfNeeded: sample)
                bytes[at + channel * 2 + 1] = UInt8(truncatingIfNeeded: sample >> 8)
            }
        }
        return bytes
    }
}
