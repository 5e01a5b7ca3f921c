// SpeexDSP
