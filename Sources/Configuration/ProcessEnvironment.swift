/// The process environment, read once per call (first occurrence of a name wins, like getenv).
public enum ProcessEnvironment {
    public static func current() -> [String: String] { FileSystemCalls.environment() }
}
