#define _GNU_SOURCE
#include <spawn.h>
#include "CPosixShim.h"

int cshim_spawn_actions_close_from(void *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np((posix_spawn_file_actions_t *)actions, from);
}
