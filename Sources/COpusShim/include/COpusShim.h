#pragma once
// opus_*_ctl are variadic and their requests are function-like macros: typed wrappers for Swift.
#include <opus.h>
#include <opus_multistream.h>

/// OPUS_SET_GAIN (Q7.8 dB, as in OpusHead's output gain) on a multistream decoder.
int cshim_opus_ms_decoder_set_gain(OpusMSDecoder *decoder, int gain_q8);
/// OPUS_RESET_STATE on a multistream decoder (a new stream follows, forget the old one).
int cshim_opus_ms_decoder_reset(OpusMSDecoder *decoder);
/// OPUS_SET_BITRATE on an encoder.
int cshim_opus_encoder_set_bitrate(OpusEncoder *encoder, opus_int32 bits_per_second);
/// OPUS_GET_LOOKAHEAD on an encoder (the pre-skip an Ogg Opus writer declares).
int cshim_opus_encoder_get_lookahead(OpusEncoder *encoder, opus_int32 *samples);
