#pragma once
// What Swift cannot import directly: variadic functions and callback types, function-like macros,
// thread naming and scheduling. Every symbol is prefixed `cshim_`.
#include <stdint.h>
#include <stddef.h>
#include <alsa/asoundlib.h>
#include "cshim_gpio.h"

/// ALSA's error handler type is variadic, so Swift cannot implement it. silence != 0 installs a
/// handler that drops alsa-lib's "ALSA lib ..." stderr chatter; our wrappers report errors themselves.
void cshim_alsa_silence_errors(int silence);

/// Names the calling thread (pthread_setname_np; at most 15 bytes are kept). Returns 0 or an errno.
int cshim_thread_set_name(const char *name);

/// posix_spawn_file_actions_addclosefrom_np (glibc >= 2.34, not visible to Swift): the child closes
/// every descriptor >= from before exec. `actions` is a posix_spawn_file_actions_t *. Returns 0 or an errno.
int cshim_spawn_actions_close_from(void *actions, int from);

#include "cshim_curl.h"
#include "cshim_opus.h"
