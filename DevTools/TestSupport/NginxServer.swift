import TestProcess

/// A real nginx serving a directory over HTTP on 127.0.0.1 for end-to-end tests: files with their
/// Content-Length and byte ranges (nginx's static files answer `Range` with 206), playlists and segments
/// that an encoder (`FFmpegHLS`) keeps rewriting. Run as
/// `nginx -e stderr -p PREFIX -c CONF -g 'daemon off;'`, not as the system's service: its config, pid file
/// and temporary paths live in a temporary directory. Stopped by `stop()` or on release.
public final class NginxServer: Sendable {
    public let port: Int
    /// The directory served at `/`.
    public let root: String
    private let directory: TemporaryDirectory
    private let server: ServerProcess

    /// Starts nginx serving `root` and returns once it answers HTTP.
    public static func start(serving root: String, timeout: Duration = .seconds(10)) async throws -> NginxServer {
        try await ServerProcess.onFreePort { port in try await NginxServer(port: port, root: root, timeout: timeout) }
    }

    /// Starts nginx again where `stopped` served (its port and root): a server restart as clients see it.
    public static func restart(_ stopped: NginxServer, timeout: Duration = .seconds(10)) async throws -> NginxServer {
        try await NginxServer(port: stopped.port, root: stopped.root, timeout: timeout)
    }

    private init(port: Int, root: String, timeout: Duration) async throws {
        self.port = port
        self.root = root
        directory = TemporaryDirectory(prefix: "jv-nginx")
        let config = directory.write("nginx.conf", Self.config(port: port, root: root, prefix: directory.path))
        server = try ServerProcess(
            ["nginx", "-e", "stderr", "-p", directory.path, "-c", config, "-g", "daemon off;"], name: "nginx", logsIn: directory)
        try await server.waitForIt(to: "answer HTTP on port \(port)", within: timeout) {
            (try? await HTTPProbe.get(port: port, path: "/", timeout: .seconds(2))) != nil
        }
    }

    /// One process (`master_process off`): no workers to orphan when it is killed, and no switch to the
    /// `user` (nobody) that root's workers would make and that could not read a test's 0700 directory.
    static func config(port: Int, root: String, prefix: String) -> String {
        """
        master_process off;
        pid \(prefix)/nginx.pid;
        error_log stderr notice;
        events { worker_connections 64; }
        http {
            access_log off;
            client_body_temp_path \(prefix)/client_body;
            proxy_temp_path \(prefix)/proxy;
            fastcgi_temp_path \(prefix)/fastcgi;
            uwsgi_temp_path \(prefix)/uwsgi;
            scgi_temp_path \(prefix)/scgi;
            types {
                audio/mpeg mp3;
                audio/ogg ogg oga opus;
                audio/aac aac;
                audio/mp4 m4a;
                audio/flac flac;
                application/vnd.apple.mpegurl m3u8;
                video/mp2t ts;
                video/mp4 mp4 m4s;
            }
            default_type application/octet-stream;
            server {
                listen 127.0.0.1:\(port);
                root \(root);
                # A live playlist changes every segment: no client may keep an old one.
                location ~ \\.m3u8$ { add_header Cache-Control no-cache; }
            }
        }

        """
    }

    /// `http://127.0.0.1:PORT/path` (`path` relative to `root`).
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)/" + path.drop { $0 == "/" } }

    /// What nginx wrote.
    public var log: String { server.log }

    /// SIGTERM (nginx's fast shutdown); returns once it has exited.
    public func stop() async { await server.stop() }
}
