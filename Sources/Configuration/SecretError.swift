/// Why a secret could not be loaded. Never contains the secret itself.
public struct SecretError: Error, Sendable, Equatable, CustomStringConvertible {
    enum Code: Sendable, Equatable {
        case notFound, permissions, unreadable, empty, malformed
    }

    let code: Code
    public let description: String

    init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }

    public var isNotFound: Bool { code == .notFound }
    /// The file exists but group or others may access it (fix: `chmod 600`).
    public var isPermissionProblem: Bool { code == .permissions }
    /// The file exists but the service cannot read it (permission denied, not a regular file).
    public var isUnreadable: Bool { code == .unreadable }
}
