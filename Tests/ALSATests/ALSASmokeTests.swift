import Testing
@testable import ALSA

@Test func ALSAModuleLinks() { #expect(Bool(true)) }
