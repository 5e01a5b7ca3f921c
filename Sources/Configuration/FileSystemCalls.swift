#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The only caller of POSIX file and environment APIs in this module.
enum FileSystemCalls {
    struct ReadError: Error, Equatable {
        enum Kind: Equatable { case notFound, accessDenied, tooLarge, other }
        var kind: Kind
        /// `strerror` text, or a sentence for `tooLarge`.
        var reason: String
    }

    struct Contents {
        var bytes: [UInt8]
        /// `st_mode & 0o7777`.
        var permissions: UInt32
    }

    /// Reads a whole file (opened once, so the mode checked is the one of the file that was read).
    /// `regularOnly`: open without blocking and refuse FIFOs, devices and sockets (secret files,
    /// where a FIFO would hang the service at start).
    static func readFile(_ path: String, maxBytes: Int, regularOnly: Bool = false) throws(ReadError) -> Contents {
        var fd: Int32
        repeat {
            fd = open(path, O_RDONLY | O_CLOEXEC | (regularOnly ? O_NONBLOCK : 0))
        } while fd < 0 && errno == EINTR
        guard fd >= 0 else { throw errnoError() }
        defer { close(fd) }

        var info = stat()
        guard fstat(fd, &info) == 0 else { throw errnoError() }
        let type = info.st_mode & S_IFMT
        if type == S_IFDIR {
            throw ReadError(kind: .other, reason: String(cString: strerror(EISDIR)))
        }
        if regularOnly && type != S_IFREG {
            throw ReadError(kind: .other, reason: "not a regular file")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw errnoError()
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
            if bytes.count > maxBytes {
                throw ReadError(kind: .tooLarge, reason: "larger than \(maxBytes) bytes")
            }
        }
        return Contents(bytes: bytes, permissions: UInt32(info.st_mode) & 0o7777)
    }

    private static func errnoError() -> ReadError {
        let code = errno
        let kind: ReadError.Kind =
            switch code {
            case ENOENT: .notFound
            case EACCES, EPERM: .accessDenied
            default: .other
            }
        return ReadError(kind: kind, reason: String(cString: strerror(code)))
    }

    struct Status {
        var uid: UInt32
        var gid: UInt32
        /// `st_mode & 0o7777`.
        var permissions: UInt32
        var summary: String {
            "owner \(FileSystemCalls.userName(uid) ?? String(uid)), group \(FileSystemCalls.groupName(gid) ?? String(gid)), mode 0\(String(permissions, radix: 8))"
        }
    }

    /// `stat(2)` (following symlinks); nil when it fails.
    static func status(_ path: String) -> Status? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Status(uid: info.st_uid, gid: info.st_gid, permissions: UInt32(info.st_mode) & 0o7777)
    }

    struct UserIdentity: Sendable {
        var uid: UInt32
        /// Primary and supplementary groups (`getgrouplist`).
        var groups: [UInt32]
    }

    static func userIdentity(_ name: String) -> UserIdentity? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        guard getpwnam_r(name, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        var count: Int32 = 64
        var groups = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(name, entry.pw_gid, &groups, &count) < 0 {
            groups = [gid_t](repeating: 0, count: Int(count))
            guard getgrouplist(name, entry.pw_gid, &groups, &count) >= 0 else { return nil }
        }
        return UserIdentity(uid: entry.pw_uid, groups: Array(groups.prefix(Int(count))))
    }

    static func effectiveUserID() -> UInt32 { geteuid() }

    static func userName(_ uid: UInt32) -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.pw_name else { return nil }
        return String(cString: name)
    }

    static func groupName(_ gid: UInt32) -> String? {
        var entry = group()
        var result: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        guard getgrgid_r(gid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.gr_name else { return nil }
        return String(cString: name)
    }

    /// The process environment as a dictionary (first occurrence of a name wins, like getenv).
    static func environment() -> [String: String] {
        var result: [String: String] = [:]
        var pointer: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                let name = String(text[..<equals])
                if result[name] == nil { result[name] = String(text[text.index(after: equals)...]) }
            }
            pointer += 1
        }
        return result
    }
}
