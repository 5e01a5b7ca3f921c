import Glibc

/// Removes, per band, the echo the linear canceller leaves behind (a small loudspeaker's distortion, a
/// filter that is still converging), and decides whether the near end talks. Runs between the echo
/// canceller and the preprocessor.
///
/// Short-time spectra (sqrt-Hann window of two frames, hop one frame) of the canceller's output E and
/// of the aligned reference X, in 24 bands (125 Hz wide below 1 kHz, log-spaced above). Per band:
/// - reference envelope X̂: the loudest of the last 8 frames (the echo sits up to ~130 ms into the
///   filter), held with a decay of 3.2 dB per 16 ms (the room's tail);
/// - residual coupling G = (E − noise) / X̂, tracked while the far end plays: falls fast, rises slowly
///   (slower still while the near end talks), only in frames whose reference is within 6 dB of the
///   envelope; starts high (100: 20 dB above an echo as loud as the reference) so a fresh chain
///   suppresses rather than leaks, and falls to the room's value within ~0.7 s of far-end sound;
///   it does not follow the linear filter's state, so it also covers echo the filter cannot model.
///   Two such couplings: the suppression's rises at most `riseLimit` times its value per update, so a
///   talker the detector misses (over loud, non-linear music) is not learnt as echo within a sentence;
///   the detector's is unlimited, so a louder echo (volume up, a device moved) is learnt before it looks
///   like a talker, except in a band's onset (below) where the mic stands above its echo (the mic rule
///   below): there it, and the mic rule's own coupling, only fall. The onset's X̂ is the answer's first,
///   soft sound, so a talker already at the mic made a ratio thousands of times the echo's, and one
///   update raised the couplings by 40-46 dB and hid him (a talker who started with the answer, or 20 ms
///   before it, was heard 0.7-1.3 s late or not at all); the echo's own onset leak does not raise the mic
///   above its echo and is learnt as before. Nor do they rise, in the far end's first `onsetMilliseconds`
///   after silence, in a band that has played nothing for longer than the echo tail: an answer whose
///   first frame played only its low bands, loud, through a distorting loudspeaker filled the others
///   with harmonics over a reference envelope of almost nothing, and that one frame raised their
///   couplings by ~30 dB and hid a talker who started 120 ms later for 0.8-1.5 s (the end-to-end onset
///   test on a loaded machine). Once the far end plays on, such bands learn as before: over music that
///   leaves a band silent, the harmonics other bands put there are echo (Benchmarks/aec-real's
///   ReSpeaker music 1 paused the assistant 2 and 3 times, cold and warm, when they were not learnt);
/// - onset coupling: a third coupling, for the suppression only, learnt and used in a band's first
///   `onsetMilliseconds` after its reference comes back from more than an echo tail of silence, unless
///   the near end talks (the onset compensation of WebRTC AEC3's ERLE estimator). The linear filter
///   leaves more of the echo at such an onset than in the steady state (the start of every answer after
///   a pause), and the steady coupling, learnt in the steady state, let it through. A talker the
///   lenient detector heard in a pause of the far end keeps it off only if he was no more than 6 dB
///   under the echo it predicts for the onset (`pauseTalkerMargin`); otherwise his verdict ends when the
///   far end comes back. A soft sound in a pause (the phone at 9.1 s, −58 dBFS at the output) held the
///   verdict over the onset for its 200 ms hangover, and the onset's echo passed;
/// - leak floor: Ê is at least a share of the linear filter's own echo estimate D (per band, the power of
///   mic − canceller output, which follows the echo frame by frame where the held reference envelope
///   does not: a room or a loudspeaker whose coupling changes, a filter re-converging after a realignment):
///   the share is `leakMargin` times the filter's tracked leak (E / D while the lenient detector hears
///   nobody, in log10, falling fast and rising slowly, so it follows the filter's better moments), at most
///   `maxLeak`. Where those moments take 40 dB off the echo the floor sits ~34 dB under it and a talker 12
///   dB under the echo keeps his bands; where they take 16 dB or less (the phone, the ReSpeaker's music1)
///   the floor is a tenth of D;
/// - predicted residual echo Ê = G X̂, at least the leak floor; power subtraction with overestimation β = 3
///   (1.5 while the near end talks): gain √(1 − β Ê / E), floored; a band whose output is more than twice β Ê
///   is the near end's and passes untouched (`gain(output:echo:over:)`); gains fall at once and recover
///   half-way per frame, except that while the lenient detector hears a talker, a band he dominates (it
///   passes untouched and the mic stands above its echo there, the mic rule below) gets its whole gain back
///   at once: in double talk the echo's loud moments keep pulling a talker's bands down, and the half-way
///   steps back cost him more than the moments that pulled them (Benchmarks/aec-real, an instrumented build
///   weighting each band's gain by the added near end: 36-69 % of the near end the suppressor took from the
///   double-talk mixes was in frames where his band already passed untouched);
/// - slow recovery while only the far end has played for a while: once the lenient detector has heard
///   nobody for `quietTalkerMilliseconds` while the far end plays, a band's gain rises at most
///   `slowRise` times per frame (from the floor to untouched in ~110 ms instead of ~50 ms). In a long
///   stretch of the assistant's speech or music the echo's loud moments no longer reopen every band
///   half-way per frame; a talker makes the lenient detector fire at least now and then within his
///   utterance, so only the first words after such a stretch recover slowly (Benchmarks/aec-real, an
///   instrumented build with a perfect near-end flag: the same slow rise cost the double-talk mixes
///   nothing);
/// - over music only for a talker a verdict heard: while the far end plays on without speech's gaps
///   (`SpeechLikeFarEnd.isSteady`), the suppression eases for the lenient detector (β, the recoveries, the
///   hold below, speexdsp's suppression) only within `steadyFarEndTalkerMilliseconds` of a published verdict:
///   the residual of music swings into the lenient count about every other frame, and the couplings still
///   learn as the lenient detector says, so a talker it hears is not learnt as echo. Until a verdict, the
///   gains also take at least the filter's echo estimate times its worst recent leak as the echo
///   (`musicLeak`);
/// - lost-echo hold: while the far end plays and the lenient detector hears nobody, a band's gain does
///   not rise when the canceller's output rose more than the mic did since the last frame, beyond
///   `echoRiseMargin` times the rise of the linear filter's echo estimate D, unless the mic stands above
///   its echo there (the mic rule below). A sound in the room adds the same power to the mic as to the
///   output and leaves D alone; echo the linear filter loses for a moment (an adapted filter loses a
///   loudspeaker's echo in bursts) raises only the output, or, when the far end swells, raises the mic
///   by the echo's rise, which D's rise shows. Passed untouched, such bursts were most of what the chain
///   left on the real recordings (Benchmarks/aec-real/residual_spread.py, before the hold: 15 of 2192
///   far-end-only 10 ms hops held half of challenge-0woDOj's residual, 2 of 1477 the phone's).
/// Debounced detectors compare E in the speech bands (300 Hz–4 kHz) with 4 Ê plus a floor: a lenient
/// one (suppression's Ê, floor 2 noise, noise falling fast and rising 2.7 dB/s) switches β; a strict one
/// (the detector's Ê, margin 4, 32 ms onset) is the published near-end verdict (`activity`), which the
/// barge-in rule trusts. The strict one's floor is the room floor, the minimum of E's smoothed power over
/// the last 1.5 s (`BandNoiseFloor`): a steady sound is nobody talking. With the slow noise estimate, a
/// fan or an extractor hood running when the chain starts took it some 20 s to learn (on DMTgmZ it rose
/// from -95 to -66 dBFS in 10.7 s), and in every pause of the far end the noise stood above the floor
/// as a talker would (Benchmarks/aec-real with band-passed or pink noise at -36 to -50 dBFS added to the
/// phone and the far-end recording, room_noise.py: 35 stops cold, 48 warm; with the room floor 1 cold,
/// a server turn the added talker confirmed). The lenient one keeps the slow estimate: the room floor
/// also takes in the residual a continuous far end (music) never stops leaving, and the suppression's
/// near end in double talk depends on the lenient one hearing a talker over it. A band counts for the strict
/// one only when two more things hold while the far end plays, because an adapted linear filter loses
/// and regains a loudspeaker's echo in bursts (Benchmarks/aec-real --warm, the ReSpeaker music), and
/// such a burst stands above Ê as a talker would:
/// - the part of E the reference does not explain linearly is above it (per band, E times 1 − the
///   coherent share Σ|S_ex|²/S_xx ÷ Σ S_ee, spectra smoothed over ~45 ms): the echo the filter lost is
///   the reference's own sound, coherent with it, while a talker is not (the coherence test of WebRTC's
///   earlier echo suppressor);
/// - the mic itself is louder than its echo: more than `micMargin` times the mic coupling (mic power
///   over X̂, tracked like the detector's coupling but without the noise subtracted) times X̂, plus the
///   room floor. A talker
///   adds sound at the mic; a filter that loses the echo of distorted sound, which coherence does not
///   catch, changes only E, never the mic.
/// When a verdict may start (voicing, the far end's rhythm, the pitch rules) is `NearEndVerdicts`'s.
/// Benchmarks/aec-real, every recording in the cache, cold and warm, with the reference as recorded (not
/// raised): no verdict begins while only the far end plays. Margin 5 without the mic rule
/// did the same but missed talkers over music that margin 4 catches (one more cold, two more warm);
/// margin 4 without the mic rule stopped the warm music 2 once; mic margins 3, 5 and 8 give the same
/// verdicts, 2 gives that stop back. With the ReSpeaker's reference raised 8× its canceller works, and
/// sound that reference does not carry stands above what is left: music 2 at 18.32 s (a voice-like sound
/// in the room) and, warm, the music 1 mix at 3.33 s (Benchmarks/aec-real/JOURNAL.md).
///
/// The output is one frame late (overlap-add). Allocation-free after init; realtime-safe. One thread.
final class ResidualEchoSuppressor {
    static let bandCount = 24
    static let historyFrames = 8
    static let over: Float = 3
    static let overWhileNearEnd: Float = 1.5
    /// A band whose output exceeds the overestimated echo this many times passes untouched.
    static let keepAbove: Float = 2
    static let floorGain: Float = 0.01
    /// The detectors' echo overestimation (their margins apply on top).
    static let detectorOver: Float = 4
    static let initialCoupling: Float = 100
    static let couplingRise: Float = 0.02
    static let couplingFall: Float = 0.1
    /// The suppression's coupling rises at most to this many times its value per update.
    static let riseLimit: Float = 8
    /// How long a band's onset coupling applies after its reference comes back from silence. Measured on
    /// Benchmarks/aec-real --warm: 128 and 256 ms remove the same onset leaks (farend 15.9 -> 26.9 and
    /// 26.2 dB; 128 ms raised raw Silero starts on music 2 from 4 to 7), 384 ms less (20.6 dB) and cost
    /// farend's near end 0.2-0.4 dB.
    static let onsetMilliseconds = 256
    /// How long the lenient detector must have heard nobody while the far end plays before gains recover
    /// slowly, and how much a gain may then rise per frame. Benchmarks/aec-real, temporary builds: after
    /// 1 s music 2's near end in double talk lost 0.7 dB more, after 2 s 0.2, after 3 s 0.1; rising 3
    /// times per frame instead of 2 removed 0.9-2.6 dB less echo.
    static let quietTalkerMilliseconds = 3000
    /// A talker heard in a pause of the far end keeps the onset coupling off in the onset that follows
    /// only if he was no more than this many times (6 dB) under the echo it predicts there.
    /// Benchmarks/aec-real: the phone's echo reduction 30.4 -> 31.8 dB cold, 32.5 -> 41.3 warm, every
    /// other recording, the near end in double talk and the detector's verdicts unchanged. It costs the
    /// simulated kitchen (Benchmarks/aec), whose talker 12 dB under the echo talks through the far end's
    /// onsets, 0.2 dB of near end with the reference 150 ms late (-0.7 -> -0.9). 8 (9 dB) did the same;
    /// 16 (12 dB) spared the kitchen but not the warm phone (32.5); 1 (0 dB) cost music 1's near end
    /// 0.08 dB cold.
    static let pauseTalkerMargin: Float = 4
    /// The room floor's window (`BandNoiseFloor`): Martin's 1.5 s.
    static let roomFloorMilliseconds = 1536
    /// A band whose smoothed power has held within `steadySoundSpread` (3 dB) for `steadySoundMilliseconds` is
    /// steady; where at least `steadySoundBands` of the bands the strict detector counts are, and at least half
    /// of them, the sound is the room's (`adoptSteadySound`). Benchmarks/aec-real (room_noise.py's motors, a
    /// 230 Hz hum with harmonics over a fan's rush, switched on while the far end plays): without it they stop
    /// the assistant 2 times cold and 2 warm (7 and 9 counted within the 800 ms echo guard), with it 0; every real
    /// talker's first verdict the same, cold and warm. Offline, the counted bands had held within 3 dB for
    /// 192 ms in 94-100 % of the motors' verdict frames and in 0-4 % of the real talkers', never for more than
    /// 5 frames in a row. One band enough: the kettle's pauses 6 -> 0, but a talker's steady low bands, once the
    /// answer had paused for him, were the room's and his stop for good came 300-416 ms later at 3 of
    /// Benchmarks/aec/sweep_pairings.sh's 1160 starts (2 bands: 1 start).
    static let steadySoundMilliseconds = 192
    static let steadySoundSpread: Float = 2
    static let steadySoundBands = 3
    static let slowRise: Float = 2
    /// Over a steady far end (music: `SpeechLikeFarEnd.isSteady`), the suppression eases for the lenient
    /// detector only this long after a published verdict (strict or looser), and until then its gains take at
    /// least the linear filter's echo estimate times its worst recent leak as the echo (`musicLeak`). Music's
    /// residual swings 7-26 dB from moment to moment, unpredictable from the reference, and into the lenient
    /// count in about half its frames (47 % of the ReSpeaker's music 2), so eased there the suppressor took
    /// nothing off it in the steady state, and the couplings, which follow its quieter moments, let the swings
    /// through. A talker the verdict has heard keeps the lenient detector through the pauses between his
    /// phrases; the couplings still learn as the lenient detector says, and the detectors count against them,
    /// not against the music leak. Benchmarks/aec-real (chain column, cold / warm): music 1 18.7 ->
    /// 20.0 / 16.8 -> 17.6 dB, music 2 14.4 -> 20.5 / 14.2 -> 20.3 (AEC3 15.3 / 26.8 and 16.9 / 24.7); near end
    /// on their double-talk mixes -0.63 -> -0.68 and -0.62 -> -0.68 cold, -0.45 -> -0.50 and -0.55 -> -0.63
    /// warm; every verdict the same; every speech recording's output the same bit for bit. Measured and not
    /// kept (`Benchmarks/aec-real/JOURNAL.md`, "Music: the suppression eases only for a talker a verdict
    /// heard"): 1 or 2 s (the mixes' near end -1.05 to -1.19 dB);
    /// the lenient verdict itself ended (the couplings learnt the talker: music 1's mix -4.0 dB warm); a larger
    /// over-subtraction; the music leak in the detectors' prediction too (a voice right after a burst of lost
    /// echo went unheard) or learnt in every frame (music 1's mix -15.3 dB warm); music taken as the window
    /// held closed rather than the window now (music 1 24.7 / 20.2 dB, but a real double-talk recording's
    /// talker 1.8 dB quieter).
    static let steadyFarEndTalkerMilliseconds = 3000
    /// The music leak's tracking per frame, in log10: rising half-way, falling 0.02 of the way.
    static let musicLeakRise: Float = 0.5
    static let musicLeakFall: Float = 0.02
    /// The lost-echo hold lets a band's gain rise only when the mic rose by the output's rise plus this many
    /// times the rise of the filter's echo estimate. Benchmarks/aec-real --warm: without the estimate's rise
    /// the far end's swells released the hold (challenge-farend 30.6 dB, two bursts at 1.16 and 1.6 s held
    /// 70 % of the residual); 1× gives 32.0 dB, 2× 33.7 (AEC3 32.6) for 0.04 dB of the near end in double
    /// talk.
    static let echoRiseMargin: Float = 2
    /// The mic must be this many times louder than the echo the mic coupling predicts for a talker (6 dB).
    static let micMargin: Float = 4
    /// The leak floor: per update, how far the tracked leak (in log10) moves toward a frame's when that is
    /// lower and when it is higher (falls fast, rises a tenth as fast: it follows the filter's better
    /// moments, so a talker the lenient detector misses raises it slowly); the floor's margin over it (6 dB)
    /// and its ceiling (−10 dB: a filter that removes less is covered by the couplings); and where it starts
    /// (−20 dB, so a fresh floor is 14 dB under the estimate). Benchmarks/aec-real and Benchmarks/aec,
    /// temporary builds: a margin of 10 dB cost the simulated kitchen's talker 0.2-0.4 dB in double talk (6
    /// dB: 0-0.2) for 0.1-0.4 dB more on music; rising a twentieth as fast left the kitchen with lag and
    /// drift at 48 dB after convergence instead of 74; at the same rate both ways (margin 10 dB) the leak
    /// learnt that talker (-1.4 to -3.1 dB); a margin of 16-20 dB with no ceiling brought the warm music no
    /// closer to AEC3 than 5-8 dB and cost their near end 0.7-1.8 dB.
    static let leakFall: Float = 0.05
    static let leakRise: Float = 0.005
    static let leakMargin: Float = 4
    static let maxLeak: Float = 0.1
    static let initialLeak: Float = 0.01
    /// Per-frame smoothing of the residual-reference cross spectra (time constant ~45 ms).
    static let coherenceSmoothing: Float = 0.7
    /// Band energy below which nothing counts as speech (a band's share of about -58 dBFS RMS). At -65 dBFS
    /// a soft room sound in a pause of the assistant's speech (5-8 dB above a phone's noise floor) was
    /// taken for a talker and confirmed the server's echo turn that followed; -60 dBFS is the lowest level
    /// at which none of the real recordings does that (Benchmarks/aec-real).
    let quietBand: Float

    let frameSize: Int
    private let windowLength: Int
    private let fft: StagedFFT
    private let window: UnsafeMutablePointer<Float>
    private let residualHistory: UnsafeMutablePointer<Float>
    private let referenceHistory: UnsafeMutablePointer<Float>
    private let overlap: UnsafeMutablePointer<Float>
    private let spectrumRe: UnsafeMutablePointer<Float>
    private let spectrumIm: UnsafeMutablePointer<Float>
    private let bandOfBin: UnsafeMutablePointer<Int32>
    /// Per band: reference power of the last `historyFrames` frames (ring), envelope, coupling, noise, gain.
    private let referenceFrames: UnsafeMutablePointer<Float>
    private let envelope: UnsafeMutablePointer<Float>
    private let coupling: UnsafeMutablePointer<Float>
    private let detectorCoupling: UnsafeMutablePointer<Float>
    /// Per band: the mic's power over the reference envelope (the echo path as the mic hears it), and this
    /// frame's mic power.
    private let micCoupling: UnsafeMutablePointer<Float>
    /// Per band: the onset coupling, frames the band's reference has been silent, frames of onset left.
    private let onsetCoupling: UnsafeMutablePointer<Float>
    private let silentFrames: UnsafeMutablePointer<Int>
    private let onsetFramesLeft: UnsafeMutablePointer<Int>
    /// Frames left of the far end's onset (`onsetFrames` after it comes back from silence).
    private var farEndOnsetLeft = 0
    private let onsetFrames: Int
    private let micBand: UnsafeMutablePointer<Float>
    private let micHistory: UnsafeMutablePointer<Float>
    private let micSpectrum: RealSpectrum
    /// Per band: the linear filter's echo estimate (the power of mic − canceller output) while the far end
    /// plays, and log10 of the filter's leak (the output's power over that estimate, tracked).
    private let estimateBand: UnsafeMutablePointer<Float>
    private let leakLog: UnsafeMutablePointer<Float>
    private let followsLinearEstimate: Bool
    /// Per bin, smoothed over frames: reference power and the residual-reference cross spectrum.
    private let crossXX: UnsafeMutablePointer<Float>
    private let crossRe: UnsafeMutablePointer<Float>
    private let crossIm: UnsafeMutablePointer<Float>
    /// Per band: the residual power the reference explains linearly (this frame's sum over the smoothed
    /// bins), and the residual power smoothed the same way; their ratio is the coherent share.
    private let explainedBand: UnsafeMutablePointer<Float>
    private let smoothedResidualBand: UnsafeMutablePointer<Float>
    private let noise: UnsafeMutablePointer<Float>
    /// Per band, the canceller output's floor over the last `roomFloorMilliseconds` (`BandNoiseFloor`).
    private let roomFloor: BandNoiseFloor
    private let gain: UnsafeMutablePointer<Float>
    private let residualBand: UnsafeMutablePointer<Float>
    private let referenceBand: UnsafeMutablePointer<Float>
    private let echoBand: UnsafeMutablePointer<Float>
    /// Per band, Ê with the onset coupling wherever the band is in its onset, whoever talks.
    private let onsetEchoBand: UnsafeMutablePointer<Float>
    private let detectorEchoBand: UnsafeMutablePointer<Float>
    private let speechBands: Range<Int>
    private let decay: Float
    private let tailFrames: Int
    private var frameIndex = 0
    private var farEndHold = 0
    /// The loudest speech-band output of the frames the lenient detector counted in the current pause of
    /// the far end, while its verdict lasts.
    private var pauseTalkerPeak: Float = 0
    private var lenient: NearEndDetector
    /// The published verdicts, from the strict detector's bands.
    private let verdicts: NearEndVerdicts
    private let holdsLostEcho: Bool
    private let endsQuietPauseTalkers: Bool
    private let talkerBandsRecoverAtOnce: Bool
    /// Frames of far-end sound the lenient detector must have heard nobody in before gains recover
    /// slowly (`Int.max`: never), and how many such frames have passed.
    private let quietTalkerFrames: Int
    private var framesWithoutTalker = 0
    /// Frames since the last published verdict (strict or looser), and for how many frames after one the
    /// suppression eases for the lenient detector over a steady far end (`Int.max`: always).
    private var framesSinceVerdict = Int.max / 2
    private let steadyFarEndTalkerFrames: Int
    private var easesForTalker = false
    /// Per band, log10 of the linear filter's worst recent leak over music (`musicLeak`).
    private let musicLeakLog: UnsafeMutablePointer<Float>
    private let followsMusicLeak: Bool
    /// Per band, the previous frame's mic and canceller-output power and the filter's echo estimate (the
    /// lost-echo hold compares their rises).
    private let previousMicBand: UnsafeMutablePointer<Float>
    private let previousResidualBand: UnsafeMutablePointer<Float>
    private let previousEstimateBand: UnsafeMutablePointer<Float>

    /// The last frame's verdict.
    private(set) var activity = NearEndActivity()
    /// The suppression eased for a talker in the last frame: the lenient detector heard one and, over a steady
    /// far end (music), a verdict was published within `steadyFarEndTalkerMilliseconds`. The lenient detector
    /// fires more often than the published verdict, also on echo the filter loses over music.
    var hearsTalker: Bool { easesForTalker }
    /// The last frame's far end and easing, for diagnostics.
    var state: SuppressionState {
        SuppressionState(farEndActive: activity.farEndActive, farEndSteady: verdicts.farEndIsSteady,
                         easedForTalker: easesForTalker)
    }

    /// `onsetMilliseconds`: 0 turns the onset coupling off; `holdsLostEcho`: false turns the lost-echo
    /// hold off; `endsQuietPauseTalkers`: false keeps every talker heard in a pause over the onset that
    /// follows; `talkerBandsRecoverAtOnce`: false recovers a talker's bands half-way per frame like the
    /// others; `recoversSlowlyWithoutTalker`: false keeps the half-way recovery however long only the far
    /// end has played; `easesOverSteadyFarEndOnlyForAHeardTalker`: false eases for the lenient detector over music
    /// too; `followsMusicLeak`: false leaves out the music leak (tests compare against each).
    init(frameSize: Int, sampleRate: Int, tailSamples: Int, onsetMilliseconds: Int = onsetMilliseconds,
         holdsLostEcho: Bool = true, endsQuietPauseTalkers: Bool = true, talkerBandsRecoverAtOnce: Bool = true,
         recoversSlowlyWithoutTalker: Bool = true, followsLinearEstimate: Bool = true,
         easesOverSteadyFarEndOnlyForAHeardTalker: Bool = true, followsMusicLeak: Bool = true) {
        self.frameSize = frameSize
        self.followsLinearEstimate = followsLinearEstimate
        quietTalkerFrames = recoversSlowlyWithoutTalker
            ? (Self.quietTalkerMilliseconds * sampleRate / 1000 + frameSize - 1) / frameSize : .max
        self.holdsLostEcho = holdsLostEcho
        self.followsMusicLeak = followsMusicLeak
        steadyFarEndTalkerFrames = easesOverSteadyFarEndOnlyForAHeardTalker
            ? (Self.steadyFarEndTalkerMilliseconds * sampleRate / 1000 + frameSize - 1) / frameSize : .max
        self.endsQuietPauseTalkers = endsQuietPauseTalkers
        self.talkerBandsRecoverAtOnce = talkerBandsRecoverAtOnce
        windowLength = 2 * frameSize
        var size = 2
        while size < windowLength { size <<= 1 }
        fft = StagedFFT(size: size)
        let bins = size / 2 + 1, bands = Self.bandCount
        window = .floats(windowLength)
        for i in 0..<windowLength {
            window[i] = sqrtf(0.5 - 0.5 * cosf(2 * Float.pi * (Float(i) + 0.5) / Float(windowLength)))
        }
        residualHistory = .floats(windowLength)
        referenceHistory = .floats(windowLength)
        overlap = .floats(frameSize)
        spectrumRe = .floats(bins)
        spectrumIm = .floats(bins)
        bandOfBin = .allocate(capacity: bins)
        let nyquist = Float(sampleRate) / 2
        for k in 0..<bins {
            let f = Float(k) * Float(sampleRate) / Float(size)
            var b = 0
            while b < bands - 1 && f >= Self.bandEdge(b + 1, nyquist: nyquist) { b += 1 }
            bandOfBin[k] = Int32(b)
        }
        var first = 0, last = 0
        while first < bands - 1 && Self.bandEdge(first, nyquist: nyquist) < 250 { first += 1 }
        while last < bands && Self.bandEdge(last, nyquist: nyquist) < 4000 { last += 1 }
        speechBands = max(0, first - 1)..<max(first, last)
        referenceFrames = .floats(Self.historyFrames * bands)
        envelope = .floats(bands)
        coupling = .floats(bands, Self.initialCoupling)
        detectorCoupling = .floats(bands, Self.initialCoupling)
        micCoupling = .floats(bands, Self.initialCoupling)
        onsetCoupling = .floats(bands, Self.initialCoupling)
        silentFrames = .allocate(capacity: bands); silentFrames.initialize(repeating: 0, count: bands)
        onsetFramesLeft = .allocate(capacity: bands); onsetFramesLeft.initialize(repeating: 0, count: bands)
        micBand = .floats(bands)
        previousMicBand = .floats(bands)
        previousResidualBand = .floats(bands)
        previousEstimateBand = .floats(bands)
        micHistory = .floats(windowLength)
        micSpectrum = RealSpectrum(size: size)
        estimateBand = .floats(bands)
        leakLog = .floats(bands, log10f(Self.initialLeak))
        musicLeakLog = .floats(bands, log10f(Self.maxLeak))
        crossXX = .floats(bins)
        crossRe = .floats(bins)
        crossIm = .floats(bins)
        explainedBand = .floats(bands)
        smoothedResidualBand = .floats(bands)
        noise = .floats(bands, 1000)
        gain = .floats(bands, 1)
        residualBand = .floats(bands)
        referenceBand = .floats(bands)
        echoBand = .floats(bands)
        onsetEchoBand = .floats(bands)
        detectorEchoBand = .floats(bands)
        // Parseval: a -58 dBFS RMS signal (41 LSB) under the window, spread over the bands.
        quietBand = 41 * 41 * Float(windowLength) / 2 * Float(size) / 2 / Float(bands)
        let frameMilliseconds = Float(frameSize) * 1000 / Float(sampleRate)
        let subwindow = Float(Self.roomFloorMilliseconds) / Float(BandNoiseFloor.subwindowCount)
        roomFloor = BandNoiseFloor(bandCount: bands, subwindowFrames: Int((subwindow / frameMilliseconds).rounded()),
                                   steadyFrames: Int((Float(Self.steadySoundMilliseconds) / frameMilliseconds).rounded()),
                                   steadySpread: Self.steadySoundSpread)
        decay = powf(10, -3.2 * frameMilliseconds / 16 / 10)
        tailFrames = max(1, (tailSamples + frameSize - 1) / frameSize)
        onsetFrames = (onsetMilliseconds * sampleRate / 1000 + frameSize - 1) / frameSize
        let hangover = Int((200 / frameMilliseconds).rounded())
        lenient = NearEndDetector(margin: 2, bandFraction: 0.3, onsetFrames: Int((32 / frameMilliseconds).rounded()),
                                  hangoverFrames: hangover)
        verdicts = NearEndVerdicts(windowLength: windowLength, sampleRate: sampleRate, frameMilliseconds: frameMilliseconds,
                                   onsetFrames: Int((32 / frameMilliseconds).rounded()), hangoverFrames: hangover)
    }

    deinit {
        for p in [window, residualHistory, referenceHistory, overlap, spectrumRe, spectrumIm, referenceFrames,
                  envelope, coupling, detectorCoupling, micCoupling, onsetCoupling, micBand, previousMicBand, previousResidualBand, previousEstimateBand, micHistory, estimateBand, leakLog, musicLeakLog, crossXX, crossRe, crossIm, explainedBand, smoothedResidualBand, noise, gain, residualBand, referenceBand, echoBand, onsetEchoBand, detectorEchoBand] { p.deallocate() }
        bandOfBin.deallocate(); silentFrames.deallocate(); onsetFramesLeft.deallocate()
    }

    /// Lower edge of band `b` in Hz: 125 Hz steps to 1 kHz, then 16 bands per three octaves.
    static func bandEdge(_ b: Int, nyquist: Float) -> Float {
        b <= 8 ? Float(b) * 125 : min(nyquist, 1000 * powf(8, Float(b - 8) / 16))
    }

    /// `residual`: the canceller's output (frameSize samples), replaced by the suppressed signal of the
    /// previous call's frame. `reference` and `mic`: the aligned reference and the canceller's mic input
    /// of the same frame.
    func process(_ residual: UnsafeMutableBufferPointer<Int16>, reference: UnsafeBufferPointer<Int16>,
                 mic: UnsafeBufferPointer<Int16>) {
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
        // About -50 dBFS RMS, held over the echo tail.
        let farEndWasActive = farEndHold > 0
        farEndHold = referencePower / Float(h) > 10_000 ? tailFrames : max(0, farEndHold - 1)
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
        for i in w..<n { re[i] = 0; im[i] = 0 }
        transform(inverse: false)
        for b in 0..<bands { residualBand[b] = 0; referenceBand[b] = 0; explainedBand[b] = 0; estimateBand[b] = 0 }
        let keep = Self.coherenceSmoothing
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
        let talking = lenient.speech
        for b in 0..<bands {
            referenceFrames[slot + b] = referenceBand[b]
            var loudest: Float = 0
            for f in 0..<Self.historyFrames { loudest = max(loudest, referenceFrames[f * bands + b]) }
            envelope[b] = max(loudest, envelope[b] * decay)
            let e = residualBand[b]
            noise[b] = e < noise[b] ? 0.7 * noise[b] + 0.3 * e : noise[b] * 1.01
            // About -68 dBFS RMS spread over the bands: the band plays nothing.
            if referenceBand[b] < 0.1 * quietBand {
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
            if farEndActive && envelope[b] > 1e-3 && referenceBand[b] >= 0.25 * envelope[b] {
                let ratio = max(e - noise[b], 0) / (envelope[b] + 1e-3)
                // The detectors' couplings only fall where the mic stands above its echo in the band's onset,
                // and, as the far end starts, where the band has played nothing for longer than the echo tail.
                let onlyFalls = (onset && micAboveEcho(b, farEndActive: true))
                    || (farEndOnsetLeft > 0 && silentFrames[b] >= tailFrames)
                if onset { onsetCoupling[b] = Self.track(onsetCoupling[b], toward: ratio, talking: talking) }
                coupling[b] = Self.track(coupling[b], toward: min(ratio, Self.riseLimit * coupling[b]), talking: talking)
                detectorCoupling[b] = Self.track(detectorCoupling[b], toward: onlyFalls ? min(ratio, detectorCoupling[b]) : ratio,
                                                 talking: talking)
                let micRatio = micBand[b] / (envelope[b] + 1e-3)
                micCoupling[b] = Self.track(micCoupling[b], toward: onlyFalls ? min(micRatio, micCoupling[b]) : micRatio,
                                            talking: talking)
            }
            let leakEcho = followsLinearEstimate && farEndActive ? followedLeak(b, output: e, talking: talking) : 0
            onsetEchoBand[b] = max(leakEcho, (onset ? max(coupling[b], onsetCoupling[b]) : coupling[b]) * envelope[b])
            echoBand[b] = easesForTalker ? max(leakEcho, coupling[b] * envelope[b]) : onsetEchoBand[b]
            detectorEchoBand[b] = detectorCoupling[b] * envelope[b]
        }
        if endsQuietPauseTalkers && farEndActive && !farEndWasActive && talking {
            var onsetEcho: Float = 0
            for b in speechBands { onsetEcho += onsetEchoBand[b] }
            if Self.pauseTalkerMargin * pauseTalkerPeak < onsetEcho {
                lenient.end()
                for b in 0..<bands { echoBand[b] = onsetEchoBand[b] }
            }
        }

        adoptSteadySound(farEndActive: farEndActive)
        var lenientAbove = 0, strictAbove = 0
        var speechEnergy: Float = 0, predicted: Float = 0
        for b in speechBands {
            speechEnergy += residualBand[b]
            predicted += expectedBand(b)
            if residualBand[b] > lenient.margin * (Self.detectorOver * echoBand[b] + noiseFloor(b)) { lenientAbove += 1 }
            if strictCounts(b, farEndActive: farEndActive) { strictAbove += 1 }
        }
        let heard = lenient.update(bandsAbove: lenientAbove, bandCount: speechBands.count)
        let nobodyHeardOverMusic = farEndActive && verdicts.farEndIsSteady && framesSinceVerdict >= steadyFarEndTalkerFrames
        let near = heard && !nobodyHeardOverMusic
        easesForTalker = near
        if farEndActive || !near {
            pauseTalkerPeak = 0
        } else if lenient.counted {
            pauseTalkerPeak = max(pauseTalkerPeak, speechEnergy)
        }

        if near {
            framesWithoutTalker = 0
        } else if farEndActive {
            framesWithoutTalker = min(framesWithoutTalker + 1, quietTalkerFrames)
        }
        let over = near ? Self.overWhileNearEnd : Self.over
        let mayHold = holdsLostEcho && farEndActive && !near
        let slowly = farEndActive && framesWithoutTalker >= quietTalkerFrames
        for b in 0..<bands {
            let echo = followsMusicLeak && nobodyHeardOverMusic && estimateBand[b] > quietBand
                ? max(echoBand[b], musicLeak(b, output: residualBand[b], talking: heard)) : echoBand[b]
            let g = Self.gain(output: residualBand[b], echo: echo, over: over)
            let micAboveItsEcho = micAboveEcho(b, farEndActive: farEndActive)
            if g < gain[b] || (near && g == 1 && micAboveItsEcho && talkerBandsRecoverAtOnce) {
                gain[b] = g
            } else if !mayHold || micAboveItsEcho
                        || micBand[b] - previousMicBand[b] >= residualBand[b] - previousResidualBand[b]
                            + Self.echoRiseMargin * max(0, estimateBand[b] - previousEstimateBand[b]) {
                let halfway = 0.5 * (gain[b] + g)
                gain[b] = slowly ? min(halfway, Self.slowRise * gain[b]) : halfway
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

        let (speech, possible) = verdicts.update(strictAbove: strictAbove, bandCount: speechBands.count,
                                                 speechEnergy: speechEnergy, predicted: predicted,
                                                 farEndActive: farEndActive, output: re, reference: referenceHistory,
                                                 window: window)
        framesSinceVerdict = speech || possible ? 0 : min(framesSinceVerdict + 1, Int.max / 2)
        activity = NearEndActivity(farEndActive: farEndActive, nearEndSpeech: speech, possibleNearEndSpeech: possible || speech,
                                   nearToEchoDB: 10 * log10f((speechEnergy + 1) / (predicted + 1)))
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

    /// Band `b`'s leak floor for this frame, learnt first from its output power `output` unless the lenient
    /// detector hears a talker: `leakMargin` times the band's tracked leak, at most `maxLeak`, times the
    /// linear filter's echo estimate there.
    private func followedLeak(_ b: Int, output: Float, talking: Bool) -> Float {
        let estimate = estimateBand[b]
        if !talking && estimate > quietBand {
            let leak = min(0, log10f(max(output, 1e-6 * estimate) / estimate))
            Self.follow(&leakLog[b], toward: leak, rise: Self.leakRise, fall: Self.leakFall)
        }
        return min(Self.maxLeak, Self.leakMargin * powf(10, leakLog[b])) * estimate
    }


    /// Band `b`'s predicted echo over music that nobody has been heard over: the linear filter's echo estimate
    /// times its worst recent leak there (the output's power over the estimate, in log10, rising half-way per
    /// frame and falling 0.02 of the way; learnt while the lenient detector hears nobody).
    private func musicLeak(_ b: Int, output: Float, talking: Bool) -> Float {
        let estimate = estimateBand[b]
        if !talking {
            let leak = log10f(max(output, 1e-6 * estimate) / estimate)
            Self.follow(&musicLeakLog[b], toward: leak, rise: Self.musicLeakRise, fall: Self.musicLeakFall)
        }
        return powf(10, musicLeakLog[b]) * estimate
    }

    /// The mic rule: band `b` of the mic is louder than its echo (more than `micMargin` times the mic
    /// coupling's prediction, plus the band's room floor); always true while the far end is silent.
    private func micAboveEcho(_ b: Int, farEndActive: Bool) -> Bool {
        !farEndActive || micBand[b] > Self.micMargin * micCoupling[b] * envelope[b] + roomFloorLevel(b)
    }

    /// What the strict detector expects in band `b`: the predicted echo, over-estimated, plus the room floor.
    private func expectedBand(_ b: Int) -> Float { Self.detectorOver * detectorEchoBand[b] + roomFloorLevel(b) }

    /// Whether band `b` counts for the strict detector: the mic over its echo, and the output, less what the
    /// reference explains linearly (echo an adapted filter lost for a moment, not a talker), over the margin.
    private func strictCounts(_ b: Int, farEndActive: Bool) -> Bool {
        let coherentShare = min(1, explainedBand[b] / (smoothedResidualBand[b] + 1e-3))
        return micAboveEcho(b, farEndActive: farEndActive)
            && residualBand[b] * (1 - coherentShare) > verdicts.strictMargin * expectedBand(b)
    }

    /// Where `steadySoundBands` and at least half of the bands the strict detector would count have held steady
    /// (`BandNoiseFloor.isSteady`), the sound in them is the room's: a motor switched on, not a voice, whose
    /// bands rise and fall with its syllables. Those bands' room floor takes their level at once rather than
    /// one window (`roomFloorMilliseconds`) later.
    private func adoptSteadySound(farEndActive: Bool) {
        var counted = 0, steady = 0
        for b in speechBands where strictCounts(b, farEndActive: farEndActive) {
            counted += 1
            if roomFloor.isSteady(b) { steady += 1 }
        }
        guard steady >= Self.steadySoundBands && 2 * steady >= counted else { return }
        for b in speechBands where roomFloor.isSteady(b) && strictCounts(b, farEndActive: farEndActive) {
            roomFloor.adopt(b)
        }
    }

    /// Band `b`'s floor below which nothing counts: twice its noise, plus the quiet-band level.
    private func noiseFloor(_ b: Int) -> Float { 2 * noise[b] + quietBand }

    /// Band `b`'s floor for the strict detector and the mic rule: the room floor, plus the quiet-band level.
    private func roomFloorLevel(_ b: Int) -> Float { roomFloor[b] + quietBand }

    /// One band's gain for output power `output` and predicted residual echo power `echo`: power
    /// subtraction of `over` times the echo, floored; untouched when the output is more than
    /// `keepAbove` times the overestimated echo (the near end dominates the band).
    static func gain(output: Float, echo: Float, over: Float) -> Float {
        let overEcho = over * echo
        guard output > 0, output <= keepAbove * overEcho else { return 1 }
        return max(floorGain, sqrtf(max(0, 1 - overEcho / output)))
    }

    /// Moves a tracked leak (log10) toward this frame's: `rise` of the way when it is higher, `fall` when lower.
    static func follow(_ tracked: inout Float, toward leak: Float, rise: Float, fall: Float) {
        tracked += (leak > tracked ? rise : fall) * (leak - tracked)
    }

    /// One update of a coupling: falls fast, rises slowly (a quarter as fast while the near end talks).
    static func track(_ coupling: Float, toward ratio: Float, talking: Bool) -> Float {
        var rate = ratio > coupling ? couplingRise : couplingFall
        if talking && ratio > coupling { rate *= 0.25 }
        return coupling + rate * (ratio - coupling)
    }

    private func transform(inverse: Bool) {
        fft.permute()
        for stage in 1...fft.stages { fft.runStage(stage, inverse: inverse) }
    }
}
