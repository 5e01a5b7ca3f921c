/*
 * jvpaced: a paced test PCM for jarvis-voice (alsa-lib external "ioplug" plugin).
 *
 * It behaves like a sound card without one: the hardware pointer advances with CLOCK_MONOTONIC,
 * blocking I/O and snd_pcm_wait are paced by a timerfd that fires every period, snd_pcm_delay is
 * real, a late application really underruns (XRUN), and snd_pcm_rewind takes back queued frames that
 * have not played yet. Options (all optional):
 *
 *   pcm.cap { type jvpaced
 *             infile "/abs/in.raw"        # capture: raw S16_LE at the negotiated shape; silence after it
 *             infile_follow 1             # ... and keep reading what is appended to it later (like tail -f)
 *             outfile "/abs/out.raw"      # playback: frames appended as they are played;
 *                                         # capture: frames appended as the application reads them
 *             fail_file "/abs/unplugged"  # while this file exists: open fails, I/O returns -ENODEV
 *             link "room"                 # PCMs with the same link hear each other (acoustic path)
 *             echo_gain 0.5               # capture: + gain * what the linked playback played ...
 *             echo_delay_ms 30            # ... this long before the capture instant
 *             echo_clip 0.25              # ... through a saturating loudspeaker: y = c*tanh(x/c), x in [-1, 1]
 *             echo_highpass_hz 200        # ... and its band limit: 2nd-order Butterworth high-pass
 *             loopback_channel 5          # capture: this channel carries the linked playback itself, as
 *             loopback_gain 0.1           # ... a mic array's hardware loopback does (no delay, no speaker)
 *             timeline "/abs/times.txt"   # playback: when each run's frames play (below)
 *             drift_ppm 0 }               # the device clock runs this much fast (+) or slow (-)
 *
 * drift_ppm moves the hardware pointer (both directions) at rate * (1 + drift_ppm * 1e-6) frames per
 * CLOCK_MONOTONIC second, as a crystal off by that much would; periods, delay, xruns and the link
 * (hence the echo a linked capture hears) all follow that clock.
 *
 * timeline: at every start of a playback run (the first and each one after an xrun or prepare), one
 * line "START_NS OUTFILE_FRAME RATE" is appended: outfile frame OUTFILE_FRAME (frames counted from
 * the start of the outfile) plays at CLOCK_MONOTONIC START_NS, and the run's later frames follow at
 * RATE (the drifted rate) frames per second. The outfile holds only frames that played: frames
 * dropped or rewound before playing are never written, so index <-> time stays exact. Both files
 * are truncated when the PCM is opened.
 *
 * The echo is gain * highpass(softclip(played)), so with echo_clip / echo_highpass_hz it is the
 * non-linear echo of a small loudspeaker: a linear echo canceller cannot remove all of it.
 *   pcm_type.jvpaced { lib "/abs/libasound_module_pcm_jvpaced.so" }   # if not in ALSA's plugin dir
 */
#include <alsa/asoundlib.h>
#include <alsa/pcm_external.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define HISTORY_LEN (192000 * 4)  /* 4 s at the highest rate */

/* The acoustic path between a playback and a capture PCM of the same process. The playback
 * thread writes and the capture thread reads it without locks (like two sides of a sound card);
 * links_lock only guards creating and releasing links. */
struct link {
    char name[64];
    int users;
    _Atomic int playing;          /* playback is running */
    _Atomic int64_t start_ns;     /* when playback frame 0 of this run plays */
    _Atomic double rate;          /* the playback's drifted rate */
    _Atomic int64_t written;      /* frames of this run written so far */
    int16_t *history;             /* mono (channel average), indexed by frame % HISTORY_LEN */
};

static pthread_mutex_t links_lock = PTHREAD_MUTEX_INITIALIZER;
static struct link links[8];

struct paced {
    snd_pcm_ioplug_t io;
    int timer_fd;
    char *fail_file;
    int in_fd;            /* capture source, -1 when none or exhausted */
    int in_follow;        /* at the end of in_fd: silence, but keep it open for appended frames */
    int out_fd;           /* playback sink, or a copy of what capture delivered; -1 when none */
    int timeline_fd;      /* playback: one line per run start; -1 when none */
    int64_t out_frames;   /* playback: frames appended to outfile since open (all runs) */
    struct link *link;
    double echo_gain;
    double echo_delay_ms;
    int loopback_channel;  /* -1: none */
    double loopback_gain;
    double echo_clip;       /* 0: linear */
    double echo_hp_hz;      /* 0: no high-pass */
    double hp_b0, hp_b1, hp_b2, hp_a1, hp_a2;   /* the high-pass biquad at the capture rate */
    double hp_x1, hp_x2, hp_y1, hp_y2;
    double drift_ppm;

    unsigned frame_bytes;
    int64_t start_ns;     /* 0 while not running */
    int64_t app_frames;   /* playback: written by the app; capture: read by the app (this run) */
    int64_t hw_frames;    /* frames the clock has consumed/produced, capped at an xrun */
    int64_t flushed;      /* playback: frames already appended to outfile */
    snd_pcm_uframes_t appl_seen; /* playback: the application pointer app_frames corresponds to */
    int16_t *ring;        /* playback: buffer_size frames of queued audio */
};

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int unplugged(const struct paced *p) {
    return p->fail_file && access(p->fail_file, F_OK) == 0;
}

static double clock_rate(const struct paced *p) {
    return p->io.rate * (1.0 + p->drift_ppm * 1e-6);
}

static int64_t clock_frames(const struct paced *p, int64_t t) {
    if (!p->start_ns) return 0;
    return (int64_t)((double)(t - p->start_ns) * clock_rate(p) / 1e9);
}

static void flush_played(struct paced *p, int64_t upto) {
    int64_t buf = p->io.buffer_size;
    while (p->flushed < upto) {
        int64_t slot = p->flushed % buf;
        int64_t n = upto - p->flushed;
        if (n > buf - slot) n = buf - slot;
        if (p->out_fd >= 0) {
            const char *src = (const char *)(p->ring + slot * p->io.channels);
            size_t len = (size_t)n * p->frame_bytes;
            while (len > 0) {
                ssize_t w = write(p->out_fd, src, len);
                if (w < 0 && errno == EINTR) continue;
                if (w <= 0) break;
                src += w; len -= (size_t)w;
            }
        }
        p->flushed += n;
        p->out_frames += n;
    }
}

/* Playback: brings the played count up to the clock (at most what is queued) so frames that have
 * already played are written before a rewind can take their slots. */
static void catch_up(struct paced *p) {
    if (!p->start_ns) return;
    int64_t clk = clock_frames(p, now_ns());
    p->hw_frames = clk < p->app_frames ? clk : p->app_frames;
    flush_played(p, p->hw_frames);
}

/* Playback: follows snd_pcm_rewind, which moves the application pointer back without telling the
 * plugin. Frames taken back are no longer queued (nor in the link's history); the next transfer
 * replaces them. Anything else (a prepare, a reset) just resynchronizes. */
static void follow_rewind(struct paced *p) {
    if (p->io.stream != SND_PCM_STREAM_PLAYBACK) return;
    snd_pcm_uframes_t appl = p->io.appl_ptr;
    snd_pcm_sframes_t back = (snd_pcm_sframes_t)(p->appl_seen - appl);
    if (back > 0 && back <= p->app_frames) catch_up(p);
    if (back > 0 && back <= p->app_frames - p->hw_frames) {
        p->app_frames -= back;
        if (p->link) p->link->written = p->app_frames;
    }
    p->appl_seen = appl;
}

/* Playback: the timeline line of the run that starts now (one write, so lines never interleave). */
static void log_run_start(struct paced *p) {
    if (p->timeline_fd < 0) return;
    char line[96];
    int n = snprintf(line, sizeof line, "%lld %lld %.9f\n", (long long)p->start_ns, (long long)p->out_frames,
                     clock_rate(p));
    if (n > 0 && n < (int)sizeof line)
        while (write(p->timeline_fd, line, (size_t)n) < 0 && errno == EINTR) {}
}

/* Advances the clock; returns 0, or -EPIPE when the stream just ran into an xrun. */
static int advance(struct paced *p) {
    follow_rewind(p);
    if (!p->start_ns) return 0;
    int64_t clk = clock_frames(p, now_ns());
    if (p->io.stream == SND_PCM_STREAM_PLAYBACK) {
        if (clk > p->app_frames) {          /* ran dry: everything queued has played */
            p->hw_frames = p->app_frames;
            flush_played(p, p->hw_frames);
            return -EPIPE;
        }
        p->hw_frames = clk;
        flush_played(p, clk);
    } else {
        if (clk - p->app_frames > (int64_t)p->io.buffer_size) { /* overrun */
            p->hw_frames = p->app_frames + p->io.buffer_size;
            return -EPIPE;
        }
        p->hw_frames = clk;
    }
    return 0;
}

static int disconnect(struct paced *p) {
    snd_pcm_ioplug_set_state(&p->io, SND_PCM_STATE_DISCONNECTED);
    return -ENODEV;
}

static void arm_timer(struct paced *p, int on) {
    struct itimerspec its;
    memset(&its, 0, sizeof its);
    if (on) {
        int64_t period_ns = (int64_t)((double)p->io.period_size * 1e9 / clock_rate(p)) + 1;
        int64_t first = p->start_ns + period_ns;
        its.it_value.tv_sec = first / 1000000000;
        its.it_value.tv_nsec = first % 1000000000;
        its.it_interval.tv_sec = period_ns / 1000000000;
        its.it_interval.tv_nsec = period_ns % 1000000000;
    }
    timerfd_settime(p->timer_fd, on ? TFD_TIMER_ABSTIME : 0, &its, NULL);
}

/* A prepared, not yet started playback PCM has its whole buffer free: like a kernel PCM, its poll
 * descriptor must say so, or an application that writes only when poll() reports POLLOUT (MPD's
 * non-blocking ALSA output) waits forever for the start it has not yet filled enough to trigger.
 * A one-shot expiry makes the timerfd readable now; poll_revents re-arms it while the PCM waits. */
static void wake_now(struct paced *p) {
    struct itimerspec its;
    memset(&its, 0, sizeof its);
    its.it_value.tv_nsec = 1;
    timerfd_settime(p->timer_fd, 0, &its, NULL);
}

static int paced_start(snd_pcm_ioplug_t *io) {
    struct paced *p = io->private_data;
    if (unplugged(p)) return disconnect(p);
    p->start_ns = now_ns();
    arm_timer(p, 1);
    if (io->stream == SND_PCM_STREAM_PLAYBACK) log_run_start(p);
    if (p->link && io->stream == SND_PCM_STREAM_PLAYBACK) {
        p->link->start_ns = p->start_ns;
        p->link->rate = clock_rate(p);
        p->link->playing = 1;
    }
    return 0;
}

static int paced_stop(snd_pcm_ioplug_t *io) {
    struct paced *p = io->private_data;
    if (io->stream == SND_PCM_STREAM_PLAYBACK && p->start_ns) {
        advance(p);
        if (p->link) p->link->playing = 0;
    }
    p->start_ns = 0;
    arm_timer(p, 0);
    return 0;
}

static snd_pcm_sframes_t paced_pointer(snd_pcm_ioplug_t *io) {
    struct paced *p = io->private_data;
    if (unplugged(p)) {
        disconnect(p);
        return (snd_pcm_sframes_t)(p->hw_frames % io->buffer_size);
    }
    if (advance(p) < 0) return -EPIPE;
    return (snd_pcm_sframes_t)(p->hw_frames % io->buffer_size);
}

/* What the linked playback played `delay_ms` before capture frame `frame` (0 before it started). */
static int16_t played_sample(struct paced *p, int64_t frame, double delay_ms) {
    struct link *l = p->link;
    if (!l || !l->playing) return 0;
    double t = (double)p->start_ns + (double)frame * 1e9 / clock_rate(p) - delay_ms * 1e6;
    double k = (t - (double)l->start_ns) * l->rate / 1e9;
    if (k < 0) return 0;
    int64_t i = (int64_t)(k + 0.5);
    int64_t written = l->written;
    if (i >= written || i < written - HISTORY_LEN / 2) return 0;
    return l->history[i % HISTORY_LEN];
}

static int16_t echo_sample(struct paced *p, int64_t frame) {
    return p->echo_gain == 0.0 ? 0 : played_sample(p, frame, p->echo_delay_ms);
}

/* The loudspeaker: saturation, then its band limit (one sample, in order). */
static double shape_echo(struct paced *p, double x) {
    if (p->echo_clip > 0.0) x = p->echo_clip * tanh(x / p->echo_clip);
    if (p->echo_hp_hz > 0.0) {
        double y = p->hp_b0 * x + p->hp_b1 * p->hp_x1 + p->hp_b2 * p->hp_x2 - p->hp_a1 * p->hp_y1 - p->hp_a2 * p->hp_y2;
        p->hp_x2 = p->hp_x1; p->hp_x1 = x;
        p->hp_y2 = p->hp_y1; p->hp_y1 = y;
        x = y;
    }
    return x;
}

static void design_highpass(struct paced *p) {
    p->hp_x1 = p->hp_x2 = p->hp_y1 = p->hp_y2 = 0;
    if (p->echo_hp_hz <= 0.0 || !p->io.rate) return;
    /* RBJ cookbook high-pass, Q = 1/sqrt(2) (Butterworth). */
    double w = 2 * M_PI * p->echo_hp_hz / p->io.rate, alpha = sin(w) / (2 * M_SQRT1_2), c = cos(w);
    double a0 = 1 + alpha;
    p->hp_b0 = (1 + c) / 2 / a0;
    p->hp_b1 = -(1 + c) / a0;
    p->hp_b2 = (1 + c) / 2 / a0;
    p->hp_a1 = -2 * c / a0;
    p->hp_a2 = (1 - alpha) / a0;
}

static snd_pcm_sframes_t paced_transfer(snd_pcm_ioplug_t *io, const snd_pcm_channel_area_t *areas,
                                        snd_pcm_uframes_t offset, snd_pcm_uframes_t size) {
    struct paced *p = io->private_data;
    if (unplugged(p)) return disconnect(p);
    int16_t *buf = (int16_t *)((char *)areas[0].addr + (areas[0].first + areas[0].step * offset) / 8);
    unsigned ch = io->channels;

    if (io->stream == SND_PCM_STREAM_PLAYBACK) {
        follow_rewind(p);
        int64_t bufsize = io->buffer_size;
        for (snd_pcm_uframes_t f = 0; f < size; f++) {
            int64_t slot = (p->app_frames + (int64_t)f) % bufsize;
            memcpy(p->ring + slot * ch, buf + f * ch, p->frame_bytes);
        }
        if (p->link) {
            struct link *l = p->link;
            for (snd_pcm_uframes_t f = 0; f < size; f++) {
                int32_t sum = 0;
                for (unsigned c = 0; c < ch; c++) sum += buf[f * ch + c];
                l->history[(p->app_frames + (int64_t)f) % HISTORY_LEN] = (int16_t)(sum / (int32_t)ch);
            }
            l->written = p->app_frames + (int64_t)size;
        }
    } else {
        size_t bytes = (size_t)size * p->frame_bytes;
        size_t got = 0;
        while (p->in_fd >= 0 && got < bytes) {
            ssize_t r = read(p->in_fd, (char *)buf + got, bytes - got);
            if (r < 0 && errno == EINTR) continue;
            if (r == 0 && p->in_follow) {
                /* Only whole frames: a half-appended frame is read next period. */
                size_t partial = got % p->frame_bytes;
                if (partial) { lseek(p->in_fd, -(off_t)partial, SEEK_CUR); got -= partial; }
                break;
            }
            if (r <= 0) { close(p->in_fd); p->in_fd = -1; break; }
            got += (size_t)r;
        }
        memset((char *)buf + got, 0, bytes - got);
        int loop = p->loopback_channel >= 0 && (unsigned)p->loopback_channel < ch ? p->loopback_channel : -1;
        if (p->link && (p->echo_gain != 0.0 || loop >= 0)) {
            for (snd_pcm_uframes_t f = 0; f < size; f++) {
                int64_t frame = p->app_frames + (int64_t)f;
                double e = p->echo_gain == 0.0 ? 0.0
                    : p->echo_gain * 32768.0 * shape_echo(p, echo_sample(p, frame) / 32768.0);
                for (unsigned c = 0; c < ch; c++) {
                    double v = (int)c == loop ? p->loopback_gain * played_sample(p, frame, 0) : buf[f * ch + c] + e;
                    buf[f * ch + c] = (int16_t)(v > 32767 ? 32767 : v < -32768 ? -32768 : v);
                }
            }
        }
        if (p->out_fd >= 0) {
            const char *src = (const char *)buf;
            size_t len = bytes;
            while (len > 0) {
                ssize_t w = write(p->out_fd, src, len);
                if (w < 0 && errno == EINTR) continue;
                if (w <= 0) { close(p->out_fd); p->out_fd = -1; break; }
                src += w;
                len -= (size_t)w;
            }
        }
    }
    p->app_frames += (int64_t)size;
    p->appl_seen = io->appl_ptr + size;  /* alsa-lib moves the pointer on after this returns */
    return (snd_pcm_sframes_t)size;
}

static int paced_prepare(snd_pcm_ioplug_t *io) {
    struct paced *p = io->private_data;
    if (unplugged(p)) return disconnect(p);
    paced_stop(io);
    p->app_frames = p->hw_frames = p->flushed = 0;
    if (p->link && io->stream == SND_PCM_STREAM_PLAYBACK) p->link->written = 0;
    if (io->stream == SND_PCM_STREAM_PLAYBACK) wake_now(p);
    return 0;
}

static int paced_hw_params(snd_pcm_ioplug_t *io, snd_pcm_hw_params_t *params) {
    (void)params;
    struct paced *p = io->private_data;
    p->frame_bytes = io->channels * 2;
    free(p->ring);
    p->ring = calloc(io->buffer_size, p->frame_bytes);
    if (!p->ring) return -ENOMEM;
    if (p->link && io->stream == SND_PCM_STREAM_PLAYBACK) p->link->written = 0;
    if (io->stream == SND_PCM_STREAM_CAPTURE) design_highpass(p);
    return 0;
}

static int paced_delay(snd_pcm_ioplug_t *io, snd_pcm_sframes_t *delayp) {
    struct paced *p = io->private_data;
    if (unplugged(p)) return disconnect(p);
    if (advance(p) < 0) {
        snd_pcm_ioplug_set_state(io, SND_PCM_STATE_XRUN);
        return -EPIPE;
    }
    if (io->stream == SND_PCM_STREAM_PLAYBACK)
        *delayp = (snd_pcm_sframes_t)(p->app_frames - p->hw_frames);
    else
        *delayp = (snd_pcm_sframes_t)(p->hw_frames - p->app_frames);
    return 0;
}

static int paced_poll_revents(snd_pcm_ioplug_t *io, struct pollfd *pfd, unsigned int nfds,
                              unsigned short *revents) {
    struct paced *p = io->private_data;
    (void)nfds;
    if (pfd[0].revents & POLLIN) {
        uint64_t ticks;
        while (read(p->timer_fd, &ticks, sizeof ticks) < 0 && errno == EINTR) {}
    }
    *revents = 0;
    if (unplugged(p)) { disconnect(p); *revents = POLLERR; return 0; }
    if (advance(p) < 0) {
        snd_pcm_ioplug_set_state(io, SND_PCM_STATE_XRUN);
        *revents = POLLERR;
        return 0;
    }
    int64_t avail = io->stream == SND_PCM_STREAM_PLAYBACK
        ? (int64_t)io->buffer_size - (p->app_frames - p->hw_frames)
        : p->hw_frames - p->app_frames;
    /* Like the kernel's min(remaining, avail_min): an application that took a partial period
     * (the pointer is frame-accurate) is woken as soon as it can complete that period. */
    int64_t need = (int64_t)io->period_size - p->app_frames % (int64_t)io->period_size;
    if (avail >= need) {
        *revents = io->stream == SND_PCM_STREAM_PLAYBACK ? POLLOUT : POLLIN;
        if (!p->start_ns && io->stream == SND_PCM_STREAM_PLAYBACK) wake_now(p);
    }
    return 0;
}

static void release_link(struct link *l) {
    if (!l) return;
    pthread_mutex_lock(&links_lock);
    if (--l->users == 0) {
        free(l->history);
        l->history = NULL;
        l->name[0] = 0;
        l->playing = 0;
        l->written = 0;
    }
    pthread_mutex_unlock(&links_lock);
}

static int paced_close(snd_pcm_ioplug_t *io) {
    struct paced *p = io->private_data;
    if (p->in_fd >= 0) close(p->in_fd);
    if (p->out_fd >= 0) close(p->out_fd);
    if (p->timeline_fd >= 0) close(p->timeline_fd);
    if (p->timer_fd >= 0) close(p->timer_fd);
    release_link(p->link);
    free(p->ring);
    free(p->fail_file);
    free(p);
    return 0;
}

static const snd_pcm_ioplug_callback_t paced_callbacks = {
    .start = paced_start,
    .stop = paced_stop,
    .pointer = paced_pointer,
    .transfer = paced_transfer,
    .close = paced_close,
    .hw_params = paced_hw_params,
    .prepare = paced_prepare,
    .poll_revents = paced_poll_revents,
    .delay = paced_delay,
};

static struct link *acquire_link(const char *name) {
    struct link *found = NULL;
    pthread_mutex_lock(&links_lock);
    for (size_t i = 0; i < sizeof links / sizeof links[0] && !found; i++)
        if (links[i].users && strcmp(links[i].name, name) == 0) found = &links[i];
    for (size_t i = 0; i < sizeof links / sizeof links[0] && !found; i++)
        if (!links[i].users && (links[i].history = calloc(HISTORY_LEN, sizeof(int16_t)))) {
            found = &links[i];
            snprintf(found->name, sizeof found->name, "%s", name);
        }
    if (found) found->users++;
    pthread_mutex_unlock(&links_lock);
    return found;
}

static int get_number(snd_config_t *n, double *out) {
    double d;
    if (snd_config_get_ireal(n, &d) < 0) return -EINVAL;
    *out = d;
    return 0;
}

SND_PCM_PLUGIN_DEFINE_FUNC(jvpaced) {
    (void)root;
    const char *infile = NULL, *outfile = NULL, *fail_file = NULL, *link = NULL, *timeline = NULL;
    double echo_gain = 0, echo_delay_ms = 0, drift_ppm = 0, infile_follow = 0, echo_clip = 0, echo_hp_hz = 0;
    double loopback_channel = -1, loopback_gain = 1;
    snd_config_iterator_t i, next;
    snd_config_for_each(i, next, conf) {
        snd_config_t *n = snd_config_iterator_entry(i);
        const char *id;
        if (snd_config_get_id(n, &id) < 0) continue;
        if (!strcmp(id, "comment") || !strcmp(id, "type") || !strcmp(id, "hint")) continue;
        int err = 0;
        if (!strcmp(id, "infile")) err = snd_config_get_string(n, &infile);
        else if (!strcmp(id, "outfile")) err = snd_config_get_string(n, &outfile);
        else if (!strcmp(id, "timeline")) err = snd_config_get_string(n, &timeline);
        else if (!strcmp(id, "fail_file")) err = snd_config_get_string(n, &fail_file);
        else if (!strcmp(id, "link")) err = snd_config_get_string(n, &link);
        else if (!strcmp(id, "echo_gain")) err = get_number(n, &echo_gain);
        else if (!strcmp(id, "echo_delay_ms")) err = get_number(n, &echo_delay_ms);
        else if (!strcmp(id, "drift_ppm")) err = get_number(n, &drift_ppm);
        else if (!strcmp(id, "echo_clip")) err = get_number(n, &echo_clip);
        else if (!strcmp(id, "echo_highpass_hz")) err = get_number(n, &echo_hp_hz);
        else if (!strcmp(id, "infile_follow")) err = get_number(n, &infile_follow);
        else if (!strcmp(id, "loopback_channel")) err = get_number(n, &loopback_channel);
        else if (!strcmp(id, "loopback_gain")) err = get_number(n, &loopback_gain);
        else { SNDERR("jvpaced: unknown field %s", id); return -EINVAL; }
        if (err < 0) { SNDERR("jvpaced: invalid value for %s", id); return -EINVAL; }
    }
    if (fail_file && access(fail_file, F_OK) == 0) return -ENODEV;

    struct paced *p = calloc(1, sizeof *p);
    if (!p) return -ENOMEM;
    p->io.private_data = p;
    p->in_fd = p->out_fd = p->timeline_fd = p->timer_fd = -1;
    p->echo_gain = echo_gain;
    p->echo_delay_ms = echo_delay_ms;
    p->loopback_channel = loopback_channel >= 0 && loopback_channel < 64 ? (int)loopback_channel : -1;
    p->loopback_gain = loopback_gain;
    p->echo_clip = echo_clip < 0 ? 0 : echo_clip;
    p->echo_hp_hz = echo_hp_hz < 0 ? 0 : echo_hp_hz;
    p->drift_ppm = drift_ppm;
    p->in_follow = infile_follow != 0;
    p->fail_file = fail_file ? strdup(fail_file) : NULL;
    int err = 0;
    if (stream == SND_PCM_STREAM_CAPTURE && infile) {
        p->in_fd = open(infile, O_RDONLY | O_CLOEXEC);
        if (p->in_fd < 0) err = -errno;
    }
    if (!err && outfile) {
        p->out_fd = open(outfile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (p->out_fd < 0) err = -errno;
    }
    if (!err && timeline && stream == SND_PCM_STREAM_PLAYBACK) {
        p->timeline_fd = open(timeline, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
        if (p->timeline_fd < 0) err = -errno;
    }
    p->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (!err && p->timer_fd < 0) err = -errno;
    if (!err && link && !(p->link = acquire_link(link))) err = -ENOSPC;
    if (err) { paced_close(&p->io); return err; }

    p->io.version = SND_PCM_IOPLUG_VERSION;
    p->io.name = "jarvis-voice paced test PCM";
    p->io.callback = &paced_callbacks;
    p->io.private_data = p;
    p->io.poll_fd = p->timer_fd;
    p->io.poll_events = POLLIN;
    p->io.mmap_rw = 0;
    /* p->io is set up before create so that close() can run from here on through alsa-lib. */
    err = snd_pcm_ioplug_create(&p->io, name, stream, mode);
    if (err < 0) { paced_close(&p->io); return err; }

    static const unsigned access_list[] = { SND_PCM_ACCESS_RW_INTERLEAVED };
    static const unsigned format_list[] = { SND_PCM_FORMAT_S16_LE };
    if ((err = snd_pcm_ioplug_set_param_list(&p->io, SND_PCM_IOPLUG_HW_ACCESS, 1, access_list)) < 0 ||
        (err = snd_pcm_ioplug_set_param_list(&p->io, SND_PCM_IOPLUG_HW_FORMAT, 1, format_list)) < 0 ||
        (err = snd_pcm_ioplug_set_param_minmax(&p->io, SND_PCM_IOPLUG_HW_CHANNELS, 1, 32)) < 0 ||
        (err = snd_pcm_ioplug_set_param_minmax(&p->io, SND_PCM_IOPLUG_HW_RATE, 8000, 192000)) < 0 ||
        (err = snd_pcm_ioplug_set_param_minmax(&p->io, SND_PCM_IOPLUG_HW_PERIOD_BYTES, 64, 1 << 20)) < 0 ||
        (err = snd_pcm_ioplug_set_param_minmax(&p->io, SND_PCM_IOPLUG_HW_PERIODS, 2, 64)) < 0) {
        snd_pcm_ioplug_delete(&p->io);
        return err;
    }
    *pcmp = p->io.pcm;
    return 0;
}

SND_PCM_PLUGIN_SYMBOL(jvpaced);
