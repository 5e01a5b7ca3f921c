#pragma once
// ALSA's error handler type is variadic, so Swift cannot implement it. Every symbol is prefixed `cshim_`.
#include <alsa/asoundlib.h>

/// silence != 0 installs a handler that drops alsa-lib's "ALSA lib ..." stderr chatter; our wrappers
/// report errors themselves.
void cshim_alsa_silence_errors(int silence);
