// GPIO backend over libgpiod 1.x or 2.x, chosen at compile time: libgpiod 1.x's <gpiod.h>
// #defines GPIOD_LINE_BULK_MAX_LINES, 2.x's defines no macro besides its include guard.
// -DCSHIM_GPIO_BACKEND=1|2 overrides the detection.
#define _GNU_SOURCE 1
#include "CGPIODShim.h"
#include <gpiod.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#ifndef CSHIM_GPIO_BACKEND
#  ifdef GPIOD_LINE_BULK_MAX_LINES
#    define CSHIM_GPIO_BACKEND 1
#  else
#    define CSHIM_GPIO_BACKEND 2
#  endif
#endif

#define FAIL(name) do { if (failed_call) *failed_call = (name); } while (0)

int cshim_gpio_backend(void) { return CSHIM_GPIO_BACKEND; }


static void copy_string(char *dst, size_t size, const char *src) {
    if (!dst || size == 0) return;
    if (!src) src = "";
    size_t n = strlen(src);
    if (n >= size) n = size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

#if CSHIM_GPIO_BACKEND == 1 /* ================================================== libgpiod 1.x */

int cshim_gpio_kernel_debounce_supported(void) { return 0; }

const char *cshim_gpio_library_version(void) { return gpiod_version_string(); }

static int v1_bias_flag(int bias) {
    switch (bias) {
    case CSHIM_GPIO_BIAS_PULL_UP: return GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP;
    case CSHIM_GPIO_BIAS_PULL_DOWN: return GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_DOWN;
    case CSHIM_GPIO_BIAS_DISABLED: return GPIOD_LINE_REQUEST_FLAG_BIAS_DISABLE;
    default: return 0;
    }
}

struct cshim_gpio_input { struct gpiod_chip *chip; struct gpiod_line *line; };
struct cshim_gpio_output { struct gpiod_chip *chip; struct gpiod_line *line; };

/* Opens the chip and gets the line; on failure closes what it opened and keeps errno. */
static int v1_open_line(const char *path, unsigned int offset, struct gpiod_chip **chip,
                        struct gpiod_line **line, const char **failed_call) {
    *chip = gpiod_chip_open(path);
    if (!*chip) { FAIL("gpiod_chip_open"); return -1; }
    *line = gpiod_chip_get_line(*chip, offset);
    if (!*line) {
        int e = errno;
        FAIL("gpiod_chip_get_line");
        gpiod_chip_close(*chip);
        errno = e;
        return -1;
    }
    return 0;
}

cshim_gpio_input *cshim_gpio_input_open(const char *path, unsigned int offset, int active_low, int bias,
                                        unsigned int debounce_us, const char *consumer,
                                        const char **failed_call) {
    (void)debounce_us; /* the v1 uAPI has no debounce; the Swift side debounces in software */
    cshim_gpio_input *in = calloc(1, sizeof *in);
    if (!in) { FAIL("calloc"); return NULL; }
    if (v1_open_line(path, offset, &in->chip, &in->line, failed_call) < 0) { free(in); return NULL; }
    struct gpiod_line_request_config cfg = {
        .consumer = consumer,
        .request_type = GPIOD_LINE_REQUEST_EVENT_BOTH_EDGES,
        .flags = (active_low ? GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW : 0) | v1_bias_flag(bias),
    };
    if (gpiod_line_request(in->line, &cfg, 0) < 0) {
        int e = errno;
        FAIL("gpiod_line_request");
        gpiod_chip_close(in->chip);
        free(in);
        errno = e;
        return NULL;
    }
    return in;
}

int cshim_gpio_input_fd(const cshim_gpio_input *in) { return gpiod_line_event_get_fd(in->line); }

int cshim_gpio_input_read_edges(cshim_gpio_input *in, cshim_gpio_edge *edges, unsigned int max,
                                const char **failed_call) {
    struct gpiod_line_event events[16];
    if (max > 16) max = 16;
    int n = gpiod_line_event_read_multiple(in->line, events, max);
    if (n < 0) { FAIL("gpiod_line_event_read_multiple"); return -1; }
    for (int i = 0; i < n; i++) {
        edges[i].timestamp_ns = (uint64_t)events[i].ts.tv_sec * 1000000000u + (uint64_t)events[i].ts.tv_nsec;
        edges[i].rising = events[i].event_type == GPIOD_LINE_EVENT_RISING_EDGE;
    }
    return n;
}

int cshim_gpio_input_get_value(cshim_gpio_input *in, const char **failed_call) {
    int v = gpiod_line_get_value(in->line);
    if (v < 0) FAIL("gpiod_line_get_value");
    return v;
}

void cshim_gpio_input_close(cshim_gpio_input *in) {
    if (!in) return;
    gpiod_line_release(in->line);
    gpiod_chip_close(in->chip);
    free(in);
}

cshim_gpio_output *cshim_gpio_output_open(const char *path, unsigned int offset, int active_low,
                                          int initial_value, const char *consumer,
                                          const char **failed_call) {
    cshim_gpio_output *out = calloc(1, sizeof *out);
    if (!out) { FAIL("calloc"); return NULL; }
    if (v1_open_line(path, offset, &out->chip, &out->line, failed_call) < 0) { free(out); return NULL; }
    int flags = active_low ? GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW : 0;
    if (gpiod_line_request_output_flags(out->line, consumer, flags, initial_value ? 1 : 0) < 0) {
        int e = errno;
        FAIL("gpiod_line_request_output_flags");
        gpiod_chip_close(out->chip);
        free(out);
        errno = e;
        return NULL;
    }
    return out;
}

int cshim_gpio_output_set_value(cshim_gpio_output *out, int value, const char **failed_call) {
    if (gpiod_line_set_value(out->line, value ? 1 : 0) < 0) { FAIL("gpiod_line_set_value"); return -1; }
    return 0;
}

void cshim_gpio_output_close(cshim_gpio_output *out) {
    if (!out) return;
    gpiod_line_release(out->line);
    gpiod_chip_close(out->chip);
    free(out);
}

struct cshim_gpio_chip { struct gpiod_chip *chip; };

cshim_gpio_chip *cshim_gpio_chip_open(const char *path, const char **failed_call) {
    cshim_gpio_chip *c = calloc(1, sizeof *c);
    if (!c) { FAIL("calloc"); return NULL; }
    c->chip = gpiod_chip_open(path);
    if (!c->chip) { int e = errno; FAIL("gpiod_chip_open"); free(c); errno = e; return NULL; }
    return c;
}
const char *cshim_gpio_chip_name(cshim_gpio_chip *c) { return gpiod_chip_name(c->chip); }
const char *cshim_gpio_chip_label(cshim_gpio_chip *c) { return gpiod_chip_label(c->chip); }
unsigned int cshim_gpio_chip_num_lines(cshim_gpio_chip *c) { return gpiod_chip_num_lines(c->chip); }

int cshim_gpio_chip_line_info(cshim_gpio_chip *c, unsigned int offset, char *name, size_t name_size,
                              char *consumer, size_t consumer_size, int *flags, const char **failed_call) {
    struct gpiod_line *line = gpiod_chip_get_line(c->chip, offset);
    if (!line) { FAIL("gpiod_chip_get_line"); return -1; }
    copy_string(name, name_size, gpiod_line_name(line));
    copy_string(consumer, consumer_size, gpiod_line_consumer(line));
    *flags = (gpiod_line_is_used(line) ? CSHIM_GPIO_LINE_USED : 0) |
             (gpiod_line_direction(line) == GPIOD_LINE_DIRECTION_OUTPUT ? CSHIM_GPIO_LINE_OUTPUT : 0) |
             (gpiod_line_active_state(line) == GPIOD_LINE_ACTIVE_STATE_LOW ? CSHIM_GPIO_LINE_ACTIVE_LOW : 0);
    return 0;
}

void cshim_gpio_chip_close(cshim_gpio_chip *c) {
    if (!c) return;
    gpiod_chip_close(c->chip);
    free(c);
}

#else /* ======================================================================== libgpiod 2.x */

int cshim_gpio_kernel_debounce_supported(void) { return 1; }

const char *cshim_gpio_library_version(void) { return gpiod_api_version(); }

static enum gpiod_line_bias v2_bias(int bias) {
    switch (bias) {
    case CSHIM_GPIO_BIAS_PULL_UP: return GPIOD_LINE_BIAS_PULL_UP;
    case CSHIM_GPIO_BIAS_PULL_DOWN: return GPIOD_LINE_BIAS_PULL_DOWN;
    case CSHIM_GPIO_BIAS_DISABLED: return GPIOD_LINE_BIAS_DISABLED;
    default: return GPIOD_LINE_BIAS_AS_IS;
    }
}

/* Requests one line with `settings`; the request outlives the chip handle, which is closed here. */
static struct gpiod_line_request *v2_request(const char *path, unsigned int offset,
                                             struct gpiod_line_settings *settings, const char *consumer,
                                             const char **failed_call) {
    struct gpiod_line_request *req = NULL;
    struct gpiod_line_config *lc = NULL;
    struct gpiod_request_config *rc = NULL;
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (!chip) { FAIL("gpiod_chip_open"); goto out; }
    lc = gpiod_line_config_new();
    if (!lc) { FAIL("gpiod_line_config_new"); goto out; }
    if (gpiod_line_config_add_line_settings(lc, &offset, 1, settings) < 0) {
        FAIL("gpiod_line_config_add_line_settings");
        goto out;
    }
    rc = gpiod_request_config_new();
    if (!rc) { FAIL("gpiod_request_config_new"); goto out; }
    gpiod_request_config_set_consumer(rc, consumer);
    req = gpiod_chip_request_lines(chip, rc, lc);
    if (!req) FAIL("gpiod_chip_request_lines");
out:;
    int e = errno;
    if (rc) gpiod_request_config_free(rc);
    if (lc) gpiod_line_config_free(lc);
    if (chip) gpiod_chip_close(chip);
    errno = e;
    return req;
}

struct cshim_gpio_input {
    struct gpiod_line_request *req;
    struct gpiod_edge_event_buffer *buf;
    unsigned int offset;
};
struct cshim_gpio_output { struct gpiod_line_request *req; unsigned int offset; };

cshim_gpio_input *cshim_gpio_input_open(const char *path, unsigned int offset, int active_low, int bias,
                                        unsigned int debounce_us, const char *consumer,
                                        const char **failed_call) {
    cshim_gpio_input *in = calloc(1, sizeof *in);
    if (!in) { FAIL("calloc"); return NULL; }
    in->offset = offset;
    struct gpiod_line_settings *s = gpiod_line_settings_new();
    if (!s) { FAIL("gpiod_line_settings_new"); free(in); return NULL; }
    gpiod_line_settings_set_direction(s, GPIOD_LINE_DIRECTION_INPUT);
    gpiod_line_settings_set_edge_detection(s, GPIOD_LINE_EDGE_BOTH);
    gpiod_line_settings_set_active_low(s, active_low != 0);
    gpiod_line_settings_set_bias(s, v2_bias(bias));
    gpiod_line_settings_set_debounce_period_us(s, debounce_us);
    gpiod_line_settings_set_event_clock(s, GPIOD_LINE_CLOCK_MONOTONIC);
    in->req = v2_request(path, offset, s, consumer, failed_call);
    gpiod_line_settings_free(s);
    if (in->req) {
        in->buf = gpiod_edge_event_buffer_new(16);
        if (!in->buf) FAIL("gpiod_edge_event_buffer_new");
    }
    if (!in->req || !in->buf) {
        int e = errno;
        if (in->req) gpiod_line_request_release(in->req);
        free(in);
        errno = e;
        return NULL;
    }
    return in;
}

int cshim_gpio_input_fd(const cshim_gpio_input *in) { return gpiod_line_request_get_fd(in->req); }

int cshim_gpio_input_read_edges(cshim_gpio_input *in, cshim_gpio_edge *edges, unsigned int max,
                                const char **failed_call) {
    if (max > 16) max = 16;
    int n = gpiod_line_request_read_edge_events(in->req, in->buf, max);
    if (n < 0) { FAIL("gpiod_line_request_read_edge_events"); return -1; }
    for (int i = 0; i < n; i++) {
        struct gpiod_edge_event *ev = gpiod_edge_event_buffer_get_event(in->buf, (unsigned long)i);
        edges[i].timestamp_ns = gpiod_edge_event_get_timestamp_ns(ev);
        edges[i].rising = gpiod_edge_event_get_event_type(ev) == GPIOD_EDGE_EVENT_RISING_EDGE;
    }
    return n;
}

int cshim_gpio_input_get_value(cshim_gpio_input *in, const char **failed_call) {
    enum gpiod_line_value v = gpiod_line_request_get_value(in->req, in->offset);
    if (v == GPIOD_LINE_VALUE_ERROR) { FAIL("gpiod_line_request_get_value"); return -1; }
    return v == GPIOD_LINE_VALUE_ACTIVE;
}

void cshim_gpio_input_close(cshim_gpio_input *in) {
    if (!in) return;
    gpiod_edge_event_buffer_free(in->buf);
    gpiod_line_request_release(in->req);
    free(in);
}

cshim_gpio_output *cshim_gpio_output_open(const char *path, unsigned int offset, int active_low,
                                          int initial_value, const char *consumer,
                                          const char **failed_call) {
    cshim_gpio_output *out = calloc(1, sizeof *out);
    if (!out) { FAIL("calloc"); return NULL; }
    out->offset = offset;
    struct gpiod_line_settings *s = gpiod_line_settings_new();
    if (!s) { FAIL("gpiod_line_settings_new"); free(out); return NULL; }
    gpiod_line_settings_set_direction(s, GPIOD_LINE_DIRECTION_OUTPUT);
    gpiod_line_settings_set_active_low(s, active_low != 0);
    gpiod_line_settings_set_output_value(s, initial_value ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE);
    out->req = v2_request(path, offset, s, consumer, failed_call);
    gpiod_line_settings_free(s);
    if (!out->req) { int e = errno; free(out); errno = e; return NULL; }
    return out;
}

int cshim_gpio_output_set_value(cshim_gpio_output *out, int value, const char **failed_call) {
    if (gpiod_line_request_set_value(out->req, out->offset,
                                     value ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE) < 0) {
        FAIL("gpiod_line_request_set_value");
        return -1;
    }
    return 0;
}

void cshim_gpio_output_close(cshim_gpio_output *out) {
    if (!out) return;
    gpiod_line_request_release(out->req);
    free(out);
}

struct cshim_gpio_chip { struct gpiod_chip *chip; struct gpiod_chip_info *info; };

cshim_gpio_chip *cshim_gpio_chip_open(const char *path, const char **failed_call) {
    cshim_gpio_chip *c = calloc(1, sizeof *c);
    if (!c) { FAIL("calloc"); return NULL; }
    c->chip = gpiod_chip_open(path);
    if (!c->chip) { int e = errno; FAIL("gpiod_chip_open"); free(c); errno = e; return NULL; }
    c->info = gpiod_chip_get_info(c->chip);
    if (!c->info) {
        int e = errno;
        FAIL("gpiod_chip_get_info");
        gpiod_chip_close(c->chip);
        free(c);
        errno = e;
        return NULL;
    }
    return c;
}
const char *cshim_gpio_chip_name(cshim_gpio_chip *c) { return gpiod_chip_info_get_name(c->info); }
const char *cshim_gpio_chip_label(cshim_gpio_chip *c) { return gpiod_chip_info_get_label(c->info); }
unsigned int cshim_gpio_chip_num_lines(cshim_gpio_chip *c) { return (unsigned int)gpiod_chip_info_get_num_lines(c->info); }

int cshim_gpio_chip_line_info(cshim_gpio_chip *c, unsigned int offset, char *name, size_t name_size,
                              char *consumer, size_t consumer_size, int *flags, const char **failed_call) {
    struct gpiod_line_info *li = gpiod_chip_get_line_info(c->chip, offset);
    if (!li) { FAIL("gpiod_chip_get_line_info"); return -1; }
    copy_string(name, name_size, gpiod_line_info_get_name(li));
    copy_string(consumer, consumer_size, gpiod_line_info_get_consumer(li));
    *flags = (gpiod_line_info_is_used(li) ? CSHIM_GPIO_LINE_USED : 0) |
             (gpiod_line_info_get_direction(li) == GPIOD_LINE_DIRECTION_OUTPUT ? CSHIM_GPIO_LINE_OUTPUT : 0) |
             (gpiod_line_info_is_active_low(li) ? CSHIM_GPIO_LINE_ACTIVE_LOW : 0);
    gpiod_line_info_free(li);
    return 0;
}

void cshim_gpio_chip_close(cshim_gpio_chip *c) {
    if (!c) return;
    gpiod_chip_info_free(c->info);
    gpiod_chip_close(c->chip);
    free(c);
}

#endif

/* ============================================================================ backend-neutral */

int cshim_gpio_wake_fd_open(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

int cshim_gpio_wake_fd_signal(int fd) {
    uint64_t one = 1;
    for (;;) {
        ssize_t n = write(fd, &one, sizeof one);
        if (n == (ssize_t)sizeof one) return 0;
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) return 0; /* counter saturated: a wake-up is pending anyway */
        return -1;
    }
}

void cshim_gpio_wake_fd_drain(int fd) {
    uint64_t value;
    while (read(fd, &value, sizeof value) < 0 && errno == EINTR) {}
}

int cshim_gpio_poll(int line_fd, int wake_fd, int timeout_ms, int *line_ready, int *wake_ready) {
    struct pollfd fds[2] = { { .fd = wake_fd, .events = POLLIN }, { .fd = line_fd, .events = POLLIN } };
    nfds_t n = line_fd >= 0 ? 2 : 1;
    int rc = poll(fds, n, timeout_ms);
    *wake_ready = rc > 0 && (fds[0].revents & (POLLIN | POLLERR | POLLHUP)) != 0;
    *line_ready = rc > 0 && n == 2 && (fds[1].revents & (POLLIN | POLLERR | POLLHUP)) != 0;
    return rc;
}

void cshim_gpio_name_thread(const char *name) {
    char buf[16];
    copy_string(buf, sizeof buf, name);
    pthread_setname_np(pthread_self(), buf);
}

uint64_t cshim_gpio_monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
