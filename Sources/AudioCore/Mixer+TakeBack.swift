/// Taking back a paused voice from the device (the playback thread only).
///
/// A pause (`setPaused`) takes effect at the next render, but what was rendered before it is still in the
/// device's buffer (40 ms by default) and plays on. A playback loop that can rewind its device asks
/// `framesToTakeBack(limit:)` how many of the last rendered frames to replace, rewinds that many, and
/// writes what `takeBack(frames:into:)` renders instead: the same mix with the voice faded out over
/// `flushFadeMilliseconds` from the first replaced frame, as if the pause had come there. The voice
/// samples after the fade go back ahead of its queue, and its position moves back by as many, so a
/// resumed answer goes on where the speaker stopped and a truncation counts only what was heard. A flush
/// (a barge-in, a tap) is taken back the same way.
extension Mixer {
    /// How many of the last rendered frames `takeBack` would replace, at most `limit` (what the device
    /// can still take back): 0 unless a pause or a flush of the voice (a barge-in, a tap) is requested and
    /// not rendered yet, and only frames in which the voice played straight from its queue, more than a
    /// fade's worth of them.
    public func framesToTakeBack(limit: Int) -> Int {
        let control = controls[Self.voice]
        let state = states + Self.voice
        let flushPending = control.flushRequests.load(ordering: .acquiring) != state.pointee.flushesSeen
        guard !state.pointee.paused, control.paused.load(ordering: .acquiring) || state.pointee.held || flushPending
        else { return 0 }
        let frames = min(limit, voiceHistory.cleanFrames)
        return frames > flushFadeFrames ? frames : 0
    }

    /// Renders into `output` the replacement for the last `frames` rendered frames (at most what
    /// `framesToTakeBack` returned just before, on the same thread; fewer, as a device may rewind less than
    /// asked, shorten the fade) and applies the pause there. A pending
    /// flush then drops what was put back with the rest (the input is silent already: no second fade),
    /// and the next voice fades in.
    public func takeBack(frames: Int, into output: UnsafeMutableBufferPointer<Int16>) {
        precondition(output.count >= frames * channels, "Mixer.takeBack: output too short")
        let control = controls[Self.voice]
        let state = states + Self.voice
        let returned = voiceHistory.takeBack(frames: frames, fadeFrames: flushFadeFrames, into: output)
        control.position.subtract(returned, ordering: .releasing)
        control.rendered.subtract(returned, ordering: .releasing)
        state.pointee.paused = true
        state.pointee.fadeFrames = 0
        state.pointee.fadeInLeft = 0
    }

    /// The last rendered period never reached the device (a failed write): it cannot be taken back.
    public func renderedPeriodLost() { voiceHistory.forget() }

    /// The playback thread's own pause of the voice, on top of `setPaused` (either pauses it): a hold
    /// decided on that thread takes effect at once, with no other thread in between (`NearEndPauseReflex`).
    public func holdVoice(_ held: Bool) { states[Self.voice].held = held }
}
