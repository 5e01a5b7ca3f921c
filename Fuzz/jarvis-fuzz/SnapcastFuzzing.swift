import Snapcast

/// The byte stream from a snapserver: the frame decoder in fuzzer-chosen chunks, then a session fed the
/// same bytes (its effects, time sync and settings on whatever frames come out).
enum SnapcastFuzzing {
    static func stream(_ bytes: [UInt8]) {
        var decoder = SnapcastFrameDecoder()
        for chunk in chunks(bytes) {
            decoder.append(chunk)
            while let frame = try? decoder.next(receivedAt: 1_000_000_000) { keep(frame) }
        }
        var session = SnapcastSession(
            configuration: SnapcastSessionConfiguration(hello: SnapcastHello(id: "fuzz", hostName: "fuzz"), burstCount: 2, jitterUnit: { 0.5 }))
        keep(session.connected(now: 0))
        for (index, chunk) in chunks(bytes).enumerated() { keep(session.received(chunk, now: Int64(index) * 10_000_000)) }
        keep(session.tick(now: 3_000_000_000))
        keep(session.state)
    }

    /// The control port's lines in fuzzer-chosen chunks: each read as a JSON-RPC message, a result as a
    /// `Server.GetStatus` answer and queried.
    static func control(_ bytes: [UInt8]) {
        var lines = SnapcastControlLineBuffer()
        for chunk in chunks(bytes) {
            lines.append(chunk)
            while let line = try? lines.next() {
                guard let message = try? SnapcastControlMessage(line: line) else { continue }
                keep(try? message.result(for: 1))
                if case .result(_, let result) = message, let status = try? SnapcastServerStatus(result: result) {
                    keep(status.group(containing: "fuzz"))
                    keep(status.stream(id: status.groups.first?.streamID ?? ""))
                }
            }
        }
    }
}
