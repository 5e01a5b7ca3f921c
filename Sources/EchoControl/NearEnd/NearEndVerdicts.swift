/// The near-end verdicts `ResidualEchoSuppressor` publishes, from the bands its strict detector counts (the
/// canceller's output over the predicted echo, the mic over its echo, the part the reference does not
/// explain): the strict verdict (`NearEndActivity.nearEndSpeech`), which may stop the assistant, and the
/// looser one (`possibleNearEndSpeech`), which only pauses it. This type decides when each may start.
///
/// A strict verdict starts only on a voiced frame of a run of counted frames, at least 32 ms into it: the
/// suppressed output's periodicity above 300 Hz at a voice's pitch periods (`PeriodicityMeter`) reaches
/// `voicedPeriodicity` in that frame; once on, it holds as before. With a 48 ms onset (any frame of the
/// run voiced) a talker's first word over a loud, saturated echo often cleared the margin in 30 % of the
/// bands for only two frames in a row, and the verdict came with a later word (Benchmarks/aec,
/// barge_in_sweep.py: 14 of 77 starts later than 400 ms, 11 with 32 ms; Benchmarks/aec-real: the same
/// stops, one more real utterance caught, the talkers flagged 27 -> 31 %). With 32 ms and any frame of
/// the run voiced, a fan switched on under the far end started a verdict (its run's first frame measured
/// 0.37, the second 0.15), hence the voicing of the starting frame itself. The room floor learns a noise switched on while the far end plays (a
/// hood, a tap) about 1.5 s late, and until then the noise stands above it as a talker would
/// (Benchmarks/aec-real, room_noise.py's switched-on variants: 26 stops on 24 runs cold, 26 warm; 0 with
/// the voicing test). Noise has no pitch and a talker's vowels do; the real talkers' first verdicts did
/// not move. A hum whose harmonics reach into the speech bands is periodic there too; its bands hold
/// steady, and the suppressor takes them into the room floor once they have
/// (`ResidualEchoSuppressor.adoptSteadySound`). Nor does it start, while the far end plays, on a voiced
/// frame whose speech bands as a whole stand under the predicted echo at the reference's own pitch
/// (`referencePitchAgainstOutput`): a deeper male answer's clipped echo
/// (Benchmarks/aec/barge_in_sweep.py --answer-voice en-us+m2) cleared the margin in a third of the bands for
/// two frames there, 0.5-4.8 dB under its prediction, started this verdict and paused the answer at 37 of 77
/// starts (546 verdict frames on the echo; with this test 65 and 5 pauses, the looser verdict at one position
/// of the frame grid). A talker at the answer's pitch under its echo is left to the looser verdict, which
/// pauses: one start over that answer heard late (736 ms), every other sweep and Benchmarks/aec-real the same.
/// A third, prompt detector counts the strict one's bands in `promptBandFraction` of them, with the same
/// onset, voicing and hangover. It may start only while the far end sounds like speech
/// (`SpeechLikeFarEnd`), and only on a frame whose speech bands as a whole stand above the predicted echo
/// and the room floor: a talker adds sound, while a loud clipped echo that the filter misses in a few
/// bands does not (on the end-to-end test's answer it started 0.9 s in at 11 of the 16 positions of the
/// answer in the frame grid, at -6.5 to -2.2 dB overall; talkers' first verdicts stood at -4 to +23 dB,
/// median +5.6, and those under 0 dB were heard a frame or two later), or on a voiced frame whose pitch
/// the reference does not have (or has an octave higher): the echo, however clipped, repeats at the played sound's pitch period,
/// while a talker's first word can stand under that echo as a whole and still clear the margin in a few
/// bands (a talker 1.0 s into the answer was heard only with his second word, 736 ms in); such a frame
/// counts with 10 % of the bands where the whole is no more than 1 dB under the echo, and with one band, up
/// to 8 dB under it, once the talker has held that pitch over two frames (`HeldPitch`, across up to
/// `heldPitchGapFrames` without it; a deep one held is the onset itself, `heldOnsetShortestMilliseconds`; there a
/// reference with no pitch at all lacks his too).
/// Whatever its pitch, a voiced frame counts with 10 % of the bands once the whole has stood over the echo for
/// `sustainedOverEchoFrames` frames in a row: an echo stands over its prediction only at an onset.
/// Where the output's pitch is the reference's own, the whole must have stood above the echo for
/// `echoPitchFrames` frames in a row: a loud onset of a played voice, clipped by the loudspeaker, can stand a
/// frame or two over its prediction, at the played pitch. Well under the echo,
/// a single frame's pitch the reference lacks does not count where the output also repeats at the
/// reference's own period (`echoPeriodRepeat`): a clipped echo's best period can be a harmonic's. It is
/// published as `NearEndActivity.possibleNearEndSpeech`, which pauses the assistant but never stops it.
///
/// Allocation-free after init; realtime-safe. One thread.
final class NearEndVerdicts {
    /// The prompt verdict counts a frame with this share of the speech bands (the strict one: 30 %).
    /// Benchmarks/aec/barge_in_sweep.py (the answer met at every position of the frame): first
    /// pausing verdict median 96 ms, 90th percentile 205 ms, 5 of 77 starts later than 400 ms (30 % alone:
    /// 112, 736, 12); end to end the answer fell silent 90-190 ms after the talker, median 150 in 32 runs (30 %
    /// alone: 130-220, median 190). As the verdict itself it stopped the assistant on a fan switched on
    /// under the far end and paused it 7-9 times over music 2; without the far-end test, 10 pauses over
    /// the ReSpeaker music (1 with it): hence its place.
    static let promptBandFraction: Float = 0.2
    /// A strict verdict starts only on a frame this periodic (`PeriodicityMeter`).
    /// Benchmarks/aec-real, temporary builds: 0.3 and 0.35 leave every real talker's first verdict where
    /// it was (56 utterances of the 16 double-talk recordings and the 3 mixes, cold and warm) and stop on
    /// none of the switched-on noises; 0.4 delays one by 128 ms. Without the meter's high-pass, 0.35
    /// delayed one by 32 ms and the humming hood still stopped the assistant (4 cold, 5 warm).
    static let voicedPeriodicity: Float = 0.35
    /// The looser verdict's pitch rule (`referencePitchAgainstOutput`): on a voiced frame whose pitch the
    /// reference does not have it may start under the predicted echo as a whole, and with `pitchBandFraction`
    /// of the speech bands (10 %: 2 of 18) where the whole stands at most 1 dB under it (`pitchWholeBand`).
    /// The reference must be at least `pitchedReference` periodic and repeat itself at the output's period
    /// (within a 30th of it, 3 %) less than half as well as at its own. Benchmarks/aec/barge_in_sweep.py,
    /// temporary builds, with the answer made as the service plays it and as the tests make
    /// it: late starts (over 400 ms) 4 -> 2 of 77 with the first part, 0 with both (max 192 ms), no verdict
    /// before the talker; with 3 bands (15 %) and 3 dB, 1 late. Within a 20th (5 %) one start stayed late
    /// with the tests' answer; at the reference's own best lag instead of the output's (often an octave or
    /// two off) it paused on the echo at one position of the frame in 16; with 0.35 here (voiced) a fan
    /// switched on under the far end paused the assistant (Benchmarks/aec-real, cold); with 0.5 the first
    /// part moved no verdict there, cold or warm, and the second added one 208 ms pause warm, on a plucked
    /// note the ReSpeaker music 1's loopback lacks.
    /// An output pitch an octave under the reference's differs too: a man talking over a
    /// female answer repeats at twice its period, as the answer does, so the first test called his pitch the
    /// answer's (barge_in_sweep.py --answer-voice en-us+f2 and +f4, the usual talker: his best period 152-157
    /// samples, the answer's 75-79). Late starts 1 -> 0 (f2) and 3 -> 2 (f4; 0 with `heldPitchToleranceDivisor`
    /// 10), no verdict before the talker with any voice. At any multiple of the reference's period instead of
    /// twice it, 52 verdict frames on the en-us+m7 answer's echo (its reference repeated best at 41 samples, a
    /// harmonic's period, its echo at 164); the reference repeating at half the output's period, the output
    /// not, 91 there.
    static let pitchedReference: Float = 0.5
    static let pitchBandFraction: Float = 0.1
    static let pitchWholeBand: Float = 0.794
    static let pitchToleranceDivisor = 30
    static let pitchMismatch: Float = 0.5
    /// A pitch the reference lacks, held over `heldPitchFrames` frames in a row at one period (within a
    /// `heldPitchToleranceDivisor`th, 10 %; `HeldPitch`), counts for the looser verdict's start with a single
    /// speech band over the margin where the speech bands as a whole stand at most 8 dB under the echo
    /// (`heldPitchWholeBand`), at periods of at least `heldPitchShortestMilliseconds` (up to 333 Hz).
    /// Benchmarks/aec/barge_in_sweep.py (temporary builds): the one start still heard late (192
    /// ms; "wait," 4-8 dB under the echo as a whole, over the margin in 1-3 bands, repeating at 9.6-10.5 ms
    /// where the answer did not) 112-144 ms, max 192 -> 144 ms, 90th percentile 118 -> 112 ms, no verdict
    /// before the talker; three frames required: no start sooner; with no band required (10 dB under the
    /// echo), 157 verdict frames on the echo. Benchmarks/aec-real: the farend mix's second real talker
    /// heard 948 -> 644 ms into his utterance (cold, warm, and five of its noisy-room variants); with
    /// shorter periods allowed, one 208 ms pause on the phone (cold): its loudspeaker's echo of a gliding
    /// voice (4.0-4.6 ms) repeated at 2.5-2.6 ms for five frames. Counting a voiced frame with 2 bands (10
    /// %) where the whole stood 2 dB over the echo, whatever its pitch, took the sweep's median to 64 ms and
    /// max to 128 but paused the phone 2-3 times more (cold, and its noisy-room variants): not kept.
    /// A reference with no pitch at all (under `voicedPeriodicity`) lacks the output's too, for this rule
    /// only: with a deeper talker than the answer (barge_in_sweep.py --talker-pitch 25) late starts 3 -> 2
    /// of 77, a female voice's median 80 -> 64 ms, the usual talker unchanged; Benchmarks/aec-real, cold
    /// and warm: the same outputs, stops and far-end-only pauses, the phone's talker paused for 224-240 ms
    /// sooner before two of his verdicts. Such a held pitch also adds sound (the looser
    /// verdict may start on it under the echo as a whole), as one the reference has at another period did:
    /// over a deeper male answer (--answer-voice en-us+m4) late starts 3 -> 2 of 84 (max 1280 -> 752 ms; "wait,"
    /// held 164 -> 151 samples over frames whose reference had no pitch, 0.4-0.8 dB under the echo), the deeper
    /// talker over a female answer median 80 -> 72 ms, one start of the usual talker 80 -> 32 ms; no verdict
    /// before the talker with any voice; Benchmarks/aec-real cold and warm the same bit for bit.
    /// Within a 10th rather than a 20th: "wait," falls fast, and over a female answer
    /// (--answer-voice en-us+f4) the usual talker's period moved 153 -> 168 samples (9.8 %) from one frame to
    /// the next; with the octave test (`referencePitchAgainstOutput`) late starts 2 -> 0 of 79 there (3 -> 0
    /// with both), every other sweep and Benchmarks/aec-real (cold and warm, bit for bit) unchanged.
    static let heldPitchFrames = 2
    static let heldPitchToleranceDivisor = 10
    static let heldPitchWholeBand: Float = 0.158
    static let heldPitchShortestMilliseconds = 3
    /// A held pitch (`heldPitchFrames`) is the looser verdict's onset itself, so it starts on the frame that
    /// completes the hold rather than a 32 ms onset later, where its period is at least
    /// `heldOnsetShortestMilliseconds` (a voice under 111 Hz), the speech bands as a whole stand at most 4.5 dB under
    /// the echo (`heldOnsetWholeBand`), and the period is not within a `heldPitchToleranceDivisor`th of the
    /// reference's own best one, however weakly the reference repeats there (a deep played voice measures under
    /// `pitchedReference`: the meter's taper). A deep talker's first word under the echo often holds his pitch
    /// for two frames and then measures unvoiced for one, which ended the run before its onset.
    /// Benchmarks/aec/barge_in_sweep.py (temporary builds): the deeper talker (--talker-pitch 25)
    /// 2 -> 1 of 77 starts late (at 1.0 s "wait," held 197 samples, 3.1 dB under the echo, 736 -> 144 ms); over
    /// the 15 sweeps' 1160 starts 49 heard 16-592 ms sooner, none later, no verdict on any answer's echo. Without the
    /// reference's period test the pitch-10 answer's echo, holding 226 -> 213 samples against the reference's
    /// 206 (0.31 periodic) 3.1 dB under its prediction, paused it at one position of the frame grid (52 verdict
    /// frames, 4 pauses). This onset without that test and without the harmonic rule (`harmonicLowestOrder`)
    /// gives 209 verdict frames on the usual answer's echo, at its harmonics' short periods.
    static let heldOnsetShortestMilliseconds = 9
    static let heldOnsetWholeBand: Float = 0.355
    /// A held pitch survives up to this many frames in a row without it (`HeldPitch.gapFrames`): a deep talker's
    /// word under the echo measures unvoiced, or at a harmonic's period the played voice has, between frames that
    /// keep his pitch. Benchmarks/aec/barge_in_sweep.py (temporary builds): the deeper talker's last
    /// late start (3.8 s: 202, then 52 samples, a third of the answer's period, two unmeasured frames, 196, 57 and
    /// 193 samples just under `voicedPeriodicity`, 190) 736 -> 128 ms, his sweep 0 of 77 late (max 736 -> 240 ms,
    /// 90th percentile 144 -> 134); over the 15 sweeps 33 starts heard sooner (28 by 16 ms), none later, no verdict
    /// on any answer's echo. Benchmarks/aec-real, cold and warm: every output the same bit for bit; new pauses on
    /// the double-talk recordings and the phone, each where Silero hears the talker on the recording's oracle
    /// (0.9-1.0), none on the echo-only recordings. One frame: no change there.
    static let heldPitchGapFrames = 2
    /// A voiced frame at the reference's own pitch (the reference clearly voiced and repeating itself at the
    /// output's period: `referencePitchAgainstOutput` says it does not differ) adds sound for the looser
    /// verdict's start only once the speech bands as a whole have stood over the predicted echo for this many
    /// frames in a row. Benchmarks/aec/barge_in_sweep.py (temporary builds), with a female answer
    /// (--answer-voice en-us+f3, as a female voice of the Realtime API would be): its own echo 0.74 s in, at
    /// "dentist", stood 2.3-2.4 dB over the prediction for one or two frames, voiced at the answer's period, in
    /// 4-5 bands, and paused the answer at 12 of the 16 positions of the frame grid (683 false verdict frames,
    /// 48 pauses that resumed, over 76 starts): 0 and 0 with 3 frames; with 2, 156 and 12; with 3 dB over the
    /// echo instead of a run, 0 and 0, but a talker at the answer's pitch 1-1.6 dB over it for five frames was
    /// heard 704 ms late (--answer-voice en-us+m3). The talkers' sweeps: the usual 90th percentile 112 -> 118
    /// ms, a female talker's max 112 -> 128 ms, the rest unchanged, none late.
    static let echoPitchFrames = 3
    /// A voiced frame counts for the looser verdict's start with `pitchBandFraction` of the speech bands, whatever
    /// its pitch, once the speech bands as a whole have stood over the predicted echo for this many frames in a row
    /// (64 ms): a played voice's clipped echo stands over its prediction only at an onset, for a frame or two
    /// (`echoPitchFrames`), while a talker who adds sound goes on adding it. It hears a talker at the played voice's
    /// own pitch whose words clear the margin in too few bands for the prompt verdict's 20 %.
    /// Benchmarks/aec/barge_in_sweep.py (temporary builds): over the en-us+m4 answer a talker 5.8 s
    /// in stood 0.7-2 dB over the echo for eight frames, over the margin in 1-4 bands, at the answer's pitch
    /// (153-154 samples against 157-158) or unvoiced, and was heard with his later word: 736 -> 144 ms, late starts
    /// there 2 -> 1 of 84; over the 15 sweeps' 1160 starts 34 heard 16-592 ms sooner, none later, no verdict on any
    /// answer's echo. Benchmarks/aec-real, cold and warm: every output the same bit for bit; new pauses only where
    /// a real talker talks (the phone 31.7-32.0 s, in double talk: its oracle -15 dBFS, Silero 0.85-1.0), and a few
    /// verdicts a frame sooner. With 3 frames: new pauses on the phone at 42.9 and 51.2 s and on
    /// challenge-q2x99T-dt-moving, cold and warm.
    static let sustainedOverEchoFrames = 4
    /// Where the speech bands as a whole stand under `echoPeriodWholeBand` of the predicted echo (-3 dB), a
    /// single frame whose pitch the reference lacks adds no sound if the output also repeats itself at the
    /// reference's own period, at least `echoPeriodRepeat` times as well as at its best: a clipped echo's
    /// harmonics are balanced otherwise than the played sound's, so its best period can be a harmonic's that
    /// the reference does not favour, but it repeats at the played sound's period as the played sound does. A
    /// pitch held over frames (`heldPitchFrames`) still adds sound. Benchmarks/aec/barge_in_sweep.py
    /// (temporary builds), a louder male answer (--answer-voice en-us+m7, 155 % voicing): its echo 2.3 and
    /// 3.0 s in, 5-10 dB under the prediction in 4-5 bands, repeated best at 4.7 and 3.3 ms where the reference
    /// did not, and paused the answer at 31 of 77 starts (411 false verdict frames): 0 and 0 with 0.75 (39 and
    /// 3 with 0.8, 81 and 6 with 0.85); every other voice's sweep unchanged. With 0.5 or 0.7,
    /// Benchmarks/aec-real's farend mix's second real talker was heard 644 -> 948 ms into his utterance (cold,
    /// warm, and five noisy-room variants), with 0.75 and 0.8 not: the margin is narrow on both sides. Applied
    /// in every frame and to held pitches as well (0.5), talkers were heard late at the answer's pitch (2 of 75
    /// starts over en-us+m3, 704 ms), the deeper talker at 3 starts instead of 2, and a higher one's max 144 ->
    /// 288 ms. Left: at the end of that answer (8.5 s) its echo, 0.2-0.5 dB under the prediction, held a 3.4 ms
    /// period for two frames.
    static let echoPeriodWholeBand: Float = 0.5
    static let echoPeriodRepeat: Float = 0.75
    /// Under the predicted echo as a whole, or over it for fewer than `echoPitchFrames` frames in a row, a pitch
    /// the reference lacks but whose period is the reference's own divided by `harmonicLowestOrder` to
    /// `harmonicHighestOrder` (within a `harmonicToleranceDivisor`th of the reference's period; periods of at least
    /// `heldPitchShortestMilliseconds`) is the played voice's harmonic, not a talker's: a small loudspeaker does
    /// not play a deep voice's fundamental (the paced test PCM's high-passes at 200 Hz), and its clipped echo at
    /// an onset can repeat best at a third or a quarter of the played period while the reference repeats at its
    /// own. Such a frame adds no sound and holds no pitch, as a frame at the played pitch does not.
    /// Benchmarks/aec/barge_in_sweep.py (temporary builds): the deeper male answers en-us+m4 (its echo
    /// at 51 samples against 160, 2.3 dB under the prediction) and en-us+m1 (48 against 177) and the usual voice
    /// at pitch 10 (49-53 against 204-207, once 0.01 dB over the prediction) paused themselves at one position of
    /// the frame grid in 16; verdict frames before the talker / pauses that resumed m4 65 / 4, m1 39 / 3, pitch
    /// 10 108 / 8 -> 0 / 0 each. The cost, talkers at such a period under the echo or briefly over it: 54 of the
    /// 15 sweeps' 1160 starts heard later (42 by 16-48 ms, 11 by 64-80, 1 by 176: the usual talker over
    /// en-us+m2's answer, at its pitch, 48 -> 224 ms), none sooner, none later than 400 ms more; every sweep's
    /// maximum the same, the talker over en-us+m1 median 64 -> 80 ms, the higher talker's 90th percentile 102 ->
    /// 112 ms. Benchmarks/aec-real, cold and warm: outputs and verdicts the same bit for bit. Under the echo only:
    /// pitch 10 52 / 4 left, 32 starts later.
    /// Half the played period too (the octave: en-us+m2's echo 84 ms into its answer repeated at 84 samples
    /// against 168, 65 / 5 -> 0 / 0) heard a real talker an octave over the far end late: Benchmarks/aec-real's
    /// challenge-QG4-Pp-dt, 12.26 s in, 71-72 samples against 144-146 for three frames 1-3 dB under the echo,
    /// 48 -> 752 ms cold and warm (and the female talker over the usual answer, max 128 -> 176 ms). Regardless of
    /// the level, from the octave on: no pause on any echo, but 189 starts later and one more than 400 ms late;
    /// within a 20th, 147 / 11 left; with the meter's shortest periods (2.5-3 ms, at the edge of its range) the
    /// deeper talker 64 -> 160 ms at one start.
    static let harmonicLowestOrder = 3
    static let harmonicHighestOrder = 4
    static let harmonicToleranceDivisor = 10

    /// The suppressed output's periodicity, measured in each frame that may start a verdict.
    private let periodicity: PeriodicityMeter
    /// The aligned reference's periodicity, measured where only the pitch rules could start the looser
    /// verdict (`referencePitchAgainstOutput`).
    private let referencePeriodicity: PeriodicityMeter
    /// Frames whose pitch the reference lacks, at one period, across up to `heldPitchGapFrames` without it (the
    /// looser verdict's held-pitch rule).
    private var heldPitch = HeldPitch(toleranceDivisor: heldPitchToleranceDivisor, gapFrames: heldPitchGapFrames)
    private let heldPitchShortestLag: Int
    private let heldOnsetShortestLag: Int
    /// Frames in a row, this one included, whose speech bands as a whole stood over the predicted echo.
    private var aboveEchoFrames = 0
    private var strict: NearEndDetector
    /// The strict detector's evidence in `promptBandFraction` of the bands: sooner, and fooled by the
    /// residual of music, so it may start only while the far end sounds like speech (`farEndRhythm`).
    private var prompt: NearEndDetector
    private var farEndRhythm: SpeechLikeFarEnd
    private let windowLength: Int

    /// `windowLength`: the suppressor's analysis window (two frames of `frameMilliseconds`); `onsetFrames` and
    /// `hangoverFrames`: the detectors'.
    init(windowLength: Int, sampleRate: Int, frameMilliseconds: Float, onsetFrames: Int, hangoverFrames: Int) {
        self.windowLength = windowLength
        periodicity = PeriodicityMeter(length: windowLength, sampleRate: sampleRate)
        referencePeriodicity = PeriodicityMeter(length: windowLength, sampleRate: sampleRate)
        heldPitchShortestLag = Self.heldPitchShortestMilliseconds * sampleRate / 1000
        heldOnsetShortestLag = Self.heldOnsetShortestMilliseconds * sampleRate / 1000
        strict = NearEndDetector(margin: 4, bandFraction: 0.3, onsetFrames: onsetFrames, hangoverFrames: hangoverFrames)
        prompt = NearEndDetector(margin: 4, bandFraction: Self.promptBandFraction, onsetFrames: onsetFrames,
                                 hangoverFrames: hangoverFrames)
        farEndRhythm = SpeechLikeFarEnd(frameMilliseconds: frameMilliseconds)
    }

    deinit { farEndRhythm.deallocate() }

    /// The strict detector's margin over the predicted echo (the suppressor counts its bands with it).
    var strictMargin: Float { strict.margin }

    /// One frame of the far end: its mean power and whether it plays (`SpeechLikeFarEnd`).
    func farEndFrame(power: Float, active: Bool) { farEndRhythm.update(power: power, farEndActive: active) }

    /// The far end plays without speech's gaps (music; `SpeechLikeFarEnd.isSteady`).
    var farEndIsSteady: Bool { farEndRhythm.isSteady }

    /// One frame: `strictAbove` of the `bandCount` speech bands count for the strict detector; the speech
    /// bands' output `speechEnergy` against the echo and room floor the detector predicts (`predicted`);
    /// `output`: the suppressed window as the inverse transform leaves it (analysis-windowed, unscaled);
    /// `reference`: the aligned reference's window, unwindowed; `window`: the analysis window; `windowLength`
    /// samples each. Returns the strict and the looser verdict.
    func update(strictAbove: Int, bandCount: Int, speechEnergy: Float, predicted: Float, farEndActive: Bool,
                output: UnsafePointer<Float>, reference referenceSamples: UnsafePointer<Float>,
                window: UnsafePointer<Float>) -> (speech: Bool, possible: Bool) {
        let w = windowLength
        // A verdict starts only on a voiced frame of a counted run; once on, it holds as before.
        let promptMayStart = farEndRhythm.isOpen
        let promptStarting = promptMayStart && !prompt.speech
        let promptBands = prompt.counts(bandsAbove: strictAbove, bandCount: bandCount)
        let promptCounts = promptStarting && promptBands
        // Fewer bands count for the looser verdict's start where the output's pitch is not the reference's.
        let pitchCandidate = promptStarting && farEndActive && !promptCounts
            && Float(strictAbove) >= Self.pitchBandFraction * Float(bandCount)
            && speechEnergy > Self.pitchWholeBand * predicted
        // A pitch the reference lacks held over frames counts with one band, further under the echo.
        let heldPitchCandidate = promptStarting && farEndActive && strictAbove >= 1
            && speechEnergy > Self.heldPitchWholeBand * predicted
        let strictStarting = !strict.speech && strict.counts(bandsAbove: strictAbove, bandCount: bandCount)
        var voiced = false, addsSound = speechEnergy > predicted, pitchCounts = false
        var strictMayStart = false
        var differingLag: Int?
        aboveEchoFrames = addsSound ? aboveEchoFrames + 1 : 0
        if strictStarting || promptCounts || heldPitchCandidate {
            for i in 0..<w { periodicity.input[i] = output[i] * window[i] }
            let voicing = periodicity.measure()
            voiced = voicing >= Self.voicedPeriodicity
            strictMayStart = voiced
            var referencePitch: ReferencePitch?
            let briefOverEcho = promptCounts && addsSound && aboveEchoFrames < Self.echoPitchFrames
            if voiced && farEndActive && ((promptCounts && !addsSound) || heldPitchCandidate || briefOverEcho) {
                let reference = referencePitchAgainstOutput(outputVoicing: voicing, reference: referenceSamples, window: window)
                referencePitch = reference
                // Under the echo or briefly over it (a run under `echoPitchFrames`), a harmonic of the played pitch:
                // a loudspeaker that lost the fundamental.
                let playedHarmonic = reference.outputAtHarmonic && aboveEchoFrames < Self.echoPitchFrames
                // Over the echo only briefly, at the played pitch or a harmonic of it: a clipped onset of the echo
                // itself.
                if briefOverEcho && (reference.playsOutputPitch || playedHarmonic) { addsSound = false }
                // Well under the echo, a clipped echo's harmonic the reference does not favour.
                let echoHarmonic = playedHarmonic || (reference.outputRepeatsReferencePeriod
                    && speechEnergy < Self.echoPeriodWholeBand * predicted)
                if reference.differs && !echoHarmonic {
                    addsSound = true
                    pitchCounts = pitchCandidate
                }
                // A reference with no pitch at all lacks the output's too, for a pitch held over frames.
                if heldPitchCandidate && periodicity.bestLag >= heldPitchShortestLag
                    && ((reference.differs && !playedHarmonic) || reference.voicing < Self.voicedPeriodicity) {
                    differingLag = periodicity.bestLag
                }
            }
            // Under the echo as a whole, at the played pitch: the echo itself, for the verdict that stops.
            if voiced && farEndActive && strictStarting && speechEnergy <= predicted {
                let reference = referencePitch ?? referencePitchAgainstOutput(outputVoicing: voicing, reference: referenceSamples, window: window)
                if reference.playsOutputPitch { strictMayStart = false }
            }
        }
        // Over the echo for longer than a played voice's onset stands over it: a talker, whatever his pitch.
        let sustainedOverEcho = promptStarting && farEndActive && voiced
            && aboveEchoFrames >= Self.sustainedOverEchoFrames
            && Float(strictAbove) >= Self.pitchBandFraction * Float(bandCount)
        var onsetHeard = false
        if heldPitch.update(differingLag: differingLag) >= Self.heldPitchFrames {
            // A pitch the reference lacks, held: it adds sound even where the output also repeats at the echo's
            // period (`echoPeriodRepeat`) or the reference has no pitch at all.
            pitchCounts = true
            addsSound = true
            onsetHeard = heldPitchIsOnset(speechEnergy: speechEnergy, predicted: predicted)
        }
        let speech = strict.update(bandsAbove: strictAbove, bandCount: bandCount, mayStart: strictMayStart)
        let possible = prompt.update(counted: promptBands || pitchCounts || sustainedOverEcho,
                                     mayStart: voiced && promptMayStart && addsSound,
                                     onsetHeard: onsetHeard)
        return (speech, possible)
    }

    /// Whether the pitch just held (the meters' last measures) is the looser verdict's onset
    /// (`heldOnsetShortestMilliseconds`).
    private func heldPitchIsOnset(speechEnergy: Float, predicted: Float) -> Bool {
        let lag = periodicity.bestLag, own = referencePeriodicity.bestLag
        return lag >= heldOnsetShortestLag && speechEnergy > Self.heldOnsetWholeBand * predicted
            && abs(lag - own) > own / Self.heldPitchToleranceDivisor
    }

    /// The aligned reference of the same window against the suppressed output's pitch (the periodicity
    /// meter's last measure): how periodic the reference is (`voicing`), and whether the output's pitch is one
    /// it does not have (`differs`): the reference is clearly voiced (`pitchedReference`), but repeats itself
    /// at the output's period, within a `pitchToleranceDivisor`th of it, less than `pitchMismatch` times as
    /// well as at its own; or the output's pitch is an octave under the reference's: its period is twice the
    /// reference's own, and it repeats itself at the reference's own period less than `pitchMismatch` times as
    /// well as at its best (a voice an octave under the played one repeats at twice the played period, as the
    /// played sound does, but not at the played period itself, while the echo does).
    /// `outputVoicing`: the output's periodicity; `outputRepeatsReferencePeriod` (where the reference does not
    /// repeat at the output's period): the output repeats itself at the reference's own best period at least
    /// `echoPeriodRepeat` times as well as at its own.
    private func referencePitchAgainstOutput(outputVoicing: Float, reference: UnsafePointer<Float>,
                                             window: UnsafePointer<Float>) -> ReferencePitch {
        for i in 0..<windowLength { referencePeriodicity.input[i] = reference[i] * window[i] }
        let voicing = referencePeriodicity.measure()
        guard voicing >= Self.pitchedReference else { return ReferencePitch(voicing: voicing) }
        let lag = periodicity.bestLag, own = referencePeriodicity.bestLag
        let outputAtReferencePeriod = periodicity.correlation(near: own, slack: Self.pitchSlack(own))
        guard referencePeriodicity.correlation(near: lag, slack: Self.pitchSlack(lag)) < Self.pitchMismatch * voicing else {
            let octaveUnder = abs(lag - 2 * own) <= Self.pitchSlack(lag)
                && outputAtReferencePeriod < Self.pitchMismatch * outputVoicing
            return ReferencePitch(voicing: voicing, differs: octaveUnder)
        }
        return ReferencePitch(voicing: voicing, differs: true,
                              outputRepeatsReferencePeriod: outputAtReferencePeriod >= Self.echoPeriodRepeat * outputVoicing,
                              outputAtHarmonic: lag >= heldPitchShortestLag && Self.isHarmonic(lag, of: own))
    }

    /// `referencePitchAgainstOutput`'s answer.
    private struct ReferencePitch {
        var voicing: Float
        var differs = false
        var outputRepeatsReferencePeriod = false
        var outputAtHarmonic = false

        /// The reference is clearly voiced at the output's pitch: what the output repeats is the played sound's.
        var playsOutputPitch: Bool { voicing >= NearEndVerdicts.pitchedReference && !differs }
    }

    /// Whether `lag` is `period` divided by `harmonicLowestOrder` to `harmonicHighestOrder`, within a
    /// `harmonicToleranceDivisor`th of `period`.
    private static func isHarmonic(_ lag: Int, of period: Int) -> Bool {
        (harmonicLowestOrder...harmonicHighestOrder).contains { abs($0 * lag - period) <= period / harmonicToleranceDivisor }
    }

    /// How far from a period, in samples, the pitch tests still take a repetition for it.
    private static func pitchSlack(_ lag: Int) -> Int { max(1, lag / pitchToleranceDivisor) }
}
