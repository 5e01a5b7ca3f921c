/// Per band, the floor of a signal's power: the minimum of its smoothed power over the last
/// `subwindowCount` × `subwindowFrames` frames (minimum statistics, R. Martin, "Noise power spectral
/// density estimation based on optimal smoothing and minimum statistics", IEEE TSAP 9(5), 2001).
///
/// It falls at once with the smoothed signal and follows a louder steady noise (a fan, an extractor hood
/// switched on) about one window later, whatever a talker or echo did meanwhile: speech and echo leave
/// gaps in every band within a window, steady noise does not. Until a first window has passed, the floor
/// is the minimum so far. Callers leave out frames that say nothing about the room (digital silence).
///
/// A caller may also take a band's present smoothed power as its floor at once (`adopt`) where that power
/// has held within `steadySpread` for the last `steadyFrames` frames (`isSteady`): a steady sound that has
/// just begun, such as a motor's hum, before one window has passed. The floor still falls at once with
/// the smoothed power.
///
/// Allocation-free after init; realtime-safe. One thread.
final class BandNoiseFloor {
    static let subwindowCount = 4

    let bandCount: Int
    let subwindowFrames: Int
    let steadyFrames: Int
    let steadySpread: Float
    private let buffers = BufferStore()
    private let smoothed: UnsafeMutablePointer<Float>
    /// The smoothed power of the last `steadyFrames` frames, per band (frame-major ring).
    private let recent: UnsafeMutablePointer<Float>
    private var recentSlot = 0
    private var recentCount = 0
    /// Per band: the minimum of the current subwindow, and of each of the last `subwindowCount`.
    private let current: UnsafeMutablePointer<Float>
    private let minima: UnsafeMutablePointer<Float>
    private let floor: UnsafeMutablePointer<Float>
    private var framesInSubwindow = 0
    private var slot = 0
    private var started = false

    /// `steadySpread`: the ratio of the highest to the lowest smoothed power that still counts as steady.
    init(bandCount: Int, subwindowFrames: Int, steadyFrames: Int, steadySpread: Float) {
        self.bandCount = bandCount
        self.subwindowFrames = max(1, subwindowFrames)
        self.steadyFrames = max(1, steadyFrames)
        self.steadySpread = steadySpread
        smoothed = buffers.floats(bandCount, 0)
        recent = buffers.floats(bandCount * self.steadyFrames, 0)
        current = buffers.floats(bandCount, .greatestFiniteMagnitude)
        minima = buffers.floats(bandCount * Self.subwindowCount, .greatestFiniteMagnitude)
        floor = buffers.floats(bandCount, 0)
    }

    /// Back to the state of a new instance: no frame seen.
    func reset() {
        for b in 0..<bandCount {
            smoothed[b] = 0
            current[b] = .greatestFiniteMagnitude
            floor[b] = 0
        }
        for i in 0..<bandCount * steadyFrames { recent[i] = 0 }
        for i in 0..<bandCount * Self.subwindowCount { minima[i] = .greatestFiniteMagnitude }
        recentSlot = 0
        recentCount = 0
        framesInSubwindow = 0
        slot = 0
        started = false
    }

    /// Band `b`'s floor.
    subscript(b: Int) -> Float { floor[b] }

    /// Whether band `b`'s smoothed power has held within `steadySpread` over the last `steadyFrames` frames.
    func isSteady(_ b: Int) -> Bool {
        guard recentCount == steadyFrames else { return false }
        var low = Float.greatestFiniteMagnitude, high: Float = 0
        for f in 0..<steadyFrames {
            let p = recent[f * bandCount + b]
            low = min(low, p)
            high = max(high, p)
        }
        return high <= steadySpread * low
    }

    /// Takes band `b`'s present smoothed power as its floor, in every subwindow the minimum looks back over.
    func adopt(_ b: Int) {
        let level = smoothed[b]
        current[b] = max(current[b], level)
        for s in 0..<Self.subwindowCount { minima[s * bandCount + b] = max(minima[s * bandCount + b], level) }
        floor[b] = max(floor[b], level)
    }

    /// One frame's band powers (`bandCount` of them).
    func update(_ power: UnsafePointer<Float>) {
        let endsSubwindow = framesInSubwindow + 1 == subwindowFrames
        let keep = started ? EchoControlTuning.Suppressor.roomFloorSmoothing : 0
        started = true
        for b in 0..<bandCount {
            smoothed[b] = keep * smoothed[b] + (1 - keep) * power[b]
            recent[recentSlot * bandCount + b] = smoothed[b]
            current[b] = min(current[b], smoothed[b])
            var lowest = current[b]
            for s in 0..<Self.subwindowCount { lowest = min(lowest, minima[s * bandCount + b]) }
            floor[b] = lowest
            if endsSubwindow {
                minima[slot * bandCount + b] = current[b]
                current[b] = smoothed[b]
            }
        }
        recentSlot = (recentSlot + 1) % steadyFrames
        recentCount = min(recentCount + 1, steadyFrames)
        if endsSubwindow {
            framesInSubwindow = 0
            slot = (slot + 1) % Self.subwindowCount
        } else {
            framesInSubwindow += 1
        }
    }
}
