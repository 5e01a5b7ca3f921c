/* Plain speexdsp with the `jarvis-voice dsp` signature, for the real-room benchmark:
 *   speex_dsp [--warm] --mic IN.wav --reference REF.wav --out OUT.wav
 * echo canceller 256/3072 at 16 kHz -> preprocessor (NS -15 dB, residual echo suppression linked to
 * the echo state at speex's defaults -40/-15 dB). OUT has IN's length, aligned with it (the
 * preprocessor's one-frame delay is removed). 16 kHz mono 16-bit WAV only.
 * --warm: the padded recording goes through both states once, then 0.5 s of digital silence on mic
 * and reference (32 frames, 512 ms), then the pass that is written, with the same states (never
 * reset): the steady state of a canceller that has been running, as `jarvis-voice dsp --warm`. */
#include <speex/speex_echo.h>
#include <speex/speex_preprocess.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { FRAME = 256, TAIL = 3072, RATE = 16000 };

static int16_t *load(const char *path, long *count) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(66); }
    unsigned char h[12], c[8];
    if (fread(h, 1, 12, f) != 12 || memcmp(h, "RIFF", 4) || memcmp(h + 8, "WAVE", 4)) { fprintf(stderr, "%s: not WAV\n", path); exit(65); }
    for (;;) {
        if (fread(c, 1, 8, f) != 8) { fprintf(stderr, "%s: no data chunk\n", path); exit(65); }
        uint32_t n = c[4] | c[5] << 8 | c[6] << 16 | (uint32_t)c[7] << 24;
        if (!memcmp(c, "data", 4)) {
            int16_t *s = malloc(n + 2 * FRAME * sizeof(int16_t));
            *count = (long)fread(s, 1, n, f) / 2;
            fclose(f);
            return s;
        }
        fseek(f, n + (n & 1), SEEK_CUR);
    }
}

static void put32(unsigned char *p, uint32_t v) { p[0] = v; p[1] = v >> 8; p[2] = v >> 16; p[3] = v >> 24; }

int main(int argc, char **argv) {
    const char *mic = 0, *ref = 0, *out = 0;
    int warm = 0, bad = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--warm")) warm = 1;
        else if (i + 1 < argc && !strcmp(argv[i], "--mic")) mic = argv[++i];
        else if (i + 1 < argc && !strcmp(argv[i], "--reference")) ref = argv[++i];
        else if (i + 1 < argc && !strcmp(argv[i], "--out")) out = argv[++i];
        else bad = 1;
    }
    if (bad || !mic || !ref || !out) { fprintf(stderr, "usage: speex_dsp [--warm] --mic IN.wav --reference REF.wav --out OUT.wav\n"); return 64; }
    long nm, nr;
    int16_t *m = load(mic, &nm), *r = load(ref, &nr);
    long frames = (nm + FRAME) / FRAME + 1;
    int16_t *mp = calloc(frames * FRAME, 2), *rp = calloc(frames * FRAME, 2), *o = calloc(frames * FRAME, 2);
    memcpy(mp, m, nm * 2);
    memcpy(rp, r, (nr < nm ? nr : nm) * 2);
    SpeexEchoState *e = speex_echo_state_init(FRAME, TAIL);
    SpeexPreprocessState *p = speex_preprocess_state_init(FRAME, RATE);
    int rate = RATE, on = 1, ns = -15;
    speex_echo_ctl(e, SPEEX_ECHO_SET_SAMPLING_RATE, &rate);
    speex_preprocess_ctl(p, SPEEX_PREPROCESS_SET_DENOISE, &on);
    speex_preprocess_ctl(p, SPEEX_PREPROCESS_SET_NOISE_SUPPRESS, &ns);
    speex_preprocess_ctl(p, SPEEX_PREPROCESS_SET_ECHO_STATE, e);
    if (warm) {
        enum { SILENCE = (RATE / 2 + FRAME - 1) / FRAME };
        int16_t zero[FRAME] = {0}, scratch[FRAME];
        for (long f = 0; f < frames; f++) {
            speex_echo_cancellation(e, mp + f * FRAME, rp + f * FRAME, o + f * FRAME);
            speex_preprocess_run(p, o + f * FRAME);
        }
        for (int f = 0; f < SILENCE; f++) {
            speex_echo_cancellation(e, zero, zero, scratch);
            speex_preprocess_run(p, scratch);
        }
    }
    for (long f = 0; f < frames; f++) {
        speex_echo_cancellation(e, mp + f * FRAME, rp + f * FRAME, o + f * FRAME);
        speex_preprocess_run(p, o + f * FRAME);
    }
    FILE *w = fopen(out, "wb");
    if (!w) { perror(out); return 73; }
    unsigned char h[44] = "RIFF\0\0\0\0WAVEfmt \x10\0\0\0\x01\0\x01\0\0\0\0\0\0\0\0\0\x02\0\x10\0data";
    put32(h + 4, 36 + nm * 2); put32(h + 24, RATE); put32(h + 28, RATE * 2); put32(h + 40, nm * 2);
    fwrite(h, 1, 44, w);
    fwrite(o + FRAME, 2, nm, w);
    fclose(w);
    return 0;
}
