import NIOCore
import NIOEmbedded

@testable import Control

/// A local client on the control socket: the line framing (in fuzzer-chosen chunks), each line as a
/// request, and the input as a reply for `ctl`.
enum ControlFuzzing {
    static func request(_ bytes: [UInt8]) {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(ControlLineDecoder(maxLength: 4_096)))
        for chunk in chunks(bytes) {
            do {
                try channel.writeInbound(channel.allocator.buffer(bytes: chunk))
            } catch {
                break
            }
            while let line = try? channel.readInbound(as: ByteBuffer.self) {
                keep(try? ControlWire.decodeRequest(line.readableBytesView))
            }
        }
        _ = try? channel.finish()
        keep(try? ControlWire.decodeRequest(bytes))
        keep(try? ControlWire.decodeReply(bytes))
    }
}
