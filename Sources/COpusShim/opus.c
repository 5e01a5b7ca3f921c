#include "COpusShim.h"

int cshim_opus_ms_decoder_set_gain(OpusMSDecoder *decoder, int gain_q8) {
    return opus_multistream_decoder_ctl(decoder, OPUS_SET_GAIN(gain_q8));
}

int cshim_opus_ms_decoder_reset(OpusMSDecoder *decoder) {
    return opus_multistream_decoder_ctl(decoder, OPUS_RESET_STATE);
}

int cshim_opus_encoder_set_bitrate(OpusEncoder *encoder, opus_int32 bits_per_second) {
    return opus_encoder_ctl(encoder, OPUS_SET_BITRATE(bits_per_second));
}

int cshim_opus_encoder_get_lookahead(OpusEncoder *encoder, opus_int32 *samples) {
    return opus_encoder_ctl(encoder, OPUS_GET_LOOKAHEAD(samples));
}
