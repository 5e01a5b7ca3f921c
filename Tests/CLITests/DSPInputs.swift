import AudioCore
import TestProcess

extension TemporaryDirectory {
    /// Writes `jarvis-voice dsp`'s inputs, the mic and the reference, as 16 kHz mono WAV files; their paths.
    func writeDSPInputs(mic: [Int16], reference: [Int16]) -> (mic: String, reference: String) {
        let format = AudioFormat(sampleRate: 16000, channels: 1)
        return (
            write("mic.wav", bytes: WAVFile(format: format, samples: mic).bytes),
            write("ref.wav", bytes: WAVFile(format: format, samples: reference).bytes)
        )
    }
}
