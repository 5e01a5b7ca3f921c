import AudioCore

/// What plays one item's audio into a sink: a progressive stream (`MediaStreamSource`) or HLS
/// (`HLSStreamSource`). Run it in the task that owns the playback; cancelling that task stops it.
public protocol MediaSource: Sendable {
    func run(into sink: any PCMSink, onEvent: @escaping (MediaStreamEvent) -> Void) async
}

extension MediaStreamSource: MediaSource {}
extension HLSStreamSource: MediaSource {}
