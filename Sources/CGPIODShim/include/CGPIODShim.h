#pragma once
// One GPIO API over libgpiod 1.x (Debian 12) and libgpiod 2.x (Debian 13, Raspberry Pi OS),
// chosen at compile time from <gpiod.h> (see gpio.c). The handles are opaque so this header needs
// no libgpiod types. Functions that fail return NULL or -1, leave errno set, and (where there is a
// `failed_call` out parameter) name the libgpiod function that failed.
#include <stdint.h>
#include <stddef.h>

/// 1 = libgpiod 1.x, 2 = libgpiod 2.x.
int cshim_gpio_backend(void);
/// libgpiod's own version string, e.g. "1.6.3" or "2.2.1".
const char *cshim_gpio_library_version(void);
/// 1 when the backend can ask the kernel to debounce an input line (libgpiod 2.x), else 0.
int cshim_gpio_kernel_debounce_supported(void);

enum {
    CSHIM_GPIO_BIAS_AS_IS = 0,
    CSHIM_GPIO_BIAS_PULL_UP = 1,
    CSHIM_GPIO_BIAS_PULL_DOWN = 2,
    CSHIM_GPIO_BIAS_DISABLED = 3,
};

/// One edge of an input line. Timestamps are the kernel's, CLOCK_MONOTONIC on Linux >= 5.7.
typedef struct cshim_gpio_edge {
    uint64_t timestamp_ns;
    int rising;          /* 1: inactive -> active (after active-low inversion), 0: falling */
} cshim_gpio_edge;

// ---- input line with both-edge events ------------------------------------------------------
typedef struct cshim_gpio_input cshim_gpio_input;

/// Requests `offset` on `chip_path` as an input with both-edge detection. debounce_us > 0 asks
/// the kernel to debounce (ignored by libgpiod 1.x, see cshim_gpio_kernel_debounce_supported).
cshim_gpio_input *cshim_gpio_input_open(const char *chip_path, unsigned int offset, int active_low,
                                        int bias, unsigned int debounce_us, const char *consumer,
                                        const char **failed_call);
/// The fd that becomes readable (POLLIN) when edges are queued.
int cshim_gpio_input_fd(const cshim_gpio_input *input);
/// Reads up to `max` queued edges (blocks if none are queued). Returns the count or -1.
int cshim_gpio_input_read_edges(cshim_gpio_input *input, cshim_gpio_edge *edges, unsigned int max,
                                const char **failed_call);
/// Current logical value (1 active, 0 inactive) or -1.
int cshim_gpio_input_get_value(cshim_gpio_input *input, const char **failed_call);
void cshim_gpio_input_close(cshim_gpio_input *input);

// ---- output line ---------------------------------------------------------------------------
typedef struct cshim_gpio_output cshim_gpio_output;

cshim_gpio_output *cshim_gpio_output_open(const char *chip_path, unsigned int offset, int active_low,
                                          int initial_value, const char *consumer,
                                          const char **failed_call);
/// Sets the logical value (1 active). Returns 0 or -1.
int cshim_gpio_output_set_value(cshim_gpio_output *output, int value, const char **failed_call);
void cshim_gpio_output_close(cshim_gpio_output *output);

// ---- chip info for listings ----------------------------------------------------------------
typedef struct cshim_gpio_chip cshim_gpio_chip;

enum {
    CSHIM_GPIO_LINE_USED = 1,
    CSHIM_GPIO_LINE_OUTPUT = 2,
    CSHIM_GPIO_LINE_ACTIVE_LOW = 4,
};

cshim_gpio_chip *cshim_gpio_chip_open(const char *chip_path, const char **failed_call);
/// Kernel name ("gpiochip0"), label ("pinctrl-bcm2711") and line count. Strings live as long as the handle.
const char *cshim_gpio_chip_name(cshim_gpio_chip *chip);
const char *cshim_gpio_chip_label(cshim_gpio_chip *chip);
unsigned int cshim_gpio_chip_num_lines(cshim_gpio_chip *chip);
/// Copies the line's name and consumer (empty when unset, always NUL-terminated) and sets
/// *flags to CSHIM_GPIO_LINE_* bits. Returns 0 or -1.
int cshim_gpio_chip_line_info(cshim_gpio_chip *chip, unsigned int offset, char *name, size_t name_size,
                              char *consumer, size_t consumer_size, int *flags, const char **failed_call);
void cshim_gpio_chip_close(cshim_gpio_chip *chip);

// ---- helpers for the event threads ---------------------------------------------------------
/// A non-blocking, close-on-exec eventfd used to wake a poll, or -1.
int cshim_gpio_wake_fd_open(void);
/// Adds 1 to the eventfd (wakes a poller). Returns 0 or -1.
int cshim_gpio_wake_fd_signal(int fd);
/// Resets the eventfd counter.
void cshim_gpio_wake_fd_drain(int fd);
/// poll() on an optional line fd (-1: none) and the wake fd. timeout_ms < 0 waits forever.
/// Returns poll's result (-1 with errno, EINTR included) and sets the two readiness flags.
int cshim_gpio_poll(int line_fd, int wake_fd, int timeout_ms, int *line_ready, int *wake_ready);
/// Names the calling thread (truncated to the kernel's 15 bytes).
void cshim_gpio_name_thread(const char *name);
/// CLOCK_MONOTONIC in nanoseconds.
uint64_t cshim_gpio_monotonic_ns(void);
