import Basics
import Testing

@Suite struct WebURLTests {
    func reason(_ text: String, _ rules: WebURL.Rules) -> WebURLError.Reason? {
        do {
            _ = try WebURL(parsing: text, rules: rules)
            return nil
        } catch {
            return error.reason
        }
    }

    @Test func splitsTheParts() throws {
        let url = try WebURL(parsing: "  HTTPS://User:pw@Example.ORG:8443/a/b?c=1#frag ")
        #expect(url.scheme == .https && url.userInfo == "User:pw" && url.host == "example.org" && url.port == 8443)
        #expect(url.pathAndQuery == "/a/b?c=1" && url.path == "/a/b")
        #expect(url.absoluteString == "https://User:pw@example.org:8443/a/b?c=1")
        #expect(url.description == "https://example.org:8443/a/b?…", "no credentials or query in logs")
        #expect(try WebURL(parsing: "http://h").pathAndQuery == "/")
        #expect(try WebURL(parsing: "http://h?x").pathAndQuery == "/?x")
    }

    @Test func ipv6Literals() throws {
        let url = try WebURL(parsing: "ws://[::1]/v1/realtime", rules: .realtime)
        #expect(url.host == "[::1]" && url.address == "::1" && url.isLoopback && url.isIPAddress)
        #expect(url.effectivePort == 80 && url.hostHeader == "[::1]")
        let ported = try WebURL(parsing: "https://[2001:DB8::8:800:200C:417A]:8443/x")
        #expect(ported.address == "2001:db8::8:800:200c:417a" && ported.port == 8443 && ported.hostHeader == "[2001:db8::8:800:200c:417a]:8443")
        for good in ["[::]", "[1:2:3:4:5:6:7:8]", "[::ffff:192.0.2.1]", "[fe80::1]", "[1::]"] {
            #expect(reason("http://\(good)/", .media) == nil, "\(good)")
        }
        for bad in [
            "[::1", "[1:2:3:4:5:6:7:8:9]", "[1::2::3]", "[:::1]", "[12345::]", "[::1]x", "[g::1]", "[fe80::1%25eth0]",
            "[1.2.3.4]", "[::1.2.3]", "[:1::]", "[1:2:3:4:5:6:7::8:9]"
        ] {
            #expect(reason("http://\(bad)/", .media) == .badHost, "\(bad)")
        }
    }

    @Test func ports() throws {
        #expect(try WebURL(parsing: "http://h:1/").port == 1)
        #expect(try WebURL(parsing: "http://h:65535/").port == 65_535)
        #expect(try WebURL(parsing: "http://h:/").port == nil, "an empty port is the default (RFC 3986 §3.2.3)")
        #expect(try WebURL(parsing: "wss://h/", rules: .realtime).effectivePort == 443)
        for bad in ["http://h:0/", "http://h:65536/", "http://h:+80/", "http://h:8a/", "http://h:-1/", "http://h:000080/", "http://[::1]:x/"] {
            #expect(reason(bad, .media) == .badPort, "\(bad)")
        }
    }

    @Test func userInfoIsKeptForMediaAndRefusedWhereCredentialsLiveElsewhere() throws {
        #expect(try WebURL(parsing: "https://me:secret@feeds.example/rss").userInfo == "me:secret")
        #expect(reason("https://me:secret@jarvis.lan/ui", .jarvis) == .userInfo)
        #expect(reason("wss://me@api.openai.com/v1/realtime", .realtime) == .userInfo)
        do {
            _ = try WebURL(parsing: "wss://me:secret@api.openai.com/v1/realtime", rules: .realtime)
        } catch {
            #expect(!error.description.contains("secret"), "messages never carry credentials: \(error)")
        }
    }

    @Test func schemesPerClient() {
        #expect(reason("https://api.openai.com/v1/realtime", .realtime) == .scheme("https"))
        #expect(reason("wss://x.example/", .media) == .scheme("wss"))
        #expect(reason("file:///etc/passwd", .media) == .scheme("file"))
        #expect(reason("ftp://x/y", .jarvis) == .scheme("ftp"))
        #expect(reason("api.openai.com", .realtime) == .notAbsolute)
        #expect(reason("10.0.0.52:8081", .jarvis) == .notAbsolute)
        #expect(reason("http:/x", .media) == .notAbsolute)
        #expect(reason("http://jarvis.lan:8081/ui", .jarvis) == nil)
        #expect(reason("HTTP://jarvis.lan/", .jarvis) == nil, "schemes are case-insensitive")
    }

    @Test func cleartextOnlyToLoopbackUnderTheRealtimeRules() {
        for good in [
            "ws://localhost:9000/v1/realtime", "ws://127.0.0.1/x", "ws://[::1]:8080/", "ws://127.1.2.3:1/",
            "ws://api.localhost/", "wss://api.openai.com/v1/realtime", "wss://example.com:8443/realtime"
        ] {
            #expect(reason(good, .realtime) == nil, "\(good)")
        }
        for bad in [
            "ws://example.com/v1/realtime", "ws://10.0.0.5/", "ws://127.0.0.1.evil.com/", "ws://127.0.0.256/",
            "ws://[::2]/", "ws://localhost.evil.com/"
        ] {
            #expect(reason(bad, .realtime) == .cleartextToRemoteHost, "\(bad)")
        }
        #expect(reason("http://10.0.0.52:8081/ui", .jarvis) == nil, "Jarvis on the LAN is plain http")
    }

    @Test func refusesMalformedInputWithinBounds() {
        #expect(reason("", .media) == .empty)
        #expect(reason("   ", .media) == .empty)
        #expect(reason("http://h/a b", .media) == .invalidCharacters)
        #expect(reason("http://h/\u{7F}", .media) == .invalidCharacters)
        #expect(reason("http://" + String(repeating: "a", count: 3_000), .media) == .tooLong(2_048))
        #expect(reason("wss://", .realtime) == .badHost)
        #expect(reason("http://ex<ample/", .media) == .badHost)
        #expect(reason("http://:80/", .media) == .badHost)
        #expect(reason("http://bücher.example/", .media) == nil, "international names go to curl as written")
    }

    @Test func appendsPathsForClientEndpoints() throws {
        let base = try WebURL(parsing: "http://10.0.0.52:8081/ui/?x=1", rules: .jarvis)
        #expect(base.appendingPath("v1/chat/completions").absoluteString == "http://10.0.0.52:8081/ui/v1/chat/completions")
        #expect(try WebURL(parsing: "http://h", rules: .jarvis).appendingPath("/healthz").absoluteString == "http://h/healthz")
    }

    @Test func resolvesFeedAndPlaylistReferences() throws {
        let base = try WebURL(parsing: "https://u@host.example/a/b/list.pls?q=1")
        #expect(try base.resolving("../c/x.mp3").absoluteString == "https://u@host.example/a/c/x.mp3")
        #expect(try base.resolving("//cdn.example/y").absoluteString == "https://cdn.example/y")
        #expect(try base.resolving("?r=2").absoluteString == "https://u@host.example/a/b/list.pls?r=2")
        #expect(try base.resolving("").absoluteString == base.absoluteString)
        #expect(throws: WebURLError.self) { try base.resolving("file:///etc/passwd") }
        #expect(base.lastPathComponent == "list.pls")
        #expect(WebURL.encodingSpaces(" http://h/My Show 1.mp3 ") == "http://h/My%20Show%201.mp3")
    }
}
