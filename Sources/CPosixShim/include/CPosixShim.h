#pragma once
// POSIX/glibc calls Swift cannot import: thread naming, glibc-only spawn actions. Every symbol is
// prefixed `cshim_`.

/// Names the calling thread (pthread_setname_np; at most 15 bytes are kept). Returns 0 or an errno.
int cshim_thread_set_name(const char *name);

/// posix_spawn_file_actions_addclosefrom_np (glibc >= 2.34, not visible to Swift): the child closes
/// every descriptor >= from before exec. `actions` is a posix_spawn_file_actions_t *. Returns 0 or an errno.
int cshim_spawn_actions_close_from(void *actions, int from);
