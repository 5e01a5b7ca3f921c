extension UnsafeMutablePointer where Pointee == Float {
    /// `count` floats, each `value`, for per-band and per-bin state allocated once at init (the caller
    /// deallocates).
    static func floats(_ count: Int, _ value: Float = 0) -> UnsafeMutablePointer<Float> {
        let p = UnsafeMutablePointer<Float>.allocate(capacity: count)
        p.initialize(repeating: value, count: count)
        return p
    }
}
