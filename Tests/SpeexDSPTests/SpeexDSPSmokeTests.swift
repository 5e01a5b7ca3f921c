import Testing
@testable import SpeexDSP

@Test func SpeexDSPModuleLinks() { #expect(Bool(true)) }
