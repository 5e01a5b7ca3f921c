#pragma once
// What Swift cannot import directly: variadic functions and callback types, function-like macros,
// thread naming and scheduling. Every symbol is prefixed `cshim_`.
#include <stdint.h>
#include <stddef.h>
#include <alsa/asoundlib.h>

/// ALSA's error handler type is variadic, so Swift cannot implement it. silence != 0 installs a
/// handler that drops alsa-lib's "ALSA lib ..." stderr chatter; our wrappers report errors themselves.
void cshim_alsa_silence_errors(int silence);
#include "cshim_curl.h"
#include "cshim_opus.h"
