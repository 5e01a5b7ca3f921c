#if canImport(Glibc)
import Glibc
#endif

/// A fresh directory under /tmp for one test, removed on deinit.
final class TemporaryDirectory {
    let path: String

    init() {
        var template = Array("/tmp/jarvis-config-test-XXXXXX".utf8CString)
        let created = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(created != nil, "mkdtemp failed")
        path = String(cString: created!)
    }

    deinit {
        if let dir = opendir(path) {
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
                }
                if name != "." && name != ".." { unlink(path + "/" + name) }
            }
            closedir(dir)
        }
        rmdir(path)
    }

    /// Writes `contents` to `name` with `mode` and returns the full path.
    @discardableResult
    func write(_ name: String, _ contents: String, mode: mode_t = 0o600) -> String {
        write(name, bytes: Array(contents.utf8), mode: mode)
    }

    /// Writes raw `bytes` (e.g. not UTF-8) to `name` with `mode` and returns the full path.
    @discardableResult
    func write(_ name: String, bytes: [UInt8], mode: mode_t = 0o600) -> String {
        let file = path + "/" + name
        let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, mode)
        precondition(fd >= 0, "cannot create \(file)")
        _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        fchmod(fd, mode)  // not subject to the umask
        close(fd)
        return file
    }
}

/// Reads a text file of the repository (tests run from the package root or find it via #filePath).
func repositoryFile(_ relativePath: String, from filePath: String = #filePath) -> String? {
    // #filePath = <root>/Tests/ConfigurationTests/<file>.swift
    var root = filePath
    for _ in 0..<3 { root = String(root[..<(root.lastIndex(of: "/") ?? root.startIndex)]) }
    return readTextFile(root + "/" + relativePath)
}

func readTextFile(_ path: String) -> String? {
    guard let file = fopen(path, "r") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = fread(&buffer, 1, buffer.count, file)
        if count <= 0 { break }
        bytes += buffer[0..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}
