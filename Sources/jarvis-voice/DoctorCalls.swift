import Glibc

/// The doctor's only POSIX calls: file modes, directory access, opening a GPIO chip.
enum DoctorCalls {
    static var isRoot: Bool { geteuid() == 0 }

    /// Permission bits of `path`, or nil when it cannot be stat'ed.
    static func mode(of path: String) -> UInt32? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return UInt32(info.st_mode & 0o7777)
    }

    enum DirectoryAccess: Equatable {
        case writable
        /// Missing; `ancestor` exists and is writable, so the service can create it.
        case creatable(ancestor: String)
        case notWritable(directory: String, reason: String)
    }

    /// Whether this user may create files in `directory` (or create the directory itself).
    static func access(toCreateIn directory: String) -> DirectoryAccess {
        var current = directory.isEmpty ? "/" : directory
        while true {
            var info = stat()
            if stat(current, &info) == 0 {
                guard info.st_mode & S_IFMT == S_IFDIR else {
                    return .notWritable(directory: current, reason: "not a directory")
                }
                guard Glibc.access(current, W_OK | X_OK) == 0 else {
                    return .notWritable(directory: current, reason: String(cString: strerror(errno)))
                }
                return current == directory ? .writable : .creatable(ancestor: current)
            }
            guard errno == ENOENT, current != "/" else {
                return .notWritable(directory: current, reason: String(cString: strerror(errno)))
            }
            current = parent(of: current)
        }
    }

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let parent = String(path[..<slash])
        return parent.isEmpty ? "/" : parent
    }

    /// Opens and closes a character device (a GPIO chip); nil on success, else the reason.
    static func openCharacterDevice(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return String(cString: strerror(errno)) }
        guard info.st_mode & S_IFMT == S_IFCHR else { return "not a character device" }
        var fd: Int32
        repeat { fd = open(path, O_RDWR | O_CLOEXEC) } while fd < 0 && errno == EINTR
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        close(fd)
        return nil
    }
}
