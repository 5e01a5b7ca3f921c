import Testing

@testable import EchoControl

/// Feeds `frames` frames of `power` in every band; returns the floor after each.
private func feed(_ floor: BandNoiseFloor, _ power: Float, frames: Int) -> [Float] {
    let powers = [Float](repeating: power, count: floor.bandCount)
    return (0..<frames).map { _ in
        powers.withUnsafeBufferPointer { floor.update($0.baseAddress!) }
        return floor[0]
    }
}

@Test func bandNoiseFloorFollowsASteadyNoiseAboutAWindowLateAndFallsAtOnce() {
    let floor = BandNoiseFloor(bandCount: 2, subwindowFrames: 4, steadyFrames: 12, steadySpread: 2)
    // From the first frame on it is the minimum so far.
    #expect(feed(floor, 1, frames: 20).allSatisfy { $0 == 1 })
    // A fan switched on (100 times the power): older subwindows still hold the quiet room, so the floor
    // stays down for three subwindows, then follows the smoothed power's rise one window late.
    let rising = feed(floor, 100, frames: 40)
    #expect(rising.prefix(12).allSatisfy { $0 < 2 }, "\(rising)")
    #expect(rising[27] > 80 && rising[39] > 99, "\(rising)")
    // It falls with the smoothed power at once.
    let falling = feed(floor, 1, frames: 1)
    #expect(abs(falling[0] - (0.7 * 100 + 0.3 * 1)) < 0.1)
}

@Test func bandNoiseFloorIsAVoicesGapsNotTheVoice() {
    let floor = BandNoiseFloor(bandCount: 1, subwindowFrames: 10, steadyFrames: 12, steadySpread: 2)
    // Syllables 10 frames loud (30 dB above the room), then 20 frames at the room's level, for many windows.
    var last: [Float] = []
    for _ in 0..<40 {
        last = feed(floor, 1000, frames: 10) + feed(floor, 1, frames: 20)
    }
    #expect(last.allSatisfy { $0 < 3 }, "\(last)")
}

@Test func bandNoiseFloorTakesASteadySoundAtOnceWhenAskedAndStillFallsWithIt() {
    let floor = BandNoiseFloor(bandCount: 1, subwindowFrames: 10, steadyFrames: 6, steadySpread: 2)
    _ = feed(floor, 1, frames: 50)
    // A motor switched on: the smoothed power rises over a few frames, then holds.
    _ = feed(floor, 100, frames: 5)
    #expect(!floor.isSteady(0), "still rising")
    _ = feed(floor, 100, frames: 12)
    #expect(floor.isSteady(0))
    #expect(floor[0] < 2, "minimum statistics alone: still the quiet room")
    floor.adopt(0)
    #expect(floor[0] > 99)
    // It holds there while the sound does, and falls with it at once.
    #expect(feed(floor, 100, frames: 30).allSatisfy { $0 > 99 })
    let falling = feed(floor, 1, frames: 1)
    #expect(abs(falling[0] - (0.7 * 100 + 0.3 * 1)) < 0.1)
}

@Test func bandNoiseFloorFindsNoSteadinessInAVoicesSyllables() {
    let floor = BandNoiseFloor(bandCount: 1, subwindowFrames: 10, steadyFrames: 12, steadySpread: 2)
    // Syllables: 8 frames 20 dB above the room, 4 frames at its level.
    for _ in 0..<10 {
        for power: Float in [100, 100, 100, 100, 100, 100, 100, 100, 1, 1, 1, 1] {
            _ = feed(floor, power, frames: 1)
            #expect(!floor.isSteady(0))
        }
    }
}
