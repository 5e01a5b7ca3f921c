import Glibc

/// The suppressor's per-band rules, each applied from `process`.
extension ResidualEchoSuppressor {
    /// Band `b`'s leak floor for this frame, learnt first from its output power `output` unless the talkerDetector
    /// detector hears a talker: `leakMargin` times the band's tracked leak, at most `maxLeak`, times the
    /// linear filter's echo estimate there.
    func followedLeak(_ b: Int, output: Float, talking: Bool) -> Float {
        let estimate = estimateBand[b]
        if !talking && estimate > quietBand {
            let leak = min(0, log10f(max(output, 1e-6 * estimate) / estimate))
            Self.follow(&leakLog[b], toward: leak, rise: Tuning.leakRise, fall: Tuning.leakFall)
        }
        return min(Tuning.maxLeak, Tuning.leakMargin * powf(10, leakLog[b])) * estimate
    }

    /// Band `b`'s predicted echo over music that nobody has been heard over: the linear filter's echo estimate
    /// times its worst recent leak there (the output's power over the estimate, in log10, rising half-way per
    /// frame and falling 0.02 of the way; learnt while the talkerDetector detector hears nobody).
    func musicLeak(_ b: Int, output: Float, talking: Bool) -> Float {
        let estimate = estimateBand[b]
        if !talking {
            let leak = log10f(max(output, 1e-6 * estimate) / estimate)
            Self.follow(&musicLeakLog[b], toward: leak, rise: Tuning.musicLeakRise, fall: Tuning.musicLeakFall)
        }
        return powf(10, musicLeakLog[b]) * estimate
    }

    /// The mic rule: band `b` of the mic is louder than its echo (more than `micMargin` times the mic
    /// coupling's prediction, plus the band's room floor); always true while the far end is silent.
    func micAboveEcho(_ b: Int, farEndActive: Bool) -> Bool {
        !farEndActive || micBand[b] > Tuning.micMargin * micCoupling[b] * envelope[b] + roomFloorLevel(b)
    }

    /// What the near-end speech detector expects in band `b`: the predicted echo, over-estimated, plus the room floor.
    func expectedBand(_ b: Int) -> Float { Tuning.detectorOver * detectorEchoBand[b] + roomFloorLevel(b) }

    /// Whether band `b` counts for the near-end speech detector: the mic over its echo, and the output, less what the
    /// reference explains linearly (echo an adapted filter lost for a moment, not a talker), over the margin.
    func countsForSpeech(_ b: Int, farEndActive: Bool) -> Bool {
        let coherentShare = min(1, explainedBand[b] / (smoothedResidualBand[b] + 1e-3))
        return micAboveEcho(b, farEndActive: farEndActive)
            && residualBand[b] * (1 - coherentShare) > verdicts.speechMargin * expectedBand(b)
    }

    /// Where `steadySoundBands` and at least half of the bands the near-end speech detector would count have held steady
    /// (`BandNoiseFloor.isSteady`), the sound in them is the room's: a motor switched on, not a voice, whose
    /// bands rise and fall with its syllables. Those bands' room floor takes their level at once rather than
    /// one window (`roomFloorMilliseconds`) later.
    func adoptSteadySound(farEndActive: Bool) {
        var counted = 0, steady = 0
        for b in speechBands where countsForSpeech(b, farEndActive: farEndActive) {
            counted += 1
            if roomFloor.isSteady(b) { steady += 1 }
        }
        guard steady >= Tuning.steadySoundBands && 2 * steady >= counted else { return }
        for b in speechBands where roomFloor.isSteady(b) && countsForSpeech(b, farEndActive: farEndActive) {
            roomFloor.adopt(b)
        }
    }

    /// Band `b`'s floor below which nothing counts: twice its noise, plus the quiet-band level.
    func noiseFloor(_ b: Int) -> Float { Tuning.noiseFloorOver * noise[b] + quietBand }

    /// Band `b`'s floor for the near-end speech detector and the mic rule: the room floor, plus the quiet-band level.
    func roomFloorLevel(_ b: Int) -> Float { roomFloor[b] + quietBand }

    /// One band's gain for output power `output` and predicted residual echo power `echo`: power
    /// subtraction of `over` times the echo, floored; untouched when the output is more than
    /// `keepAbove` times the overestimated echo (the near end dominates the band).
    static func gain(output: Float, echo: Float, over: Float) -> Float {
        let overEcho = over * echo
        guard output > 0, output <= Tuning.keepAbove * overEcho else { return 1 }
        return max(Tuning.floorGain, sqrtf(max(0, 1 - overEcho / output)))
    }

    /// Moves a tracked leak (log10) toward this frame's: `rise` of the way when it is higher, `fall` when lower.
    static func follow(_ tracked: inout Float, toward leak: Float, rise: Float, fall: Float) {
        tracked += (leak > tracked ? rise : fall) * (leak - tracked)
    }

    /// One update of a coupling: falls fast, rises slowly (a quarter as fast while the near end talks).
    static func track(_ coupling: Float, toward ratio: Float, talking: Bool) -> Float {
        var rate = ratio > coupling ? Tuning.couplingRise : Tuning.couplingFall
        if talking && ratio > coupling { rate *= Tuning.couplingRiseWhileTalking }
        return coupling + rate * (ratio - coupling)
    }

    func transform(inverse: Bool) {
        fft.permute()
        for stage in 1...fft.stages { fft.runStage(stage, inverse: inverse) }
    }
}
