/* hetsched — driving a splitter from one thread per device
 * (exec/split_drive.h). */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exec/split_drive.h"

typedef struct drive {
    const hs_splitter *sp;
    void *st;
    size_t items, accepted;
    uint64_t *done;               /* accepted items */
    size_t twice;                 /* an item accepted twice: index + 1 */
    hs_split_run_fn run;
    void *user;
    struct timespec t0;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    hs_split_drive_stats *stats;
} drive;

typedef struct worker {
    drive *dr;
    int device;
} worker;

static double since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) * 1e6 + (double)(t.tv_nsec - t0->tv_nsec) / 1e3;
}

/* Marks [b, e) accepted (under the mutex); remembers the first item seen
 * twice. */
static void mark(drive *dr, size_t b, size_t e)
{
    for (size_t i = b; i < e; i++) {
        uint64_t bit = (uint64_t)1 << (i % 64);
        if ((dr->done[i / 64] & bit) && !dr->twice)
            dr->twice = i + 1;
        dr->done[i / 64] |= bit;
    }
}

/* Sleeps on the condition variable until a report, or until wake_us. */
static void wait_until(drive *dr, double wake_us)
{
    struct timespec ts;
    double left;
    if (!isfinite(wake_us)) {
        pthread_cond_wait(&dr->cv, &dr->mu);
        return;
    }
    left = wake_us - since(&dr->t0);
    if (left <= 0)
        return;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_sec += (time_t)(left / 1e6);
    ts.tv_nsec += (long)fmod(left * 1e3, 1e9);
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&dr->cv, &dr->mu, &ts);
}

static void *device_thread(void *arg)
{
    worker *w = arg;
    drive *dr = w->dr;
    int d = w->device;
    pthread_mutex_lock(&dr->mu);
    for (;;) {
        hs_split_grant g = {0, 0, HUGE_VAL};
        hs_split_answer a = dr->sp->next(dr->st, d, since(&dr->t0), &g);
        double t0, t1;
        int rc;
        if (a == HS_SPLIT_STOP)
            break;
        if (a == HS_SPLIT_WAIT) {
            wait_until(dr, g.wake_us);
            continue;
        }
        pthread_mutex_unlock(&dr->mu);
        t0 = since(&dr->t0);
        rc = dr->run(dr->user, d, g.begin, g.end);
        t1 = since(&dr->t0);
        pthread_mutex_lock(&dr->mu);
        if (rc != 0) { /* the device stopped answering: never report */
            dr->stats->failed[d] = 1;
            break;
        }
        if (dr->sp->finished(dr->st, d, g.begin, g.end, t1 - t0, t1)) {
            mark(dr, g.begin, g.end);
            dr->accepted += g.end - g.begin;
            dr->stats->items[d] += g.end - g.begin;
            dr->stats->chunks[d]++;
        } else {
            dr->stats->refused[d]++;
        }
        pthread_cond_broadcast(&dr->cv);
    }
    pthread_cond_broadcast(&dr->cv); /* one device fewer: others may stop */
    pthread_mutex_unlock(&dr->mu);
    return NULL;
}

int hs_split_drive(const hs_splitter *sp, const hs_split_kernel *k, const hs_split_device *dev,
                   int ndev, const hs_split_options *opt, hs_split_memory *mem,
                   hs_split_run_fn run, void *user, hs_split_drive_stats *st, hs_error *err)
{
    hs_split_drive_stats own;
    pthread_t tid[HS_SPLIT_MAX_DEVICES];
    worker w[HS_SPLIT_MAX_DEVICES];
    pthread_condattr_t ca;
    drive dr;
    int rc, started = 0;
    if (!st)
        st = &own;
    memset(st, 0, sizeof *st);
    memset(&dr, 0, sizeof dr);
    if (!sp || !k || !run)
        return hs_error_set(err, HS_EUSAGE, "split drive: no splitter, kernel or run function");
    if (ndev < 1 || ndev > HS_SPLIT_MAX_DEVICES)
        return hs_error_set(err, HS_EINPUT, "a split needs 1 to %d devices, not %d",
                            HS_SPLIT_MAX_DEVICES, ndev);
    if (!(dr.done = calloc((k->items + 63) / 64 + 1, sizeof *dr.done)))
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    if ((rc = sp->start(k, dev, ndev, opt, mem, &dr.st, err)) != HS_OK) {
        free(dr.done);
        return rc;
    }
    dr.sp = sp;
    dr.items = k->items;
    dr.run = run;
    dr.user = user;
    dr.stats = st;
    pthread_mutex_init(&dr.mu, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&dr.cv, &ca);
    pthread_condattr_destroy(&ca);
    clock_gettime(CLOCK_MONOTONIC, &dr.t0);
    for (; started < ndev; started++) {
        w[started] = (worker){&dr, started};
        if (pthread_create(&tid[started], NULL, device_thread, &w[started]) != 0)
            break;
    }
    for (int i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    st->wall_us = since(&dr.t0);
    if (started < ndev)
        rc = hs_error_set(err, HS_EIO, "cannot start the thread of device %s: %s",
                          dev[started].name, strerror(errno));
    else if (dr.twice)
        rc = hs_error_set(err, HS_EINTERNAL, "splitter '%s' had item %zu finished twice",
                          sp->name, dr.twice - 1);
    else if (dr.accepted != dr.items)
        rc = hs_error_set(err, HS_EINTERNAL,
                          "splitter '%s' stopped every device with %zu of %zu items unfinished",
                          sp->name, dr.items - dr.accepted, dr.items);
    else if (mem && sp->learn)
        sp->learn(dr.st, mem);
    sp->fini(dr.st);
    pthread_cond_destroy(&dr.cv);
    pthread_mutex_destroy(&dr.mu);
    free(dr.done);
    return rc;
}
