/// Where an item's audio comes from: one continuous HTTP stream or file, or an HLS playlist of segments.
public struct MediaStreamLocation: Sendable, Equatable {
    public var url: MediaURL
    public var isHLS: Bool

    public init(url: MediaURL, isHLS: Bool = false) {
        self.url = url
        self.isHLS = isHLS
    }
}
