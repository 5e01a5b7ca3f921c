/// One PCM from alsa-lib's device hints (what `aplay -L` / `arecord -L` list).
public struct DeviceHint: Sendable, Hashable {
    public var name: String
    /// alsa-lib's description; may span several lines.
    public var description: String
    public var isInput: Bool
    public var isOutput: Bool

    public init(name: String, description: String, isInput: Bool, isOutput: Bool) {
        self.name = name
        self.description = description
        self.isInput = isInput
        self.isOutput = isOutput
    }

    /// All PCMs alsa-lib knows about (snd_device_name_hint over all cards).
    public static func pcms() throws(ALSAError) -> [DeviceHint] {
        try ALSACalls.pcmHints()
    }
}
