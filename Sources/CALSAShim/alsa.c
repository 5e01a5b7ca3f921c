#include "CALSAShim.h"

static void cshim_alsa_quiet(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

void cshim_alsa_silence_errors(int silence) {
    snd_lib_error_set_handler(silence ? cshim_alsa_quiet : NULL);
}
