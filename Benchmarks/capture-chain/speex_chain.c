/* Baseline for the capture-chain benchmark: speexdsp called directly with the chain's settings
 * (frame 256, 3072 taps, 16 kHz, preprocess denoise -15 dB, RES -40/-15 dB linked to the echo
 * state, then the 16 -> 24 kHz uplink resampler at quality 5), reading the same 16-bit mono WAVs
 * as `capture-bench` (44-byte headers) and writing the 24 kHz output as raw S16_LE, like it. */
#include <speex/speex_echo.h>
#include <speex/speex_preprocess.h>
#include <speex/speex_resampler.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: %s MIC.wav REF.wav OUT.raw\n", argv[0]); return 2; }
    FILE *m = fopen(argv[1], "rb"), *r = fopen(argv[2], "rb"), *o = fopen(argv[3], "wb");
    if (!m || !r || !o) { perror("open"); return 1; }
    fseek(m, 44, SEEK_SET); fseek(r, 44, SEEK_SET);
    enum { F = 256 };
    SpeexEchoState *echo = speex_echo_state_init(F, 3072);
    int rate = 16000; speex_echo_ctl(echo, SPEEX_ECHO_SET_SAMPLING_RATE, &rate);
    SpeexPreprocessState *pp = speex_preprocess_state_init(F, 16000);
    int on = 1, off = 0, ns = -15, es = -40, esa = -15; float level = 8000;
    speex_preprocess_ctl(pp, SPEEX_PREPROCESS_SET_DENOISE, &on);
    speex_preprocess_ctl(pp, SPEEX_PREPROCESS_SET_NOISE_SUPPRESS, &ns);
    speex_preprocess_ctl(pp, SPEEX_PREPROCESS_SET_AGC, &off);
    speex_preprocess_ctl(pp, SPEEX_PREPROCESS_SET_AGC_LEVEL, &level);
    speex_preprocess_ctl(pp, SPEEX_PREPROCESS_SET_ECHO_STATE, echo);
    speex_preprocess_ctl(pp, SPEEX_PREPROCESS_SET_ECHO_SUPPRESS, &es);
    speex_preprocess_ctl(pp, SPEEX_PREPROCESS_SET_ECHO_SUPPRESS_ACTIVE, &esa);
    int err = 0;
    SpeexResamplerState *up = speex_resampler_init(1, 16000, 24000, 5, &err);
    if (!up) { fprintf(stderr, "speex_resampler_init: %s\n", speex_resampler_strerror(err)); return 1; }
    short mic[F], ref[F], out[F], uplink[F * 3 / 2 + 16];
    while (fread(mic, 2, F, m) == F) {
        if (fread(ref, 2, F, r) != F) break;
        speex_echo_cancellation(echo, mic, ref, out);
        speex_preprocess_run(pp, out);
        spx_uint32_t in_len = F, out_len = sizeof uplink / sizeof uplink[0];
        speex_resampler_process_int(up, 0, out, &in_len, uplink, &out_len);
        fwrite(uplink, 2, out_len, o);
    }
    speex_resampler_destroy(up); speex_preprocess_state_destroy(pp); speex_echo_state_destroy(echo);
    fclose(m); fclose(r); fclose(o);
    return 0;
}
