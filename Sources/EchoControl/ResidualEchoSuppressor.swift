import Glibc

/// Removes, per band, the echo the linear canceller leaves behind (a small loudspeaker's distortion, a filter
/// still converging) and counts the bands where someone near the device stands above what is left, from which
/// `NearEndVerdicts` decides the two verdicts. Runs between the echo canceller and the preprocessor. How each
/// rule decides, and the measurements behind it, are in docs/barge-in.md ("The residual echo suppressor").
///
/// The output is one frame late (overlap-add). Allocation-free after init; realtime-safe. One thread.
final class ResidualEchoSuppressor {
    /// The suppressor's rules, each of which tests and benchmark tools can switch off to compare against.
    struct Rules: OptionSet, Sendable {
        let rawValue: Int
        /// A band's own coupling for its first `onsetMilliseconds` after silence (the filter leaks most there).
        static let onsetCoupling = Rules(rawValue: 1 << 0)
        /// A band's gain does not rise on echo the linear filter lost for a moment.
        static let holdsLostEcho = Rules(rawValue: 1 << 1)
        /// A quiet talker heard in a far-end pause does not keep the onset coupling off.
        static let endsQuietPauseTalkers = Rules(rawValue: 1 << 2)
        /// A band a heard talker dominates gets its whole gain back at once.
        static let talkerBandsRecoverAtOnce = Rules(rawValue: 1 << 3)
        /// Gains recover slowly once only the far end has played for a while.
        static let recoversSlowlyWithoutTalker = Rules(rawValue: 1 << 4)
        /// The leak floor follows the linear filter's own echo estimate.
        static let followsLinearEstimate = Rules(rawValue: 1 << 5)
        /// Over music the suppression eases only for a talker a verdict heard.
        static let easesOverSteadyFarEndOnlyForAHeardTalker = Rules(rawValue: 1 << 6)
        /// Over music nobody was heard over, the filter's worst recent leak is echo too.
        static let followsMusicLeak = Rules(rawValue: 1 << 7)
        static let all: Rules = [
            .onsetCoupling, .holdsLostEcho, .endsQuietPauseTalkers, .talkerBandsRecoverAtOnce,
            .recoversSlowlyWithoutTalker, .followsLinearEstimate,
            .easesOverSteadyFarEndOnlyForAHeardTalker, .followsMusicLeak
        ]
    }

    static let bandCount = 24
    /// Frames of reference held for the envelope: the echo sits up to ~130 ms into the filter.
    static let historyFrames = 8
    typealias Tuning = EchoControlTuning.Suppressor
    typealias NearEnd = EchoControlTuning.NearEnd

    /// Band energy below which nothing counts as speech (`Tuning.quietBandRMS` spread over the bands).
    let quietBand: Float
    let rules: Rules
    /// Owns every per-band and per-bin buffer below.
    private let buffers = BufferStore()

    let frameSize: Int
    let windowLength: Int
    let fft: StagedFFT
    let window: UnsafeMutablePointer<Float>
    let residualHistory: UnsafeMutablePointer<Float>
    let referenceHistory: UnsafeMutablePointer<Float>
    let overlap: UnsafeMutablePointer<Float>
    let spectrumRe: UnsafeMutablePointer<Float>
    let spectrumIm: UnsafeMutablePointer<Float>
    let bandOfBin: UnsafeMutablePointer<Int32>
    /// Per band: reference power of the last `historyFrames` frames (ring), envelope, coupling, noise, gain.
    let referenceFrames: UnsafeMutablePointer<Float>
    let envelope: UnsafeMutablePointer<Float>
    let coupling: UnsafeMutablePointer<Float>
    let detectorCoupling: UnsafeMutablePointer<Float>
    /// Per band: the mic's power over the reference envelope (the echo path as the mic hears it), and this
    /// frame's mic power.
    let micCoupling: UnsafeMutablePointer<Float>
    /// Per band: the onset coupling, frames the band's reference has been silent, frames of onset left.
    let onsetCoupling: UnsafeMutablePointer<Float>
    let silentFrames: UnsafeMutablePointer<Int>
    let onsetFramesLeft: UnsafeMutablePointer<Int>
    /// Frames left of the far end's onset (`onsetFrames` after it comes back from silence).
    var farEndOnsetLeft = 0
    let onsetFrames: Int
    let micBand: UnsafeMutablePointer<Float>
    let micHistory: UnsafeMutablePointer<Float>
    let micSpectrum: RealSpectrum
    /// Per band: the linear filter's echo estimate (the power of mic − canceller output) while the far end
    /// plays, and log10 of the filter's leak (the output's power over that estimate, tracked).
    let estimateBand: UnsafeMutablePointer<Float>
    let leakLog: UnsafeMutablePointer<Float>
    /// Per bin, smoothed over frames: reference power and the residual-reference cross spectrum.
    let crossXX: UnsafeMutablePointer<Float>
    let crossRe: UnsafeMutablePointer<Float>
    let crossIm: UnsafeMutablePointer<Float>
    /// Per band: the residual power the reference explains linearly (this frame's sum over the smoothed
    /// bins), and the residual power smoothed the same way; their ratio is the coherent share.
    let explainedBand: UnsafeMutablePointer<Float>
    let smoothedResidualBand: UnsafeMutablePointer<Float>
    let noise: UnsafeMutablePointer<Float>
    /// Per band, the canceller output's floor over the last `roomFloorMilliseconds` (`BandNoiseFloor`).
    let roomFloor: BandNoiseFloor
    let gain: UnsafeMutablePointer<Float>
    let residualBand: UnsafeMutablePointer<Float>
    let referenceBand: UnsafeMutablePointer<Float>
    let echoBand: UnsafeMutablePointer<Float>
    /// Per band, Ê with the onset coupling wherever the band is in its onset, whoever talks.
    let onsetEchoBand: UnsafeMutablePointer<Float>
    let detectorEchoBand: UnsafeMutablePointer<Float>
    let speechBands: Range<Int>
    let decay: Float
    let tailFrames: Int
    var frameIndex = 0
    var farEndHold = 0
    /// The loudest speech-band output of the frames the talkerDetector detector counted in the current pause of
    /// the far end, while its verdict lasts.
    var pauseTalkerPeak: Float = 0
    var talkerDetector: NearEndDetector
    /// The published verdicts, from the near-end speech detector's bands.
    let verdicts: NearEndVerdicts
    /// Frames of far-end sound the talkerDetector detector must have heard nobody in before gains recover
    /// slowly (`Int.max`: never), and how many such frames have passed.
    let quietTalkerFrames: Int
    var framesWithoutTalker = 0
    /// Frames since the last published verdict (either), and for how many frames after one the
    /// suppression eases for the talkerDetector detector over a steady far end (`Int.max`: always).
    var framesSinceVerdict = Int.max / 2
    let steadyFarEndTalkerFrames: Int
    var easesForTalker = false
    /// Per band, log10 of the linear filter's worst recent leak over music (`musicLeak`).
    let musicLeakLog: UnsafeMutablePointer<Float>
    /// Per band, the previous frame's mic and canceller-output power and the filter's echo estimate (the
    /// lost-echo hold compares their rises).
    let previousMicBand: UnsafeMutablePointer<Float>
    let previousResidualBand: UnsafeMutablePointer<Float>
    let previousEstimateBand: UnsafeMutablePointer<Float>

    /// The last frame's verdict.
    private(set) var activity = NearEndActivity()
    /// The suppression eased for a talker in the last frame: the talkerDetector detector heard one and, over a steady
    /// far end (music), a verdict was published within `steadyFarEndTalkerMilliseconds`. The talkerDetector detector
    /// fires more often than the published verdict, also on echo the filter loses over music.
    var hearsTalker: Bool { easesForTalker }
    /// The last frame's far end and easing, for diagnostics.
    var state: SuppressionState {
        SuppressionState(
            farEndActive: activity.farEndActive, farEndSteady: verdicts.farEndIsSteady,
            easedForTalker: easesForTalker)
    }

    /// `rules`: the rules in force (all of them in the product; tests and benchmark tools compare against
    /// each switched off).
    init(frameSize: Int, sampleRate: Int, tailSamples: Int, rules: Rules = .all) {
        self.frameSize = frameSize
        self.rules = rules
        quietTalkerFrames =
            rules.contains(.recoversSlowlyWithoutTalker)
            ? (Tuning.quietTalkerMilliseconds * sampleRate / 1000 + frameSize - 1) / frameSize : .max
        steadyFarEndTalkerFrames =
            rules.contains(.easesOverSteadyFarEndOnlyForAHeardTalker)
            ? (Tuning.steadyFarEndTalkerMilliseconds * sampleRate / 1000 + frameSize - 1) / frameSize : .max
        windowLength = 2 * frameSize
        var size = 2
        while size < windowLength { size <<= 1 }
        fft = StagedFFT(size: size)
        let bins = size / 2 + 1, bands = Self.bandCount
        window = buffers.floats(windowLength)
        for i in 0..<windowLength {
            window[i] = sqrtf(0.5 - 0.5 * cosf(2 * Float.pi * (Float(i) + 0.5) / Float(windowLength)))
        }
        residualHistory = buffers.floats(windowLength)
        referenceHistory = buffers.floats(windowLength)
        overlap = buffers.floats(frameSize)
        spectrumRe = buffers.floats(bins)
        spectrumIm = buffers.floats(bins)
        bandOfBin = buffers.take(bins, 0)
        let nyquist = Float(sampleRate) / 2
        for k in 0..<bins {
            let f = Float(k) * Float(sampleRate) / Float(size)
            var b = 0
            while b < bands - 1 && f >= Self.bandEdge(b + 1, nyquist: nyquist) { b += 1 }
            bandOfBin[k] = Int32(b)
        }
        var first = 0, last = 0
        while first < bands - 1 && Self.bandEdge(first, nyquist: nyquist) < Tuning.speechBandLow { first += 1 }
        while last < bands && Self.bandEdge(last, nyquist: nyquist) < Tuning.speechBandHigh { last += 1 }
        speechBands = max(0, first - 1)..<max(first, last)
        referenceFrames = buffers.floats(Self.historyFrames * bands)
        envelope = buffers.floats(bands)
        coupling = buffers.floats(bands, Tuning.initialCoupling)
        detectorCoupling = buffers.floats(bands, Tuning.initialCoupling)
        micCoupling = buffers.floats(bands, Tuning.initialCoupling)
        onsetCoupling = buffers.floats(bands, Tuning.initialCoupling)
        silentFrames = buffers.take(bands, 0)
        onsetFramesLeft = buffers.take(bands, 0)
        micBand = buffers.floats(bands)
        previousMicBand = buffers.floats(bands)
        previousResidualBand = buffers.floats(bands)
        previousEstimateBand = buffers.floats(bands)
        micHistory = buffers.floats(windowLength)
        micSpectrum = RealSpectrum(size: size)
        estimateBand = buffers.floats(bands)
        leakLog = buffers.floats(bands, log10f(Tuning.initialLeak))
        musicLeakLog = buffers.floats(bands, log10f(Tuning.maxLeak))
        crossXX = buffers.floats(bins)
        crossRe = buffers.floats(bins)
        crossIm = buffers.floats(bins)
        explainedBand = buffers.floats(bands)
        smoothedResidualBand = buffers.floats(bands)
        noise = buffers.floats(bands, Tuning.initialNoise)
        gain = buffers.floats(bands, 1)
        residualBand = buffers.floats(bands)
        referenceBand = buffers.floats(bands)
        echoBand = buffers.floats(bands)
        onsetEchoBand = buffers.floats(bands)
        detectorEchoBand = buffers.floats(bands)
        // Parseval: the quiet-band RMS under the window, spread over the bands.
        quietBand = Tuning.quietBandRMS * Tuning.quietBandRMS * Float(windowLength) / 2 * Float(size) / 2 / Float(bands)
        let frameMilliseconds = Float(frameSize) * 1000 / Float(sampleRate)
        let subwindow = Float(Tuning.roomFloorMilliseconds) / Float(BandNoiseFloor.subwindowCount)
        roomFloor = BandNoiseFloor(
            bandCount: bands, subwindowFrames: Int((subwindow / frameMilliseconds).rounded()),
            steadyFrames: Int((Float(Tuning.steadySoundMilliseconds) / frameMilliseconds).rounded()),
            steadySpread: Tuning.steadySoundSpread)
        decay = powf(10, -Tuning.envelopeDecayDBPer16ms * frameMilliseconds / 16 / 10)
        tailFrames = max(1, (tailSamples + frameSize - 1) / frameSize)
        let onsetMilliseconds = rules.contains(.onsetCoupling) ? Tuning.onsetMilliseconds : 0
        onsetFrames = (onsetMilliseconds * sampleRate / 1000 + frameSize - 1) / frameSize
        let hangover = Int((NearEnd.hangoverMilliseconds / frameMilliseconds).rounded())
        let detectorOnset = Int((NearEnd.onsetMilliseconds / frameMilliseconds).rounded())
        talkerDetector = NearEndDetector(
            margin: NearEnd.talkerMargin, bandFraction: NearEnd.talkerBandFraction,
            onsetFrames: detectorOnset, hangoverFrames: hangover)
        verdicts = NearEndVerdicts(
            windowLength: windowLength, sampleRate: sampleRate, frameMilliseconds: frameMilliseconds,
            onsetFrames: detectorOnset, hangoverFrames: hangover)
    }

    /// Lower edge of band `b` in Hz: 125 Hz steps to 1 kHz, then 16 bands per three octaves.
    static func bandEdge(_ b: Int, nyquist: Float) -> Float {
        b <= 8 ? Float(b) * 125 : min(nyquist, 1000 * powf(8, Float(b - 8) / 16))
    }

    /// `residual`: the canceller's output (frameSize samples), replaced by the suppressed signal of the
    /// previous call's frame. `reference` and `mic`: the aligned reference and the canceller's mic input
    /// of the same frame.
    func process(
        _ residual: UnsafeMutableBufferPointer<Int16>, reference: UnsafeBufferPointer<Int16>,
        mic: UnsafeBufferPointer<Int16>
    ) {
        let h = frameSize, w = windowLength, n = fft.size, bands = Self.bandCount
        var referencePower: Float = 0
        var micPeak: Int16 = 0
        for i in 0..<h {
            micPeak = max(micPeak, mic[i] == .min ? .max : abs(mic[i]))
            residualHistory[i] = residualHistory[h + i]
            referenceHistory[i] = referenceHistory[h + i]
            micHistory[i] = micHistory[h + i]
            let r = Float(reference[i])
            residualHistory[h + i] = Float(residual[i])
            referenceHistory[h + i] = r
            micHistory[h + i] = Float(mic[i])
            referencePower += r * r
        }
        // The far end plays (held over the echo tail).
        let farEndWasActive = farEndHold > 0
        farEndHold = referencePower / Float(h) > EchoControlTuning.farEndPower ? tailFrames : max(0, farEndHold - 1)
        let farEndActive = farEndHold > 0
        farEndOnsetLeft = farEndActive && !farEndWasActive ? onsetFrames : max(0, farEndOnsetLeft - 1)
        verdicts.farEndFrame(power: referencePower / Float(h), active: farEndActive)

        // The mic's band powers, read only while the far end plays.
        if farEndActive {
            for b in 0..<bands { micBand[b] = 0 }
            for i in 0..<w { micSpectrum.input[i] = micHistory[i] * window[i] }
            micSpectrum.compute()
            for k in 0...n / 2 { micBand[Int(bandOfBin[k])] += micSpectrum.power[k] }
        }

        // One complex FFT of E + iX.
        let re = fft.re, im = fft.im
        for i in 0..<w {
            re[i] = residualHistory[i] * window[i]
            im[i] = referenceHistory[i] * window[i]
        }
        for i in w..<n {
            re[i] = 0
            im[i] = 0
        }
        transform(inverse: false)
        for b in 0..<bands {
            residualBand[b] = 0
            referenceBand[b] = 0
            explainedBand[b] = 0
            estimateBand[b] = 0
        }
        let keep = Tuning.coherenceSmoothing
        for k in 0...n / 2 {
            let j = (n - k) & (n - 1)
            let a = re[k], bi = im[k], c = re[j], d = im[j]
            let er = 0.5 * (a + c), ei = 0.5 * (bi - d)
            let xr = 0.5 * (bi + d), xi = 0.5 * (c - a)
            spectrumRe[k] = er
            spectrumIm[k] = ei
            let band = Int(bandOfBin[k])
            residualBand[band] += er * er + ei * ei
            if farEndActive {
                let dr = micSpectrum.re[k] - er, di = micSpectrum.im[k] - ei
                estimateBand[band] += dr * dr + di * di
            }
            referenceBand[band] += xr * xr + xi * xi
            crossXX[k] = keep * crossXX[k] + (1 - keep) * (xr * xr + xi * xi)
            crossRe[k] = keep * crossRe[k] + (1 - keep) * (er * xr + ei * xi)
            crossIm[k] = keep * crossIm[k] + (1 - keep) * (ei * xr - er * xi)
            explainedBand[band] += (crossRe[k] * crossRe[k] + crossIm[k] * crossIm[k]) / (crossXX[k] + 1e-3)
        }
        for b in 0..<bands { smoothedResidualBand[b] = keep * smoothedResidualBand[b] + (1 - keep) * residualBand[b] }
        // Digital silence (a muted or restarting input) says nothing about the room, nor does the first
        // frame, whose window is half empty.
        if micPeak > 1 && frameIndex > 0 { roomFloor.update(residualBand) }

        let slot = (frameIndex % Self.historyFrames) * bands
        frameIndex &+= 1
        let talking = talkerDetector.speech
        for b in 0..<bands {
            referenceFrames[slot + b] = referenceBand[b]
            var loudest: Float = 0
            for f in 0..<Self.historyFrames { loudest = max(loudest, referenceFrames[f * bands + b]) }
            envelope[b] = max(loudest, envelope[b] * decay)
            let e = residualBand[b]
            noise[b] = e < noise[b] ? Tuning.noiseKeep * noise[b] + Tuning.noiseTake * e : noise[b] * Tuning.noiseRise
            if referenceBand[b] < Tuning.silentBandShare * quietBand {
                silentFrames[b] = min(silentFrames[b] + 1, tailFrames)
            } else {
                if silentFrames[b] >= tailFrames { onsetFramesLeft[b] = onsetFrames }
                silentFrames[b] = 0
            }
            let onset = onsetFramesLeft[b] > 0
            if onset { onsetFramesLeft[b] -= 1 }
            // Learn only while this frame's reference is near its envelope: in the tail of a burst the
            // held envelope overstates the echo, and learning there would collapse the coupling before
            // the next burst (whose onset would then look like a talker).
            if farEndActive && envelope[b] > 1e-3 && referenceBand[b] >= Tuning.learnNearEnvelope * envelope[b] {
                let ratio = max(e - noise[b], 0) / (envelope[b] + 1e-3)
                // The detectors' couplings only fall where the mic stands above its echo in the band's onset,
                // and, as the far end starts, where the band has played nothing for longer than the echo tail.
                let onlyFalls =
                    (onset && micAboveEcho(b, farEndActive: true))
                    || (farEndOnsetLeft > 0 && silentFrames[b] >= tailFrames)
                if onset { onsetCoupling[b] = Self.track(onsetCoupling[b], toward: ratio, talking: talking) }
                coupling[b] = Self.track(coupling[b], toward: min(ratio, Tuning.riseLimit * coupling[b]), talking: talking)
                detectorCoupling[b] = Self.track(
                    detectorCoupling[b], toward: onlyFalls ? min(ratio, detectorCoupling[b]) : ratio,
                    talking: talking)
                let micRatio = micBand[b] / (envelope[b] + 1e-3)
                micCoupling[b] = Self.track(
                    micCoupling[b], toward: onlyFalls ? min(micRatio, micCoupling[b]) : micRatio,
                    talking: talking)
            }
            let leakEcho = rules.contains(.followsLinearEstimate) && farEndActive ? followedLeak(b, output: e, talking: talking) : 0
            onsetEchoBand[b] = max(leakEcho, (onset ? max(coupling[b], onsetCoupling[b]) : coupling[b]) * envelope[b])
            echoBand[b] = easesForTalker ? max(leakEcho, coupling[b] * envelope[b]) : onsetEchoBand[b]
            detectorEchoBand[b] = detectorCoupling[b] * envelope[b]
        }
        if rules.contains(.endsQuietPauseTalkers) && farEndActive && !farEndWasActive && talking {
            var onsetEcho: Float = 0
            for b in speechBands { onsetEcho += onsetEchoBand[b] }
            if Tuning.pauseTalkerMargin * pauseTalkerPeak < onsetEcho {
                talkerDetector.end()
                for b in 0..<bands { echoBand[b] = onsetEchoBand[b] }
            }
        }

        adoptSteadySound(farEndActive: farEndActive)
        var talkerBandsAbove = 0, speechBandsAbove = 0
        var speechEnergy: Float = 0, predicted: Float = 0
        for b in speechBands {
            speechEnergy += residualBand[b]
            predicted += expectedBand(b)
            if residualBand[b] > talkerDetector.margin * (Tuning.detectorOver * echoBand[b] + noiseFloor(b)) { talkerBandsAbove += 1 }
            if countsForSpeech(b, farEndActive: farEndActive) { speechBandsAbove += 1 }
        }
        let heard = talkerDetector.update(bandsAbove: talkerBandsAbove, bandCount: speechBands.count)
        let nobodyHeardOverMusic = farEndActive && verdicts.farEndIsSteady && framesSinceVerdict >= steadyFarEndTalkerFrames
        let near = heard && !nobodyHeardOverMusic
        easesForTalker = near
        if farEndActive || !near {
            pauseTalkerPeak = 0
        } else if talkerDetector.counted {
            pauseTalkerPeak = max(pauseTalkerPeak, speechEnergy)
        }

        if near {
            framesWithoutTalker = 0
        } else if farEndActive {
            framesWithoutTalker = min(framesWithoutTalker + 1, quietTalkerFrames)
        }
        let over = near ? Tuning.overWhileNearEnd : Tuning.over
        let mayHold = rules.contains(.holdsLostEcho) && farEndActive && !near
        let slowly = farEndActive && framesWithoutTalker >= quietTalkerFrames
        for b in 0..<bands {
            let echo =
                rules.contains(.followsMusicLeak) && nobodyHeardOverMusic && estimateBand[b] > quietBand
                ? max(echoBand[b], musicLeak(b, output: residualBand[b], talking: heard)) : echoBand[b]
            let g = Self.gain(output: residualBand[b], echo: echo, over: over)
            let micAboveItsEcho = micAboveEcho(b, farEndActive: farEndActive)
            if g < gain[b] || (near && g == 1 && micAboveItsEcho && rules.contains(.talkerBandsRecoverAtOnce)) {
                gain[b] = g
            } else if !mayHold || micAboveItsEcho
                || micBand[b] - previousMicBand[b] >= residualBand[b] - previousResidualBand[b]
                    + Tuning.echoRiseMargin * max(0, estimateBand[b] - previousEstimateBand[b])
            {
                let halfway = 0.5 * (gain[b] + g)
                gain[b] = slowly ? min(halfway, Tuning.slowRise * gain[b]) : halfway
            }
            previousMicBand[b] = micBand[b]
            previousResidualBand[b] = residualBand[b]
            previousEstimateBand[b] = estimateBand[b]
        }
        for k in 0...n / 2 {
            let g = gain[Int(bandOfBin[k])]
            re[k] = spectrumRe[k] * g
            im[k] = spectrumIm[k] * g
        }
        for k in 1..<n / 2 {
            re[n - k] = re[k]
            im[n - k] = -im[k]
        }
        transform(inverse: true)
        let scale = 1 / Float(n)
        for i in 0..<h {
            let v = overlap[i] + re[i] * scale * window[i]
            overlap[i] = re[h + i] * scale * window[h + i]
            residual[i] = Int16(max(-32768, min(32767, v.rounded())))
        }

        let (speech, possible) = verdicts.update(
            speechBandsAbove: speechBandsAbove, bandCount: speechBands.count,
            speechEnergy: speechEnergy, predicted: predicted,
            farEndActive: farEndActive, output: re, reference: referenceHistory,
            window: window)
        framesSinceVerdict = speech || possible ? 0 : min(framesSinceVerdict + 1, Int.max / 2)
        activity = NearEndActivity(
            farEndActive: farEndActive, nearEndSpeech: speech, possibleNearEndSpeech: possible || speech,
            nearToEchoDB: 10 * log10f((speechEnergy + 1) / (predicted + 1)))
    }

    /// Back to the state of a new instance (nothing learnt: couplings high, floors empty, nobody heard), in
    /// place: realtime-safe. For a suppressor that missed more far-end sound than it will be shown again
    /// (`CaptureChain.track`): what it last learnt may fit neither the room nor what plays now.
    func reset() {
        let bands = Self.bandCount, bins = fft.size / 2 + 1
        for i in 0..<windowLength {
            residualHistory[i] = 0
            referenceHistory[i] = 0
            micHistory[i] = 0
        }
        for i in 0..<frameSize { overlap[i] = 0 }
        for i in 0..<Self.historyFrames * bands { referenceFrames[i] = 0 }
        for b in 0..<bands {
            envelope[b] = 0
            coupling[b] = Tuning.initialCoupling
            detectorCoupling[b] = Tuning.initialCoupling
            micCoupling[b] = Tuning.initialCoupling
            onsetCoupling[b] = Tuning.initialCoupling
            silentFrames[b] = 0
            onsetFramesLeft[b] = 0
            micBand[b] = 0
            previousMicBand[b] = 0
            previousResidualBand[b] = 0
            previousEstimateBand[b] = 0
            estimateBand[b] = 0
            leakLog[b] = log10f(Tuning.initialLeak)
            musicLeakLog[b] = log10f(Tuning.maxLeak)
            explainedBand[b] = 0
            smoothedResidualBand[b] = 0
            noise[b] = Tuning.initialNoise
            gain[b] = 1
            residualBand[b] = 0
            referenceBand[b] = 0
            echoBand[b] = 0
            onsetEchoBand[b] = 0
            detectorEchoBand[b] = 0
        }
        for k in 0..<bins {
            crossXX[k] = 0
            crossRe[k] = 0
            crossIm[k] = 0
        }
        roomFloor.reset()
        verdicts.reset()
        talkerDetector.reset()
        farEndOnsetLeft = 0
        frameIndex = 0
        farEndHold = 0
        pauseTalkerPeak = 0
        framesWithoutTalker = 0
        framesSinceVerdict = Int.max / 2
        easesForTalker = false
        activity = NearEndActivity()
    }

    /// `frames` frames of far-end sound went by unseen (between conversations, `CaptureChain.track`): as
    /// far as its clocks of who was heard go, nobody was, so gains recover slowly and music is not eased for
    /// a talker as if it had heard those frames.
    func missed(frames: Int) {
        framesWithoutTalker = min(framesWithoutTalker + frames, quietTalkerFrames)
        framesSinceVerdict = min(framesSinceVerdict + frames, Int.max / 2)
    }

    /// From the next frame on the reference comes `factor` times louder (amplitude; the chain's
    /// `ReferenceLevelMatcher`): what is held of it, and every coupling to it, follows, so the predicted
    /// echo does not jump.
    func rescaleReference(by factor: Float) {
        let power = factor * factor, bands = Self.bandCount
        for i in 0..<windowLength { referenceHistory[i] *= factor }
        for i in 0..<Self.historyFrames * bands { referenceFrames[i] *= power }
        for b in 0..<bands {
            envelope[b] *= power
            coupling[b] /= power
            detectorCoupling[b] /= power
            micCoupling[b] /= power
            onsetCoupling[b] /= power
        }
        for k in 0...fft.size / 2 {
            crossXX[k] *= power
            crossRe[k] *= factor
            crossIm[k] *= factor
        }
    }
}
