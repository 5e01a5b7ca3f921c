import NIOCore

/// Splits the byte stream into newline-terminated lines (newline dropped; a trailing "\r" too),
/// refusing lines longer than `maxLength` so a client cannot make the service buffer without bound.
struct ControlLineDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    let maxLength: Int

    struct LineTooLong: Error, CustomStringConvertible {
        let maxLength: Int
        var description: String { "request line longer than \(maxLength) bytes" }
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
            if buffer.readableBytes > maxLength { throw LineTooLong(maxLength: maxLength) }
            return .needMoreData
        }
        let length = newline - buffer.readerIndex
        guard length <= maxLength else { throw LineTooLong(maxLength: maxLength) }
        var line = buffer.readSlice(length: length)!
        buffer.moveReaderIndex(forwardBy: 1)
        if line.readableBytesView.last == UInt8(ascii: "\r") { line = line.getSlice(at: line.readerIndex, length: length - 1)! }
        context.fireChannelRead(wrapInboundOut(line))
        return .continue
    }

    /// A last line without newline still counts when the client half-closes after it.
    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        if seenEOF, buffer.readableBytes > 0, let line = buffer.readSlice(length: buffer.readableBytes) {
            context.fireChannelRead(wrapInboundOut(line))
        }
        return .needMoreData
    }
}
