import ALSA
import TestProcess

/// Options of one paced test PCM (see DevTools/JVPacedPCM/jvpaced.c for the semantics).
public struct PacedPCMOptions: Sendable, Hashable {
    /// Capture source: raw S16_LE at the negotiated rate/channels; silence after its end.
    public var infile: String?
    /// Keep reading frames appended to `infile` after its end (silence until they arrive), so a test
    /// can speak into the mic at a moment of its choosing.
    public var followInfile: Bool
    /// Playback sink: frames are appended as they are played. Capture: a copy of what the application
    /// read (echo included) is appended as it reads it.
    public var outfile: String?
    /// While this file exists the device behaves as unplugged (open fails, I/O returns -ENODEV).
    public var failFile: String?
    /// PCMs in one process with the same link name hear each other.
    public var link: String?
    /// Capture: gain of the linked playback's sound in the captured signal.
    public var echoGain: Double
    /// Capture: acoustic delay from speaker to mic.
    public var echoDelayMilliseconds: Double
    /// The device clock's deviation in parts per million (+ runs fast), capture and playback alike: a
    /// playback device then consumes rate · (1 + ppm·1e-6) frames per second of CLOCK_MONOTONIC.
    public var driftPPM: Double
    /// Playback: a file that gets one line "START_NS OUTFILE_FRAME RATE" per run start, which tells when
    /// each frame of `outfile` played (read it with TestSupport's `PlayedTimeline`).
    public var timeline: String?
    /// Capture: the echo goes through a saturating loudspeaker, `c·tanh(x/c)` on full scale 1 (0: linear).
    public var echoClip: Double
    /// Capture: and through its band limit, a 2nd-order high-pass at this frequency (0: none).
    public var echoHighpassHz: Double
    /// Capture: this channel carries the linked playback itself (no delay, no speaker), as a mic array's
    /// hardware loopback does (the ReSpeaker's channel 5); nil: none.
    public var loopbackChannel: Int?
    /// Capture: the loopback channel's gain (the ReSpeaker's is about 0.1 of its mics' echo).
    public var loopbackGain: Double

    public init(
        infile: String? = nil, outfile: String? = nil, failFile: String? = nil, link: String? = nil,
        echoGain: Double = 0, echoDelayMilliseconds: Double = 0, driftPPM: Double = 0, followInfile: Bool = false,
        echoClip: Double = 0, echoHighpassHz: Double = 0, loopbackChannel: Int? = nil, loopbackGain: Double = 1,
        timeline: String? = nil
    ) {
        self.infile = infile
        self.followInfile = followInfile
        self.outfile = outfile
        self.failFile = failFile
        self.link = link
        self.echoGain = echoGain
        self.echoDelayMilliseconds = echoDelayMilliseconds
        self.driftPPM = driftPPM
        self.echoClip = echoClip
        self.echoHighpassHz = echoHighpassHz
        self.loopbackChannel = loopbackChannel
        self.loopbackGain = loopbackGain
        self.timeline = timeline
    }
}

/// A PCM definition for a private ALSA configuration file.
public enum TestPCM: Sendable, Hashable {
    /// alsa-lib's `file` plugin over `null`: byte-exact, not paced, delay always 0.
    case file(name: String, infile: String?, outfile: String?)
    /// The project's paced plugin.
    case paced(name: String, PacedPCMOptions)
    /// `asym`: capture from one PCM, play to another (e.g. to define `default`).
    case asym(name: String, capture: String, playback: String)
}

/// Renders and writes ALSA configuration files for tests and end-to-end runs.
public enum TestPCMConfig {
    /// The configuration text. Includes `pcm_type.jvpaced { lib ... }` when a paced PCM is used.
    public static func text(_ pcms: [TestPCM], pluginPath: String? = PacedPlugin.libraryPath) -> String {
        var lines: [String] = []
        if pcms.contains(where: { if case .paced = $0 { true } else { false } }), let pluginPath {
            lines.append("pcm_type.jvpaced { lib \(quoted(pluginPath)) }")
        }
        for pcm in pcms {
            switch pcm {
            case .file(let name, let infile, let outfile):
                var body = "type file slave.pcm { type null } format \"raw\" file \(quoted(outfile ?? "/dev/null"))"
                if let infile { body += " infile \(quoted(infile))" }
                lines.append("pcm.\(name) { \(body) }")
            case .paced(let name, let o):
                var body = "type jvpaced"
                if let v = o.infile { body += " infile \(quoted(v))" }
                if o.followInfile { body += " infile_follow 1" }
                if let v = o.outfile { body += " outfile \(quoted(v))" }
                if let v = o.timeline { body += " timeline \(quoted(v))" }
                if let v = o.failFile { body += " fail_file \(quoted(v))" }
                if let v = o.link { body += " link \(quoted(v))" }
                if o.echoGain != 0 { body += " echo_gain \(o.echoGain)" }
                if o.echoDelayMilliseconds != 0 { body += " echo_delay_ms \(o.echoDelayMilliseconds)" }
                if o.driftPPM != 0 { body += " drift_ppm \(o.driftPPM)" }
                if o.echoClip != 0 { body += " echo_clip \(o.echoClip)" }
                if o.echoHighpassHz != 0 { body += " echo_highpass_hz \(o.echoHighpassHz)" }
                if let channel = o.loopbackChannel { body += " loopback_channel \(channel) loopback_gain \(o.loopbackGain)" }
                lines.append("pcm.\(name) { \(body) }")
            case .asym(let name, let capture, let playback):
                lines.append("pcm.\(name) { type asym capture.pcm \(quoted(capture)) playback.pcm \(quoted(playback)) }")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Writes the configuration to `path`.
    public static func write(_ pcms: [TestPCM], to path: String) throws(TestFileError) {
        try TestFiles.write(Array(text(pcms).utf8), to: path)
    }

    private static func quoted(_ s: String) -> String {
        "\"" + s.replacingOccurrences("\\", "\\\\").replacingOccurrences("\"", "\\\"") + "\""
    }
}

extension String {
    fileprivate func replacingOccurrences(_ target: Character, _ replacement: String) -> String {
        var out = ""
        for c in self { if c == target { out += replacement } else { out.append(c) } }
        return out
    }
}
