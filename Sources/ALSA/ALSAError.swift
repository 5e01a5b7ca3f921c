import Glibc

/// The direction of a PCM.
public enum PCMStream: Sendable, Hashable, CustomStringConvertible {
    case capture, playback
    public var description: String { self == .capture ? "capture" : "playback" }
}

/// A failed alsa-lib call: which function, on which device, and the negative errno it returned.
///
/// `description` reads like `snd_pcm_open("hw:2,0", capture) failed: No such file or directory`.
public struct ALSAError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What the caller should do about an error.
    public enum Kind: Sendable, Hashable {
        /// Underrun or overrun (-EPIPE): prepare (and restart capture), then carry on.
        case xrun
        /// The system suspended the device (-ESTRPIPE): resume, then prepare.
        case suspended
        /// The device is gone (unplugged, or never there): close it and reopen later.
        case disconnected
        /// Another process holds the device (-EBUSY).
        case busy
        case other
    }

    /// The alsa-lib function that failed, e.g. `snd_pcm_readi`.
    public let function: StaticString
    /// The PCM name as opened, e.g. `hw:2,0`.
    public let device: String
    public let stream: PCMStream?
    /// The negative errno alsa-lib returned.
    public let code: Int32

    public init(function: StaticString, device: String, stream: PCMStream?, code: Int32) {
        self.function = function
        self.device = device
        self.stream = stream
        self.code = code
    }

    public var kind: Kind {
        switch -code {
        case EPIPE: return .xrun
        case ESTRPIPE: return .suspended
        case ENODEV, EBADFD, ENXIO, EIO, ENOENT: return .disconnected
        case EBUSY: return .busy
        default: return .other
        }
    }

    /// alsa-lib's text for `code` (snd_strerror).
    public var message: String { ALSACalls.errorText(code) }

    public static func == (a: ALSAError, b: ALSAError) -> Bool {
        "\(a.function)" == "\(b.function)" && a.device == b.device && a.stream == b.stream && a.code == b.code
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine("\(function)")
        hasher.combine(device)
        hasher.combine(code)
    }

    public var description: String {
        let target = stream.map { "\"\(device)\", \($0)" } ?? "\"\(device)\""
        return "\(function)(\(target)) failed: \(message)"
    }

    /// What it means for the owner, in plain words (the journal's info/warning lines; `description`,
    /// the library's own text, goes to debug).
    public var plainReason: String {
        switch -code {
        case EACCES, EPERM: return "permission denied (the service user needs the audio group)"
        default: break
        }
        switch kind {
        case .disconnected: return "it is not there (unplugged, or not the name `jarvis-voice devices` lists)"
        case .busy: return "another program is using it"
        case .xrun: return "it ran out of sound"
        case .suspended: return "the system suspended it"
        case .other: return message.isEmpty ? "error \(code)" : message.lowercased()
        }
    }
}
