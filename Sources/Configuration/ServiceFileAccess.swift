/// Whether the service's user could read a file, asked by a process that is not the service (`doctor`
/// run by root, who can read everything). Judged like the kernel would for that user: search
/// permission on every directory above the file, then read permission on the file, from owner,
/// group (the user's primary and supplementary groups) and other bits. ACLs are not evaluated. Paths
/// the unit's sandbox hides (`ProtectHome=yes`, `PrivateTmp=yes`) are refused as well.
public struct ServiceFileAccess: Sendable {
    public struct Denial: Sendable, Equatable {
        public let user: String
        public let reason: String
    }

    private let check: @Sendable (String) -> Denial?

    /// A custom check (tests): nil means readable.
    public init(_ check: @escaping @Sendable (_ path: String) -> Denial?) {
        self.check = check
    }

    /// Why `path` would be unreadable for the service, or nil (readable, or missing: reading tells).
    public func denial(_ path: String) -> Denial? { check(path) }

    public static func userExists(_ name: String) -> Bool { FileSystemCalls.userIdentity(name) != nil }

    /// The check for system user `name`; nil when there is no such user or this process already runs
    /// as it (then opening the file tells the truth).
    public static func user(_ name: String) -> ServiceFileAccess? {
        guard !name.isEmpty, let identity = FileSystemCalls.userIdentity(name),
            identity.uid != FileSystemCalls.effectiveUserID()
        else { return nil }
        return ServiceFileAccess { path in
            Self.denial(of: path, for: identity).map { Denial(user: name, reason: $0) }
        }
    }

    static let sandboxHidden: [(prefix: String, reason: String)] = [
        ("/home/", "the unit hides /home (ProtectHome=yes)"),
        ("/root/", "the unit hides /root (ProtectHome=yes)"),
        ("/run/user/", "the unit hides /run/user (ProtectHome=yes)"),
        ("/tmp/", "the service has its own /tmp (PrivateTmp=yes)"),
        ("/var/tmp/", "the service has its own /var/tmp (PrivateTmp=yes)")
    ]

    static func denial(of path: String, for identity: FileSystemCalls.UserIdentity) -> String? {
        if let hidden = sandboxHidden.first(where: { path.hasPrefix($0.prefix) }) { return hidden.reason }
        return permissionDenial(of: path, for: identity)
    }

    static func permissionDenial(of path: String, for identity: FileSystemCalls.UserIdentity) -> String? {
        guard path.hasPrefix("/") else { return nil }
        var directory = ""
        for component in path.split(separator: "/").dropLast() {
            directory += "/" + component
            guard let info = FileSystemCalls.status(directory) else { return nil }
            if !identity.may(0o1, info) { return "no search permission on \(directory) (\(info.summary))" }
        }
        guard let info = FileSystemCalls.status(path) else { return nil }
        return identity.may(0o4, info) ? nil : "no read permission (\(info.summary))"
    }
}

extension FileSystemCalls.UserIdentity {
    /// `bit` is 4 (read), 2 (write) or 1 (execute/search), taken from the owner, group or other class.
    func may(_ bit: UInt32, _ info: FileSystemCalls.Status) -> Bool {
        if uid == 0 { return true }
        if info.uid == uid { return info.permissions & (bit << 6) != 0 }
        if groups.contains(info.gid) { return info.permissions & (bit << 3) != 0 }
        return info.permissions & bit != 0
    }
}
