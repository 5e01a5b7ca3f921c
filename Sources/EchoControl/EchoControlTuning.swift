/// Every threshold of echo control and near-end detection, one line of why each. The measurements behind
/// the values, and the commands that reproduce them, are in docs/barge-in.md; the barge-in timings that act
/// on the verdicts are `BargeInRule`'s.
public enum EchoControlTuning {
    /// Mean-square reference power (about −50 dBFS RMS) above which the far end plays and echo is expected.
    static let farEndPower: Float = 10_000

    /// Raising a quiet reference to its echo's level (`ReferenceLevelMatcher`).
    enum LevelMatching {
        /// The echo-to-reference ratio tracked is the frames' lower quartile: frames before the echo arrives pull it low.
        static let quantile: Float = 0.25
        /// Per far-end frame the quantile moves by this many dB (up to 7.8 dB/s up, 23 dB/s down at 16 ms frames).
        static let quantileStep: Float = 0.5
        /// The raised reference may stay this far (dB) below its echo.
        static let toleranceDB: Float = 3
        /// Mean power per sample (about −60 dBFS RMS) above which a reference carries sound worth measuring.
        static let soundPower: Float = 1_000
        /// The raised reference's recent peak stays at or below half of full scale.
        static let headroomPeak: Float = 16_384
    }

    /// Undoing a whole-sample slip of the reference, and the drift the reference resampler may correct.
    enum Alignment {
        /// A shift decides only once it explains the mic: its residual at most a quarter (6 dB) of the mic.
        static let slipDecisiveShare: Double = 0.25
        /// A slip is taken when it leaves a quarter (6 dB) or less of the residual of no shift and its neighbours.
        static let slipShare: Double = 0.25
        /// Drift under 3 ppm is the fit's own noise; beyond ±1000 ppm it is no sound card's: neither is corrected.
        static let minDriftPPM = 3.0
        static let maxDriftPPM = 1000.0
    }

    /// Whether the far end sounds like speech (`SpeechLikeFarEnd`): a voice dips 20 dB between words, music does not.
    enum FarEndRhythm {
        /// A frame 20 dB or more under the window's loudest is a dip...
        static let dipRatio: Float = 0.01
        /// ...and speech has dips in at least 5 % of the window's frames.
        static let dipFraction: Float = 0.05
        /// The window, how much of it must be heard before it opens, and how long a window without dips holds it shut.
        static let windowMilliseconds: Float = 2000
        static let minimumMilliseconds: Float = 500
        static let holdMilliseconds: Float = 2000
    }

    /// Between conversations, while the far end plays and nobody listens (`CaptureChain.track`).
    enum BetweenConversations {
        /// The suppressor and the preprocessor run over this much of what they missed when listening starts:
        /// enough for a suppressor started afresh to predict the echo in a conversation's first second over
        /// music (the sweep: Benchmarks/aec-real/JOURNAL.md, "Between conversations").
        static let lookbackMilliseconds = 3000
        /// Once its filter explains the echo the canceller rests, and adapts on this much of what it rested
        /// through when the chain next runs: the lookback and a second before it, in which it settles from
        /// the gap before the suppressor's lookback begins.
        static let restedMilliseconds = lookbackMilliseconds + 1000
        /// The canceller rests after adapting this long even if its filter does not explain the echo (a mic
        /// that hardly hears the speaker, an echo it cannot model): more of it would buy a conversation little.
        static let adaptAtMostMilliseconds = 10_000
    }

    /// The idle capture gate (`IdleCaptureGate`): while the chain is skipped the far end is silent, so the mic's
    /// level alone says whether someone talks.
    enum IdleGate {
        /// Mic power (−40 dBFS RMS) that counts as someone talking.
        static let speechPower: Float = 107_000
        /// Loud frames in a row (≥ 32 ms) before it counts, and quiet time (200 ms) before it ends.
        static let onsetMilliseconds = 32
        static let hangoverMilliseconds = 200
        /// The reference envelope falls 60 dB in 300 ms: room decay and the lag the chain would still compensate.
        static let holdFallBels: Float = 6
        static let holdFallMilliseconds: Float = 300
    }

    /// The residual echo suppressor (`ResidualEchoSuppressor`).
    public enum Suppressor {
        /// Power subtraction overestimates the predicted echo 3×: the residual swings above its prediction.
        static let over: Float = 3
        /// While someone talks the subtraction is gentler, to keep his voice.
        static let overWhileNearEnd: Float = 1.5
        /// A band this many times over its overestimated echo is the talker's and passes untouched.
        static let keepAbove: Float = 2
        /// The deepest a band is cut (−40 dB): deeper only adds musical noise.
        static let floorGain: Float = 0.01
        /// The detectors compare the output with 4× the predicted echo (their margins apply on top).
        static let detectorOver: Float = 4
        /// A fresh chain's couplings start 20 dB high, so it suppresses rather than leaks until it has learnt.
        static let initialCoupling: Float = 100
        /// Couplings rise slowly and fall fast per update: a talker is learnt as echo only slowly.
        static let couplingRise: Float = 0.02
        static let couplingFall: Float = 0.1
        /// While someone talks a coupling rises at this share of its usual rate.
        static let couplingRiseWhileTalking: Float = 0.25
        /// The suppression's coupling rises at most this many times per update: a missed talker is not learnt in a sentence.
        static let riseLimit: Float = 8
        /// How long a band's onset coupling applies after its reference returns from silence (the filter leaks most there).
        static let onsetMilliseconds = 256
        /// After this long of far end with no talker heard, gains recover slowly (`slowRise` per frame).
        static let quietTalkerMilliseconds = 3000
        /// A talker heard in a far-end pause keeps the onset coupling off only if within 6 dB of the onset's echo.
        static let pauseTalkerMargin: Float = 4
        /// The room floor's window (`BandNoiseFloor`): Martin's minimum statistics over 1.5 s.
        static let roomFloorMilliseconds = 1536
        /// The room floor's per-frame smoothing of a band's power before its minimum is taken.
        static let roomFloorSmoothing: Float = 0.7
        /// A band within `steadySoundSpread` (3 dB) for this long is steady: a motor or a hum, not a voice.
        static let steadySoundMilliseconds = 192
        static let steadySoundSpread: Float = 2
        /// At least this many steady counted bands (and half of them) make a sound the room's at once.
        static let steadySoundBands = 3
        /// The most a gain may rise per frame once only the far end has played for a while.
        static let slowRise: Float = 2
        /// Over music the suppression eases for a talker only this long after a published verdict.
        static let steadyFarEndTalkerMilliseconds = 3000
        /// The music leak's tracking per frame, in log10: it rises half-way and falls slowly (the worst recent leak).
        static let musicLeakRise: Float = 0.5
        static let musicLeakFall: Float = 0.02
        /// The lost-echo hold releases a band only when the mic rose by the output's rise plus 2× the echo estimate's.
        static let echoRiseMargin: Float = 2
        /// The mic rule: a talker makes the mic 6 dB louder than the echo its coupling predicts.
        static let micMargin: Float = 4
        /// The leak floor's tracking in log10: falls fast, rises a tenth as fast (it follows the filter's better moments).
        static let leakFall: Float = 0.05
        static let leakRise: Float = 0.005
        /// The leak floor sits 6 dB over the tracked leak, at most −10 dB (a worse filter is the couplings' to cover).
        static let leakMargin: Float = 4
        static let maxLeak: Float = 0.1
        /// A fresh leak floor starts at −20 dB, 14 dB under the filter's estimate.
        static let initialLeak: Float = 0.01
        /// Per-frame smoothing of the residual-reference cross spectra (time constant ~45 ms) for the coherence test.
        static let coherenceSmoothing: Float = 0.7
        /// RMS (LSB, −58 dBFS) of the quietest band energy that may count as speech: quieter room sounds are not talkers.
        static let quietBandRMS: Float = 41
        /// A band whose reference is under this share of the quiet-band level (about −68 dBFS) plays nothing.
        static let silentBandShare: Float = 0.1
        /// Couplings learn only from frames whose reference is within 6 dB of its envelope (not in a burst's tail).
        static let learnNearEnvelope: Float = 0.25
        /// The reference envelope's decay per 16 ms, in dB: the room's tail.
        static let envelopeDecayDBPer16ms: Float = 3.2
        /// The slow noise estimate: falls 30 % of the way, rises 1 % per frame (2.7 dB/s at 16 ms frames).
        static let noiseKeep: Float = 0.7
        static let noiseTake: Float = 0.3
        static let noiseRise: Float = 1.01
        /// A fresh noise estimate, per band.
        static let initialNoise: Float = 1000
        /// The talker detector's floor over its noise estimate.
        static let noiseFloorOver: Float = 2
        /// The speech bands, Hz: where a voice stands and a hum or a hiss does not.
        static let speechBandLow: Float = 250
        static let speechBandHigh: Float = 4000
    }

    /// The near-end detectors: both verdicts (`NearEndVerdicts`) and the suppressor's talker detector.
    public enum NearEnd {
        /// Frames of evidence in a row before a verdict may start (≥ 32 ms: a click or a clatter is shorter).
        static let onsetMilliseconds: Float = 32
        /// A verdict holds this long past its last counted frame: the gaps between a talker's syllables.
        static let hangoverMilliseconds: Float = 200
        /// Near-end speech: 30 % of the speech bands 4× over the predicted echo and the room floor.
        static let speechMargin: Float = 4
        static let speechBandFraction: Float = 0.3
        /// Possible near-end speech: the same margin in 20 % of the bands; sooner, and only pauses.
        static let possibleSpeechBandFraction: Float = 0.2
        /// The suppressor's talker detector: 2× over its echo and noise floor in 30 % of the bands (it eases the suppression).
        static let talkerMargin: Float = 2
        static let talkerBandFraction: Float = 0.3
        /// Near-end speech starts only on a frame this periodic (`PeriodicityMeter`): noise has no pitch, vowels do.
        static let voicedPeriodicity: Float = 0.35
        /// A reference this periodic is clearly voiced: its pitch can be told from a talker's.
        static let pitchedReference: Float = 0.5
        /// Where the output's pitch is not the reference's, possible speech may start with 10 % of the bands...
        static let pitchBandFraction: Float = 0.1
        /// ...with the speech bands as a whole at most 1 dB under the predicted echo.
        static let pitchWholeBand: Float = 0.794
        /// Two periods within a 30th (3 %) of each other are one pitch.
        static let pitchToleranceDivisor = 30
        /// The reference repeating at the output's period less than half as well as at its own: different pitches.
        static let pitchMismatch: Float = 0.5
        /// A pitch the reference lacks, held this many frames, counts with one band (a talker's word under the echo).
        static let heldPitchFrames = 2
        /// A held pitch may wander a 10th of its period from frame to frame (a falling "wait,").
        static let heldPitchToleranceDivisor = 10
        /// A held pitch counts with the speech bands as a whole up to 8 dB under the echo.
        static let heldPitchWholeBand: Float = 0.158
        /// Held pitches shorter than this are a loudspeaker's harmonics, not a voice (above 333 Hz).
        static let heldPitchShortestMilliseconds = 3
        /// A held pitch at least this long (a voice under 111 Hz) is the onset itself: a deep talker's word often
        /// measures unvoiced after two frames.
        static let heldOnsetShortestMilliseconds = 9
        /// ...where the speech bands as a whole stand at most 4.5 dB under the echo.
        static let heldOnsetWholeBand: Float = 0.355
        /// A held pitch survives this many frames without it (a deep word measures unvoiced between frames).
        static let heldPitchGapFrames = 2
        /// At the played pitch, the output must stand over the echo this many frames in a row: a clipped onset of
        /// the played voice stands over its prediction for a frame or two.
        static let echoPitchFrames = 3
        /// Over the echo this many frames in a row (64 ms), any voiced frame counts with 10 % of the bands: an echo
        /// stands over its prediction only at an onset.
        static let sustainedOverEchoFrames = 4
        /// Under half the echo (−3 dB), a one-frame pitch does not count where the output also repeats at the
        /// reference's period at least 0.75 as well: a clipped echo's best period can be a harmonic's.
        static let echoPeriodWholeBand: Float = 0.5
        static let echoPeriodRepeat: Float = 0.75
        /// A pitch at a third to a quarter of the played period (within a 10th) is the played voice's harmonic.
        static let harmonicLowestOrder = 3
        static let harmonicHighestOrder = 4
        static let harmonicToleranceDivisor = 10
    }
}
