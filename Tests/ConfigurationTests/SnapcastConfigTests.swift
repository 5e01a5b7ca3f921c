import Testing

@testable import Configuration

@Suite struct SnapcastConfigTests {
    static let jarvis = "[jarvis]\nurl = \"http://jarvis.lan:8081/ui\"\n"

    @Test func theContractKeysAreRead() {
        let (config, problems) = ConfigLoader.decode(
            Self.jarvis + "[snapcast]\nenabled = true\nserver = \"snapserver.example:1704\"\nname = \"kitchen\"\n")
        #expect(problems.isEmpty)
        #expect(config.snapcast.enabled && config.snapcast.name == "kitchen" && config.snapcast.id.isEmpty)
        #expect(config.snapcast.address?.host == "snapserver.example" && config.snapcast.address?.port == 1704)
    }

    @Test(arguments: [
        ("home.lan", "home.lan", 1704), ("192.168.1.20:1800", "192.168.1.20", 1800), ("[fd00::1]:1704", "fd00::1", 1704),
        ("[::1]", "::1", 1704)
    ])
    func serverAddresses(text: String, host: String, port: Int) {
        let address = SnapcastConfig.parseAddress(text)
        #expect(address?.host == host && address?.port == port)
    }

    @Test(arguments: ["", ":1704", "home.lan:0", "home.lan:70000", "home.lan:port", "[::1", "http://home.lan:1704", "a b:1704"])
    func notAServerAddress(text: String) {
        #expect(SnapcastConfig.parseAddress(text) == nil)
    }

    @Test func enabledWithoutAServerOrWithABadOneIsOneProblemEach() {
        let (_, missing) = ConfigLoader.decode(Self.jarvis + "[snapcast]\nenabled = true\n")
        #expect(
            missing.map(\.message) == [
                "[snapcast] server is required when [snapcast] is enabled: host:port of the snapserver (its stream port, 1704)"
            ])
        let (_, bad) = ConfigLoader.decode(Self.jarvis + "[snapcast]\nenabled = true\nserver = \"http://home.lan:1704\"\n")
        #expect(bad.count == 1 && bad.first?.line == 5, "\(bad)")
    }
}
