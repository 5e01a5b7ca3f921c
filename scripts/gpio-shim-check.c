// Tiny C driver for the CGPIODShim GPIO backend, used by scripts/check-libgpiod2 (and runnable in a
// gpio-sim VM). usage: gpio-shim-check [CHIP_PATH [OFFSET]]
//   without a chip on the machine: expects the open to fail with a named call and errno;
//   with a chip: lists its lines and reads OFFSET's value.
#include "CGPIODShim.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures = 0;
#define CHECK(cond, ...) do { if (!(cond)) { printf("FAIL: " __VA_ARGS__); printf("\n"); failures++; } } while (0)

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "/dev/gpiochip0";
    unsigned offset = argc > 2 ? (unsigned)atoi(argv[2]) : 17;
    printf("backend=%d libgpiod=%s kernel_debounce=%d\n", cshim_gpio_backend(), cshim_gpio_library_version(),
           cshim_gpio_kernel_debounce_supported());

    const char *call = NULL;
    cshim_gpio_chip *chip = cshim_gpio_chip_open(path, &call);
    if (!chip) {
        int e = errno;
        printf("chip_open %s: %s failed: %s\n", path, call ? call : "?", strerror(e));
        CHECK(call && strcmp(call, "gpiod_chip_open") == 0, "failed call should be gpiod_chip_open, got %s", call);
        CHECK(e == ENOENT || e == EACCES || e == ENODEV || e == ENOTTY, "unexpected errno %d", e);
        call = NULL;
        cshim_gpio_input *in = cshim_gpio_input_open(path, offset, 1, CSHIM_GPIO_BIAS_PULL_UP, 20000, "check", &call);
        e = errno;
        CHECK(in == NULL, "input_open on a missing chip succeeded");
        printf("input_open %s line %u: %s failed: %s\n", path, offset, call ? call : "?", strerror(e));
        CHECK(call && strcmp(call, "gpiod_chip_open") == 0, "input_open failed call %s", call);
        call = NULL;
        cshim_gpio_output *out = cshim_gpio_output_open(path, offset, 0, 0, "check", &call);
        CHECK(out == NULL, "output_open on a missing chip succeeded");
        CHECK(call && strcmp(call, "gpiod_chip_open") == 0, "output_open failed call %s", call);
        call = NULL;
        chip = cshim_gpio_chip_open("/dev/null", &call);
        printf("chip_open /dev/null: %s (%s)\n", chip ? "opened?!" : strerror(errno), call ? call : "-");
        CHECK(chip == NULL, "/dev/null accepted as a GPIO chip");
        if (chip) cshim_gpio_chip_close(chip);
    } else {
        printf("%s [%s] (%u lines)\n", cshim_gpio_chip_name(chip), cshim_gpio_chip_label(chip), cshim_gpio_chip_num_lines(chip));
        for (unsigned i = 0; i < cshim_gpio_chip_num_lines(chip); i++) {
            char name[64], consumer[64];
            int flags = 0;
            CHECK(cshim_gpio_chip_line_info(chip, i, name, sizeof name, consumer, sizeof consumer, &flags, &call) == 0,
                  "line_info %u", i);
            printf("  line %u: \"%s\" \"%s\" flags=%d\n", i, name, consumer, flags);
        }
        cshim_gpio_chip_close(chip);
        cshim_gpio_input *in = cshim_gpio_input_open(path, offset, 0, CSHIM_GPIO_BIAS_AS_IS, 1000, "check", &call);
        CHECK(in != NULL, "input_open %s %u: %s: %s", path, offset, call, strerror(errno));
        if (in) {
            printf("value=%d fd=%d\n", cshim_gpio_input_get_value(in, &call), cshim_gpio_input_fd(in));
            int want = argc > 4 ? atoi(argv[3]) : 0, got = 0;
            if (want > 0) {
                int fd = open(argv[4], O_CREAT | O_WRONLY, 0644);
                if (fd >= 0) close(fd);
                fflush(stdout);
            }
            int wake = cshim_gpio_wake_fd_open();
            uint64_t previous = 0;
            while (got < want) {
                int line_ready = 0, wake_ready = 0;
                int rc = cshim_gpio_poll(cshim_gpio_input_fd(in), wake, 10000, &line_ready, &wake_ready);
                if (rc < 0 && errno == EINTR) continue;
                if (rc <= 0 || !line_ready) { printf("FAIL: no edge within 10 s (rc=%d)\n", rc); failures++; break; }
                cshim_gpio_edge edges[16];
                int n = cshim_gpio_input_read_edges(in, edges, 16, &call);
                CHECK(n > 0, "read_edges: %s: %s", call, strerror(errno));
                for (int i = 0; i < n && got < want; i++, got++) {
                    printf("edge %d: %s ts=%llu value_now=%d\n", got, edges[i].rising ? "rising" : "falling",
                           (unsigned long long)edges[i].timestamp_ns, cshim_gpio_input_get_value(in, &call));
                    CHECK(edges[i].rising == (got % 2 == 0), "edge %d has the wrong direction", got);
                    CHECK(edges[i].timestamp_ns > previous, "edge %d timestamp not increasing", got);
                    uint64_t now = cshim_gpio_monotonic_ns();
                    CHECK(edges[i].timestamp_ns <= now && now - edges[i].timestamp_ns < 5000000000ull,
                          "edge %d timestamp is not CLOCK_MONOTONIC", got);
                    previous = edges[i].timestamp_ns;
                }
                if (n <= 0) break;
            }
            close(wake);
            cshim_gpio_input_close(in);
        }
    }

    int wake = cshim_gpio_wake_fd_open();
    CHECK(wake >= 0, "eventfd");
    int line_ready = 0, wake_ready = 0;
    int rc = cshim_gpio_poll(-1, wake, 0, &line_ready, &wake_ready);
    CHECK(rc == 0 && !wake_ready, "idle poll rc=%d wake=%d", rc, wake_ready);
    CHECK(cshim_gpio_wake_fd_signal(wake) == 0, "signal");
    rc = cshim_gpio_poll(-1, wake, 1000, &line_ready, &wake_ready);
    CHECK(rc == 1 && wake_ready && !line_ready, "woken poll rc=%d wake=%d", rc, wake_ready);
    cshim_gpio_wake_fd_drain(wake);
    rc = cshim_gpio_poll(-1, wake, 0, &line_ready, &wake_ready);
    CHECK(rc == 0, "drained poll rc=%d", rc);
    close(wake);
    uint64_t a = cshim_gpio_monotonic_ns(), b = cshim_gpio_monotonic_ns();
    CHECK(b >= a && a > 0, "monotonic clock");

    printf(failures ? "gpio-shim-check: %d failure(s)\n" : "gpio-shim-check: ok\n", failures);
    return failures ? 1 : 0;
}
