/// The `[dsp]` values the capture chain accepts: one owner for the config file's checks
/// (`Configuration`, which reports them as `PATH:LINE` problems before anything starts) and the
/// chain's own (`AudioEngine.CaptureChainConfiguration.problems`).
public enum CaptureChainLimits {
    /// `frame_ms`; also even.
    public static let frameMilliseconds = 4...64
    /// `echo_tail_ms`; also at least `frame_ms`.
    public static let echoTailMilliseconds = 16...1000
    public static let maxReferenceLagMilliseconds = 0...2000
    public static let noiseSuppressDB = -60...0
    /// `echo_suppress_db` and `echo_suppress_active_db`.
    public static let echoSuppressDB = -90...0
    public static let agcLevel = 1...32767

    /// `frame_ms` is in range and even (speexdsp's preprocessor needs an even frame).
    public static func isValidFrame(milliseconds: Int) -> Bool {
        frameMilliseconds.contains(milliseconds) && milliseconds % 2 == 0
    }

    /// `echo_tail_ms` is in range and holds at least one frame.
    public static func isValidEchoTail(milliseconds: Int, frameMilliseconds frame: Int) -> Bool {
        echoTailMilliseconds.contains(milliseconds) && milliseconds >= frame
    }
}
