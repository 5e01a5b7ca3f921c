// rtcheck: an LD_PRELOAD library that proves realtime threads do not allocate, lock or write logs.
//
// It interposes the allocator, pthread_mutex_lock/rwlocks/flockfile, contended futex waits made via
// syscall(2), write/writev to fds 1 and 2, and stdio output to stdout/stderr. A call is counted when
// the calling thread's name (prctl PR_GET_NAME: a syscall, no allocation) starts with RTCHECK_PREFIX
// and the thread is past its warm-up (RTCHECK_WARMUP_MS after it started or was first seen) and,
// when RTCHECK_WINDOW_MS is set, still inside that window after the warm-up.
// At exit it writes a key=value report to the file named by RTCHECK_REPORT (else stderr), including
// the call stacks of the first few violations.
//
// Build: cc -shared -fPIC -O2 -o rtcheck.so rtcheck.c -ldl -lpthread   (see README.md)
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>

#define TLS __thread __attribute__((tls_model("initial-exec")))

enum { C_MALLOC, C_CALLOC, C_REALLOC, C_FREE, C_POSIX_MEMALIGN, C_ALIGNED_ALLOC, C_MEMALIGN, C_VALLOC,
       C_MUTEX_LOCK, C_RWLOCK, C_FLOCKFILE, C_FUTEX_WAIT, C_WRITE_STDIO, C_STDIO, C_COUNT };
static const char *const category_names[C_COUNT] = {
    "malloc", "calloc", "realloc", "free", "posix_memalign", "aligned_alloc", "memalign", "valloc",
    "pthread_mutex_lock", "pthread_rwlock", "flockfile", "futex_wait", "write_stdio", "stdio_output"};

// ---- real functions and a bootstrap arena for allocations made while dlsym resolves them ----
static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void *(*real_memalign)(size_t, size_t);
static void *(*real_valloc)(size_t);
static int (*real_mutex_lock)(pthread_mutex_t *);
static int (*real_rwlock_rdlock)(pthread_rwlock_t *);
static int (*real_rwlock_wrlock)(pthread_rwlock_t *);
static void (*real_flockfile)(FILE *);
static long (*real_syscall)(long, ...);
static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_writev)(int, const struct iovec *, int);
static size_t (*real_fwrite)(const void *, size_t, size_t, FILE *);
static int (*real_fputs)(const char *, FILE *);
static int (*real_puts)(const char *);
static int (*real_fputc)(int, FILE *);
static int (*real_putc)(int, FILE *);
static int (*real_putchar)(int);
static int (*real_vfprintf)(FILE *, const char *, va_list);
static int (*real_fflush)(FILE *);
static int (*real_pthread_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

static char arena[64 * 1024] __attribute__((aligned(64)));
static size_t arena_used;
static int resolving;

static void *arena_alloc(size_t n) {
    size_t at = __atomic_fetch_add(&arena_used, (n + 63) & ~(size_t)63, __ATOMIC_RELAXED);
    if (at + n > sizeof arena) return NULL;
    return arena + at;
}
static int in_arena(const void *p) { return (const char *)p >= arena && (const char *)p < arena + sizeof arena; }

#define RESOLVE(name) real_##name = dlsym(RTLD_NEXT, #name)
static void resolve(void) {
    if (resolving) return;
    resolving = 1;
    RESOLVE(malloc); RESOLVE(calloc); RESOLVE(realloc); RESOLVE(free); RESOLVE(posix_memalign);
    RESOLVE(aligned_alloc); RESOLVE(memalign); RESOLVE(valloc); RESOLVE(flockfile); RESOLVE(syscall);
    RESOLVE(write); RESOLVE(writev); RESOLVE(fwrite); RESOLVE(fputs); RESOLVE(puts); RESOLVE(fputc);
    RESOLVE(putc); RESOLVE(putchar); RESOLVE(vfprintf); RESOLVE(fflush); RESOLVE(pthread_create);
    real_mutex_lock = dlsym(RTLD_NEXT, "pthread_mutex_lock");
    real_rwlock_rdlock = dlsym(RTLD_NEXT, "pthread_rwlock_rdlock");
    real_rwlock_wrlock = dlsym(RTLD_NEXT, "pthread_rwlock_wrlock");
    resolving = 0;
}
#define ENSURE(name) do { if (!real_##name) resolve(); } while (0)

// ---- configuration (read once; getenv does not allocate) ----
static char prefix[16] = "rt:";
static size_t prefix_len = 3;
static uint64_t warmup_ns = 500ull * 1000000ull;
static uint64_t window_ns;  // 0: count until the thread exits
static int abort_on_violation;
static const char *report_path;

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

// ---- per-thread state and results ----
enum { MAX_THREADS = 32, MAX_STACKS = 8, STACK_DEPTH = 24 };
struct thread_entry { char name[16]; uint64_t violations; };
static struct thread_entry threads[MAX_THREADS];
static int thread_count;
static uint64_t counts[C_COUNT];
struct stack { int category; int thread; int depth; void *frames[STACK_DEPTH]; };
static struct stack stacks[MAX_STACKS];
static int stack_count;

static TLS uint64_t t_started_ns;  // set by our pthread_create trampoline
static TLS uint64_t t_first_seen_ns;
static TLS int t_slot = -1;
static TLS int t_in_hook;

static void record(int category) {
    if (t_in_hook) return;
    char name[16] = {0};
    if (prctl(PR_GET_NAME, (unsigned long)name, 0, 0, 0) != 0) return;
    if (strncmp(name, prefix, prefix_len) != 0) return;
    uint64_t now = now_ns();
    if (!t_first_seen_ns) t_first_seen_ns = t_started_ns ? t_started_ns : now;
    if (t_slot < 0) {
        int slot = __atomic_fetch_add(&thread_count, 1, __ATOMIC_RELAXED);
        if (slot < MAX_THREADS) memcpy(threads[slot].name, name, sizeof name);
        t_slot = slot;
    }
    if (now - t_first_seen_ns < warmup_ns) return;
    // A window keeps the thread's own teardown (device close, which frees) out of the count.
    if (window_ns && now - t_first_seen_ns >= warmup_ns + window_ns) return;
    t_in_hook = 1;
    __atomic_fetch_add(&counts[category], 1, __ATOMIC_RELAXED);
    if (t_slot < MAX_THREADS) __atomic_fetch_add(&threads[t_slot].violations, 1, __ATOMIC_RELAXED);
    int s = __atomic_fetch_add(&stack_count, 1, __ATOMIC_RELAXED);
    if (s < MAX_STACKS) {
        stacks[s].category = category;
        stacks[s].thread = t_slot;
        stacks[s].depth = backtrace(stacks[s].frames, STACK_DEPTH);  // warmed up in the constructor
    }
    if (abort_on_violation) abort();
    t_in_hook = 0;
}

// ---- allocator ----
void *malloc(size_t n) {
    if (!real_malloc) { resolve(); if (!real_malloc) return arena_alloc(n); }
    record(C_MALLOC);
    return real_malloc(n);
}
void *calloc(size_t n, size_t size) {
    if (!real_calloc) {
        resolve();
        if (!real_calloc) { void *p = arena_alloc(n * size); if (p) memset(p, 0, n * size); return p; }
    }
    record(C_CALLOC);
    return real_calloc(n, size);
}
void *realloc(void *p, size_t n) {
    ENSURE(realloc);
    record(C_REALLOC);
    if (in_arena(p)) {
        void *q = real_malloc(n);
        if (q) memcpy(q, p, n);  // arena blocks are small and never freed; over-read stays in the arena
        return q;
    }
    return real_realloc(p, n);
}
void free(void *p) {
    if (!p || in_arena(p)) return;
    ENSURE(free);
    record(C_FREE);
    real_free(p);
}
int posix_memalign(void **out, size_t alignment, size_t n) {
    ENSURE(posix_memalign);
    record(C_POSIX_MEMALIGN);
    return real_posix_memalign(out, alignment, n);
}
void *aligned_alloc(size_t alignment, size_t n) {
    ENSURE(aligned_alloc);
    record(C_ALIGNED_ALLOC);
    return real_aligned_alloc(alignment, n);
}
void *memalign(size_t alignment, size_t n) {
    ENSURE(memalign);
    record(C_MEMALIGN);
    return real_memalign(alignment, n);
}
void *valloc(size_t n) {
    ENSURE(valloc);
    record(C_VALLOC);
    return real_valloc(n);
}

// ---- locks ----
int pthread_mutex_lock(pthread_mutex_t *m) {
    ENSURE(mutex_lock);
    record(C_MUTEX_LOCK);
    return real_mutex_lock(m);
}
int pthread_rwlock_rdlock(pthread_rwlock_t *l) {
    ENSURE(rwlock_rdlock);
    record(C_RWLOCK);
    return real_rwlock_rdlock(l);
}
int pthread_rwlock_wrlock(pthread_rwlock_t *l) {
    ENSURE(rwlock_wrlock);
    record(C_RWLOCK);
    return real_rwlock_wrlock(l);
}
void flockfile(FILE *f) {
    ENSURE(flockfile);
    record(C_FLOCKFILE);
    real_flockfile(f);
}
// Swift's Synchronization.Mutex takes no lock call when uncontended; when contended it waits in a
// futex through syscall(2), which is what we can see.
long syscall(long number, ...) {
    va_list ap;
    va_start(ap, number);
    long a[6];
    for (int i = 0; i < 6; i++) a[i] = va_arg(ap, long);
    va_end(ap);
    ENSURE(syscall);
    if (number == SYS_futex) {
        int op = (int)a[1] & FUTEX_CMD_MASK;
        if (op == FUTEX_WAIT || op == FUTEX_WAIT_BITSET || op == FUTEX_LOCK_PI || op == FUTEX_LOCK_PI2)
            record(C_FUTEX_WAIT);
    }
    return real_syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

// ---- output to stdout/stderr ----
ssize_t write(int fd, const void *buf, size_t n) {
    ENSURE(write);
    if (fd == 1 || fd == 2) record(C_WRITE_STDIO);
    return real_write(fd, buf, n);
}
ssize_t writev(int fd, const struct iovec *iov, int count) {
    ENSURE(writev);
    if (fd == 1 || fd == 2) record(C_WRITE_STDIO);
    return real_writev(fd, iov, count);
}
static void stdio(FILE *f) { if (f == stdout || f == stderr) record(C_STDIO); }
size_t fwrite(const void *p, size_t size, size_t n, FILE *f) { ENSURE(fwrite); stdio(f); return real_fwrite(p, size, n, f); }
int fputs(const char *s, FILE *f) { ENSURE(fputs); stdio(f); return real_fputs(s, f); }
int puts(const char *s) { ENSURE(puts); stdio(stdout); return real_puts(s); }
int fputc(int c, FILE *f) { ENSURE(fputc); stdio(f); return real_fputc(c, f); }
int putc(int c, FILE *f) { ENSURE(putc); stdio(f); return real_putc(c, f); }
int putchar(int c) { ENSURE(putchar); stdio(stdout); return real_putchar(c); }
int fflush(FILE *f) { ENSURE(fflush); if (f) stdio(f); return real_fflush(f); }
int vfprintf(FILE *f, const char *fmt, va_list ap) { ENSURE(vfprintf); stdio(f); return real_vfprintf(f, fmt, ap); }
int vprintf(const char *fmt, va_list ap) { return vfprintf(stdout, fmt, ap); }
int fprintf(FILE *f, const char *fmt, ...) {
    va_list ap; va_start(ap, fmt); int r = vfprintf(f, fmt, ap); va_end(ap); return r;
}
int printf(const char *fmt, ...) {
    va_list ap; va_start(ap, fmt); int r = vfprintf(stdout, fmt, ap); va_end(ap); return r;
}

// ---- thread start times ----
struct trampoline_arg { void *(*fn)(void *); void *arg; };
static void *trampoline(void *p) {
    struct trampoline_arg t = *(struct trampoline_arg *)p;
    real_free(p);
    t_started_ns = now_ns();
    return t.fn(t.arg);
}
int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*fn)(void *), void *arg) {
    ENSURE(pthread_create);
    struct trampoline_arg *t = real_malloc(sizeof *t);
    if (!t) return EAGAIN;
    t->fn = fn;
    t->arg = arg;
    int r = real_pthread_create(thread, attr, trampoline, t);
    if (r != 0) real_free(t);
    return r;
}

// ---- setup and report ----
__attribute__((constructor)) static void rtcheck_init(void) {
    resolve();
    const char *p = getenv("RTCHECK_PREFIX");
    if (p && *p) {
        strncpy(prefix, p, sizeof prefix - 1);
        prefix_len = strlen(prefix);
    }
    const char *w = getenv("RTCHECK_WARMUP_MS");
    if (w && *w) warmup_ns = strtoull(w, NULL, 10) * 1000000ull;
    const char *win = getenv("RTCHECK_WINDOW_MS");
    if (win && *win) window_ns = strtoull(win, NULL, 10) * 1000000ull;
    const char *a = getenv("RTCHECK_ABORT");
    abort_on_violation = a && *a == '1';
    report_path = getenv("RTCHECK_REPORT");
    void *frames[2];
    t_in_hook = 1;
    backtrace(frames, 2);  // loads libgcc_s now, so backtrace() in record() does not allocate
    t_in_hook = 0;
}

static void put(int fd, const char *fmt, ...) {
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n > 0) real_write(fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

__attribute__((destructor)) static void rtcheck_report(void) {
    int fd = 2;
    if (report_path && *report_path) {
        fd = open(report_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0) fd = 2;
    }
    uint64_t total = 0;
    for (int i = 0; i < C_COUNT; i++) total += counts[i];
    put(fd, "rtcheck_version=1\nprefix=%s\nwarmup_ms=%llu\nwindow_ms=%llu\n", prefix,
        (unsigned long long)(warmup_ns / 1000000ull), (unsigned long long)(window_ns / 1000000ull));
    int seen = thread_count < MAX_THREADS ? thread_count : MAX_THREADS;
    put(fd, "rt_threads=%d\n", thread_count);
    for (int i = 0; i < seen; i++)
        put(fd, "thread.%s=%llu\n", threads[i].name, (unsigned long long)threads[i].violations);
    for (int i = 0; i < C_COUNT; i++) put(fd, "%s=%llu\n", category_names[i], (unsigned long long)counts[i]);
    put(fd, "total=%llu\n", (unsigned long long)total);
    int stacks_seen = stack_count < MAX_STACKS ? stack_count : MAX_STACKS;
    for (int s = 0; s < stacks_seen; s++) {
        const char *tname = stacks[s].thread >= 0 && stacks[s].thread < MAX_THREADS ? threads[stacks[s].thread].name : "?";
        put(fd, "# violation %d: %s on %s\n", s + 1, category_names[stacks[s].category], tname);
        // Frame 0 is record() itself.
        if (stacks[s].depth > 1) backtrace_symbols_fd(stacks[s].frames + 1, stacks[s].depth - 1, fd);
    }
    if (fd != 2) close(fd);
}
