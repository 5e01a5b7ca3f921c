import Basics
import FoundationEssentials
import HTTP

/// Result of `GET {url}/healthz` (for `jarvis-voice doctor` and startup logs).
public struct JarvisHealth: Sendable, Equatable {
    public enum Status: Sendable, Equatable {
        /// Reachable and the token is accepted.
        case ok
        /// Reachable, but the server did not recognise the token.
        case tokenRejected
        /// Reachable, but not at this URL (a 307/404 usually means the base path is missing or wrong).
        case wrongURL
        case unreachable
    }

    public var status: Status
    /// One readable line for the journal or the doctor report (host only, never the token).
    public var summary: String
}

extension JarvisClient {
    /// Probes `GET {url}/healthz`. term-llm answers it without auth and adds `version` and
    /// `agent` only for a valid bearer token, which tells a wrong token apart from a dead server.
    public func probeHealth() async -> JarvisHealth {
        let url: String
        do { url = try settings.url(appending: "healthz") } catch {
            return JarvisHealth(status: .wrongURL, summary: "Jarvis URL: \(error)")
        }
        let request = HTTPRequest(
            url: url, headers: [HTTPHeader("Authorization", "Bearer \(token)")],
            connectTimeout: settings.connectTimeout, inactivityTimeout: settings.inactivityTimeout,
            totalTimeout: settings.connectTimeout + .seconds(5), maxRedirects: 0)
        let host = request.host
        do {
            let response = try await http.execute(request)
            let bytes = try await response.collect(upTo: 64 * 1024)
            guard response.status == 200 else {
                let hint =
                    (300..<400).contains(response.status) || response.status == 404
                    ? " (is the base path, e.g. /ui, part of the URL?)" : ""
                return JarvisHealth(status: .wrongURL, summary: "Jarvis at \(host): GET /healthz returned \(response.status)\(hint)")
            }
            struct Body: Decodable {
                var status: String?
                var version: String?
                var agent: String?
            }
            let body = try? JSONDecoder().decode(Body.self, from: Data(bytes))
            guard body?.status == "ok" else {
                return JarvisHealth(status: .wrongURL, summary: "Jarvis at \(host): /healthz did not look like term-llm's")
            }
            guard let version = body?.version else {
                return JarvisHealth(status: .tokenRejected, summary: "Jarvis at \(host) is up but did not accept the token")
            }
            return JarvisHealth(status: .ok, summary: "Jarvis at \(host) is up (agent \(body?.agent ?? "?"), term-llm \(version))")
        } catch {
            return JarvisHealth(status: .unreachable, summary: "Jarvis at \(host) is unreachable: \(error)")
        }
    }
}
