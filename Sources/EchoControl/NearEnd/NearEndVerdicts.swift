/// The two near-end verdicts, from the bands the suppressor counts (the canceller's output over the predicted
/// echo, the mic over its echo, the part the reference does not explain): near-end speech
/// (`NearEndActivity.nearEndSpeech`), which may stop the assistant, and possible near-end speech
/// (`possibleNearEndSpeech`), sooner and only pausing it. This type decides when each may start: on a voiced
/// frame, and for possible speech only while the far end sounds like speech or where the output's pitch is not
/// the played sound's. The rules and their measurements: docs/barge-in.md ("When a verdict starts").
///
/// Allocation-free after init; realtime-safe. One thread.
final class NearEndVerdicts {
    typealias Tuning = EchoControlTuning.NearEnd

    /// The suppressed output's periodicity, measured in each frame that may start a verdict.
    private let periodicity: PeriodicityMeter
    /// The aligned reference's periodicity, measured where only the pitch rules could start possible near-end
    /// speech (`referencePitchAgainstOutput`).
    private let referencePeriodicity: PeriodicityMeter
    /// Frames whose pitch the reference lacks, at one period, across up to `heldPitchGapFrames` without it (the
    /// possible near-end speech's held-pitch rule).
    private var heldPitch = HeldPitch(toleranceDivisor: Tuning.heldPitchToleranceDivisor, gapFrames: Tuning.heldPitchGapFrames)
    private let heldPitchShortestLag: Int
    private let heldOnsetShortestLag: Int
    /// Frames in a row, this one included, whose speech bands as a whole stood over the predicted echo.
    private var aboveEchoFrames = 0
    private var speech: NearEndDetector
    /// The same evidence in `possibleSpeechBandFraction` of the bands: sooner, and fooled by the
    /// residual of music, so it may start only while the far end sounds like speech (`farEndRhythm`).
    private var possibleSpeech: NearEndDetector
    private var farEndRhythm: SpeechLikeFarEnd
    private let windowLength: Int

    /// `windowLength`: the suppressor's analysis window (two frames of `frameMilliseconds`); `onsetFrames` and
    /// `hangoverFrames`: the detectors'.
    init(windowLength: Int, sampleRate: Int, frameMilliseconds: Float, onsetFrames: Int, hangoverFrames: Int) {
        self.windowLength = windowLength
        periodicity = PeriodicityMeter(length: windowLength, sampleRate: sampleRate)
        referencePeriodicity = PeriodicityMeter(length: windowLength, sampleRate: sampleRate)
        heldPitchShortestLag = Tuning.heldPitchShortestMilliseconds * sampleRate / 1000
        heldOnsetShortestLag = Tuning.heldOnsetShortestMilliseconds * sampleRate / 1000
        speech = NearEndDetector(
            margin: Tuning.speechMargin, bandFraction: Tuning.speechBandFraction,
            onsetFrames: onsetFrames, hangoverFrames: hangoverFrames)
        possibleSpeech = NearEndDetector(
            margin: Tuning.speechMargin, bandFraction: Tuning.possibleSpeechBandFraction,
            onsetFrames: onsetFrames, hangoverFrames: hangoverFrames)
        farEndRhythm = SpeechLikeFarEnd(frameMilliseconds: frameMilliseconds)
    }

    /// Back to the state of a new instance: nothing heard, an empty far-end window.
    func reset() {
        heldPitch.reset()
        aboveEchoFrames = 0
        speech.reset()
        possibleSpeech.reset()
        farEndRhythm.reset()
    }

    /// The near-end speech margin over the predicted echo (the suppressor counts its bands with it).
    var speechMargin: Float { speech.margin }

    /// One frame of the far end: its mean power and whether it plays (`SpeechLikeFarEnd`).
    func farEndFrame(power: Float, active: Bool) { farEndRhythm.update(power: power, farEndActive: active) }

    /// The far end plays without speech's gaps (music; `SpeechLikeFarEnd.isSteady`).
    var farEndIsSteady: Bool { farEndRhythm.isSteady }

    /// One frame: `speechBandsAbove` of the `bandCount` speech bands count for near-end speech; the speech
    /// bands' output `speechEnergy` against the echo and room floor the detector predicts (`predicted`);
    /// `output`: the suppressed window as the inverse transform leaves it (analysis-windowed, unscaled);
    /// `reference`: the aligned reference's window, unwindowed; `window`: the analysis window; `windowLength`
    /// samples each. Returns near-end speech and possible near-end speech.
    func update(
        speechBandsAbove: Int, bandCount: Int, speechEnergy: Float, predicted: Float, farEndActive: Bool,
        output: UnsafePointer<Float>, reference referenceSamples: UnsafePointer<Float>,
        window: UnsafePointer<Float>
    ) -> (speech: Bool, possible: Bool) {
        let w = windowLength
        // A verdict starts only on a voiced frame of a counted run; once on, it holds as before.
        let possibleMayStart = farEndRhythm.isOpen
        let possibleStarting = possibleMayStart && !possibleSpeech.speech
        let possibleBands = possibleSpeech.counts(bandsAbove: speechBandsAbove, bandCount: bandCount)
        let possibleCounts = possibleStarting && possibleBands
        // Fewer bands count for possible near-end speech's start where the output's pitch is not the reference's.
        let pitchCandidate =
            possibleStarting && farEndActive && !possibleCounts
            && Float(speechBandsAbove) >= Tuning.pitchBandFraction * Float(bandCount)
            && speechEnergy > Tuning.pitchWholeBand * predicted
        // A pitch the reference lacks held over frames counts with one band, further under the echo.
        let heldPitchCandidate =
            possibleStarting && farEndActive && speechBandsAbove >= 1
            && speechEnergy > Tuning.heldPitchWholeBand * predicted
        let speechStarting = !speech.speech && speech.counts(bandsAbove: speechBandsAbove, bandCount: bandCount)
        var voiced = false, addsSound = speechEnergy > predicted, pitchCounts = false
        var speechMayStart = false
        var differingLag: Int?
        aboveEchoFrames = addsSound ? aboveEchoFrames + 1 : 0
        if speechStarting || possibleCounts || heldPitchCandidate {
            for i in 0..<w { periodicity.input[i] = output[i] * window[i] }
            let voicing = periodicity.measure()
            voiced = voicing >= Tuning.voicedPeriodicity
            speechMayStart = voiced
            var referencePitch: ReferencePitch?
            let briefOverEcho = possibleCounts && addsSound && aboveEchoFrames < Tuning.echoPitchFrames
            if voiced && farEndActive && ((possibleCounts && !addsSound) || heldPitchCandidate || briefOverEcho) {
                let reference = referencePitchAgainstOutput(outputVoicing: voicing, reference: referenceSamples, window: window)
                referencePitch = reference
                // Under the echo or briefly over it (a run under `echoPitchFrames`), a harmonic of the played pitch:
                // a loudspeaker that lost the fundamental.
                let playedHarmonic = reference.outputAtHarmonic && aboveEchoFrames < Tuning.echoPitchFrames
                // Over the echo only briefly, at the played pitch or a harmonic of it: a clipped onset of the echo
                // itself.
                if briefOverEcho && (reference.playsOutputPitch || playedHarmonic) { addsSound = false }
                // Well under the echo, a clipped echo's harmonic the reference does not favour.
                let echoHarmonic =
                    playedHarmonic
                    || (reference.outputRepeatsReferencePeriod
                        && speechEnergy < Tuning.echoPeriodWholeBand * predicted)
                if reference.differs && !echoHarmonic {
                    addsSound = true
                    pitchCounts = pitchCandidate
                }
                // A reference with no pitch at all lacks the output's too, for a pitch held over frames.
                if heldPitchCandidate && periodicity.bestLag >= heldPitchShortestLag
                    && ((reference.differs && !playedHarmonic) || reference.voicing < Tuning.voicedPeriodicity)
                {
                    differingLag = periodicity.bestLag
                }
            }
            // Under the echo as a whole, at the played pitch: the echo itself, for near-end speech, the verdict that stops.
            if voiced && farEndActive && speechStarting && speechEnergy <= predicted {
                let reference = referencePitch ?? referencePitchAgainstOutput(outputVoicing: voicing, reference: referenceSamples, window: window)
                if reference.playsOutputPitch { speechMayStart = false }
            }
        }
        // Over the echo for longer than a played voice's onset stands over it: a talker, whatever his pitch.
        let sustainedOverEcho =
            possibleStarting && farEndActive && voiced
            && aboveEchoFrames >= Tuning.sustainedOverEchoFrames
            && Float(speechBandsAbove) >= Tuning.pitchBandFraction * Float(bandCount)
        var onsetHeard = false
        if heldPitch.update(differingLag: differingLag) >= Tuning.heldPitchFrames {
            // A pitch the reference lacks, held: it adds sound even where the output also repeats at the echo's
            // period (`echoPeriodRepeat`) or the reference has no pitch at all.
            pitchCounts = true
            addsSound = true
            onsetHeard = heldPitchIsOnset(speechEnergy: speechEnergy, predicted: predicted)
        }
        let speechVerdict = speech.update(bandsAbove: speechBandsAbove, bandCount: bandCount, mayStart: speechMayStart)
        let possibleVerdict = possibleSpeech.update(
            counted: possibleBands || pitchCounts || sustainedOverEcho,
            mayStart: voiced && possibleMayStart && addsSound,
            onsetHeard: onsetHeard)
        return (speechVerdict, possibleVerdict)
    }

    /// Whether the pitch just held (the meters' last measures) is possible near-end speech's onset
    /// (`heldOnsetShortestMilliseconds`).
    private func heldPitchIsOnset(speechEnergy: Float, predicted: Float) -> Bool {
        let lag = periodicity.bestLag, own = referencePeriodicity.bestLag
        return lag >= heldOnsetShortestLag && speechEnergy > Tuning.heldOnsetWholeBand * predicted
            && abs(lag - own) > own / Tuning.heldPitchToleranceDivisor
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
    private func referencePitchAgainstOutput(
        outputVoicing: Float, reference: UnsafePointer<Float>,
        window: UnsafePointer<Float>
    ) -> ReferencePitch {
        for i in 0..<windowLength { referencePeriodicity.input[i] = reference[i] * window[i] }
        let voicing = referencePeriodicity.measure()
        guard voicing >= Tuning.pitchedReference else { return ReferencePitch(voicing: voicing) }
        let lag = periodicity.bestLag, own = referencePeriodicity.bestLag
        let outputAtReferencePeriod = periodicity.correlation(near: own, slack: Self.pitchSlack(own))
        guard referencePeriodicity.correlation(near: lag, slack: Self.pitchSlack(lag)) < Tuning.pitchMismatch * voicing else {
            let octaveUnder =
                abs(lag - 2 * own) <= Self.pitchSlack(lag)
                && outputAtReferencePeriod < Tuning.pitchMismatch * outputVoicing
            return ReferencePitch(voicing: voicing, differs: octaveUnder)
        }
        return ReferencePitch(
            voicing: voicing, differs: true,
            outputRepeatsReferencePeriod: outputAtReferencePeriod >= Tuning.echoPeriodRepeat * outputVoicing,
            outputAtHarmonic: lag >= heldPitchShortestLag && Self.isHarmonic(lag, of: own))
    }

    /// `referencePitchAgainstOutput`'s answer.
    private struct ReferencePitch {
        var voicing: Float
        var differs = false
        var outputRepeatsReferencePeriod = false
        var outputAtHarmonic = false

        /// The reference is clearly voiced at the output's pitch: what the output repeats is the played sound's.
        var playsOutputPitch: Bool { voicing >= Tuning.pitchedReference && !differs }
    }

    /// Whether `lag` is `period` divided by `harmonicLowestOrder` to `harmonicHighestOrder`, within a
    /// `harmonicToleranceDivisor`th of `period`.
    private static func isHarmonic(_ lag: Int, of period: Int) -> Bool {
        (Tuning.harmonicLowestOrder...Tuning.harmonicHighestOrder).contains { abs($0 * lag - period) <= period / Tuning.harmonicToleranceDivisor }
    }

    /// How far from a period, in samples, the pitch tests still take a repetition for it.
    private static func pitchSlack(_ lag: Int) -> Int { max(1, lag / Tuning.pitchToleranceDivisor) }
}
