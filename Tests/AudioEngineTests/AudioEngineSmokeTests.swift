import Testing
@testable import AudioEngine

@Test func AudioEngineModuleLinks() { #expect(Bool(true)) }
