#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The only caller of POSIX file and environment APIs in this module.
enum FileSystemCalls {
    struct ReadError: Error, Equatable {
        enum Kind: Equatable { case notFound, tooLarge, other }
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
        return ReadError(kind: code == ENOENT ? .notFound : .other, reason: String(cString: strerror(code)))
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
