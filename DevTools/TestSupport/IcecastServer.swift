import Glibc
import Realtime
import TestProcess

/// A real Icecast 2 (Debian's `icecast2 -c CONFIG`, in the foreground) on 127.0.0.1 for end-to-end tests:
/// its XML config in a temporary directory, a free port, random passwords. A source (`FFmpegFeed`) pushes
/// to `sourceURL(mount)`, listeners read `url(mount)`, and `setTitle` sets a mount's now-playing title
/// through the admin API, which Icecast sends to listeners as ICY `StreamTitle` (MP3 and AAC mounts: an Ogg
/// mount refuses it, its titles travel in the stream's own comments). Stopped by `stop()` or on release.
public final class IcecastServer: Sendable {
    public let port: Int
    /// What a source sends as user `source`.
    public let sourcePassword: String
    private let adminPassword: String
    private let directory: TemporaryDirectory
    private let server: ServerProcess

    /// Starts icecast2 and returns once it answers HTTP.
    public static func start(timeout: Duration = .seconds(10)) async throws -> IcecastServer {
        try await ServerProcess.onFreePort { port in try await IcecastServer(port: port, timeout: timeout) }
    }

    private init(port: Int, timeout: Duration) async throws {
        self.port = port
        sourcePassword = Self.randomPassword()
        adminPassword = Self.randomPassword()
        directory = TemporaryDirectory(prefix: "jv-icecast")
        let config = directory.write("icecast.xml", Self.config(port: port, source: sourcePassword, admin: adminPassword))
        server = try ServerProcess(
            ["icecast2", "-c", config], name: "icecast2", logsIn: directory, secrets: [sourcePassword, adminPassword])
        try await server.waitForIt(to: "answer HTTP on port \(port)", within: timeout) {
            (try? await HTTPProbe.get(port: port, path: "/", timeout: .seconds(2))) != nil
        }
    }

    /// The config: logs to stderr (files would have to be writable by the user it changes to), no
    /// static files. As root, Icecast refuses to run without `<changeowner>`: it binds its port, then
    /// switches to nobody; it reads nothing of ours after that (config and logs are open by then).
    static func config(port: Int, source: String, admin: String) -> String {
        let nogroup = getgrnam("nogroup") != nil ? "nogroup" : "nobody"
        let security =
            getuid() == 0
            ? "<security><chroot>0</chroot><changeowner><user>nobody</user><group>\(nogroup)</group></changeowner></security>"
            : ""
        return """
            <icecast>
              <limits><clients>32</clients><sources>16</sources><source-timeout>10</source-timeout></limits>
              <authentication>
                <source-password>\(source)</source-password>
                <admin-user>admin</admin-user>
                <admin-password>\(admin)</admin-password>
              </authentication>
              <hostname>127.0.0.1</hostname>
              <listen-socket><port>\(port)</port><bind-address>127.0.0.1</bind-address></listen-socket>
              <fileserve>0</fileserve>
              <paths>
                <webroot>/usr/share/icecast2/web</webroot>
                <adminroot>/usr/share/icecast2/admin</adminroot>
              </paths>
              <logging><accesslog>-</accesslog><errorlog>-</errorlog><loglevel>3</loglevel></logging>
              \(security)
            </icecast>

            """
    }

    /// What listeners open: `http://127.0.0.1:PORT/mount`.
    public func url(_ mount: String) -> String { "http://127.0.0.1:\(port)\(mount)" }

    /// Where a source pushes (ffmpeg's icecast protocol); holds the source password.
    public func sourceURL(_ mount: String) -> String { "icecast://source:\(sourcePassword)@127.0.0.1:\(port)\(mount)" }

    /// The mounts with a source connected now (`/admin/listmounts`).
    public func mounts() async throws -> [String] {
        let answer = try await admin("/admin/listmounts")
        return answer.body.split(separator: "<source mount=\"").dropFirst().compactMap { $0.split(separator: "\"").first.map(String.init) }
    }

    /// Returns once a source is connected on `mount`; throws with `source`'s log (the encoder) when it is not.
    public func waitForMount(_ mount: String, from source: ServerProcess, timeout: Duration = .seconds(10)) async throws {
        try await source.waitForIt(to: "connect a source on \(url(mount))", within: timeout) {
            (try? await mounts().contains(mount)) == true
        }
    }

    /// Sets the now-playing title of `mount` (`/admin/metadata?mode=updinfo`); listeners that asked for
    /// ICY metadata get it as `StreamTitle` in the next metadata block.
    public func setTitle(_ title: String, on mount: String) async throws {
        let answer = try await admin("/admin/metadata?mount=\(Self.queryValue(mount))&mode=updinfo&song=\(Self.queryValue(title))")
        // Icecast answers 200 also when it refuses (an Ogg mount: "Mountpoint will not accept URL updates").
        guard answer.status == 200, answer.body.contains("Metadata update successful") else {
            throw ServerProcessError(description: "icecast2 did not set the title of \(mount): HTTP \(answer.status) \(answer.body)")
        }
    }

    /// What icecast2 wrote (passwords masked).
    public var log: String { server.log }

    /// SIGTERM; returns once it has exited.
    public func stop() async { await server.stop() }

    private func admin(_ path: String) async throws -> HTTPProbeResponse {
        let credentials = Base64.encode(Array("admin:\(adminPassword)".utf8))
        return try await HTTPProbe.get(port: port, path: path, headers: [("Authorization", "Basic \(credentials)")], timeout: .seconds(5))
    }

    private static func randomPassword() -> String { String(UInt64.random(in: 1...UInt64.max), radix: 36) }

    /// Percent-encoded for a query: unreserved ASCII kept, every other UTF-8 byte as %XX.
    static func queryValue(_ text: String) -> String {
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        let hex = Array("0123456789ABCDEF")
        var result = ""
        for byte in text.utf8 {
            if unreserved.contains(byte) {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                result += "%\(hex[Int(byte >> 4)])\(hex[Int(byte & 0xF)])"
            }
        }
        return result
    }
}
