/// Per band, the floor of a signal's power: the minimum of its smoothed power over the last
/// `subwindowCount` × `subwindowFrames` frames (minimum statistics, R. Martin, "Noise power spectral
/// density estimation based on optimal smoothing and minimum statistics", IEEE TSAP 9(5), 2001).
///
/// It falls at once with the smoothed signal and follows a louder steady noise (a fan, an extractor hood
/// switched on) about one window later, whatever a talker or echo did meanwhile: speech and echo leave
/// gaps in every band within a window, steady noise does not. Until a first window has passed, the floor
/// is the minimum so far. Callers leave out frames that say nothing about the room (digital silence).
///
/// Allocation-free after init; realtime-safe. One thread.
final class BandNoiseFloor {
    static let subwindowCount = 4
    static let smoothing: Float = 0.7

    let bandCount: Int
    let subwindowFrames: Int
    private let smoothed: UnsafeMutablePointer<Float>
    /// Per band: the minimum of the current subwindow, and of each of the last `subwindowCount`.
    private let current: UnsafeMutablePointer<Float>
    private let minima: UnsafeMutablePointer<Float>
    private let floor: UnsafeMutablePointer<Float>
    private var framesInSubwindow = 0
    private var slot = 0
    private var started = false

    init(bandCount: Int, subwindowFrames: Int) {
        self.bandCount = bandCount
        self.subwindowFrames = max(1, subwindowFrames)
        smoothed = .floats(bandCount, 0)
        current = .floats(bandCount, .greatestFiniteMagnitude)
        minima = .floats(bandCount * Self.subwindowCount, .greatestFiniteMagnitude)
        floor = .floats(bandCount, 0)
    }

    deinit {
        for p in [smoothed, current, minima, floor] { p.deallocate() }
    }

    /// Band `b`'s floor.
    subscript(b: Int) -> Float { floor[b] }

    /// One frame's band powers (`bandCount` of them).
    func update(_ power: UnsafePointer<Float>) {
        let endsSubwindow = framesInSubwindow + 1 == subwindowFrames
        let keep = started ? Self.smoothing : 0
        started = true
        for b in 0..<bandCount {
            smoothed[b] = keep * smoothed[b] + (1 - keep) * power[b]
            current[b] = min(current[b], smoothed[b])
            var lowest = current[b]
            for s in 0..<Self.subwindowCount { lowest = min(lowest, minima[s * bandCount + b]) }
            floor[b] = lowest
            if endsSubwindow {
                minima[slot * bandCount + b] = current[b]
                current[b] = smoothed[b]
            }
        }
        if endsSubwindow {
            framesInSubwindow = 0
            slot = (slot + 1) % Self.subwindowCount
        } else {
            framesInSubwindow += 1
        }
    }
}
