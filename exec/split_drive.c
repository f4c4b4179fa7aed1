/* hetsched — driving a splitter from one thread per device
 * (exec/split_drive.h). */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exec/data.h"
#include "exec/split_drive.h"

typedef struct span {
    size_t begin, end;
} span;

typedef struct aside_run {
    int device;
    size_t begin, end;
} aside_run;

typedef struct drive {
    const hs_splitter *sp;
    void *st;
    size_t items, accepted;
    span *acc;                    /* accepted chunks, merged now and then */
    size_t nacc, capacc;
    int nomem;                    /* no room to record a chunk */
    size_t twice;                 /* an item accepted twice: index + 1 */
    span *handed;                 /* items handed out so far: sorted, disjoint,
                                     merged where they touch */
    size_t nhanded, caphanded;
    aside_run *aside;             /* accepted chunks that ran aside */
    size_t naside, capaside;
    hs_split_drive_ops ops;
    int drain_failed;             /* 1 + a device whose drain failed */
    int ready, go;                /* threads up; the clock has started */
    void *user;
    struct timespec t0;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    hs_split_drive_stats *stats;
    hs_split_wave_log wave;       /* wavefront mode: when each tile finished */
    int broken;                   /* a chunk broke the wavefront order: all stop */
    hs_error werr;                /* ... and why */
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

static int by_begin(const void *a, const void *b)
{
    const span *x = a, *y = b;
    return x->begin < y->begin ? -1 : x->begin > y->begin;
}

/* Sorts the accepted chunks, remembers the first item accepted twice and
 * merges chunks that touch: a run's chunks mostly tile the items, so few
 * are left. */
static void merge(drive *dr)
{
    size_t n = 0;
    if (dr->nacc == 0) /* acc may be NULL: not for qsort */
        return;
    qsort(dr->acc, dr->nacc, sizeof *dr->acc, by_begin);
    for (size_t i = 0; i < dr->nacc; i++) {
        span x = dr->acc[i];
        if (n && x.begin < dr->acc[n - 1].end && !dr->twice)
            dr->twice = x.begin + 1;
        if (n && x.begin <= dr->acc[n - 1].end) {
            if (x.end > dr->acc[n - 1].end)
                dr->acc[n - 1].end = x.end;
        } else {
            dr->acc[n++] = x;
        }
    }
    dr->nacc = n;
}

/* Records [b, e) accepted, under the mutex, in constant time: marking a
 * bitmap of items after a chunk of 10.8M held a GPU's next chunk up by 0.6
 * ms on an H200 host (bench/split_overhead measures the gap).  The check
 * that no item was accepted twice waits for merge(). */
static void mark(drive *dr, size_t b, size_t e)
{
    if (dr->nacc == dr->capacc) {
        size_t cap = dr->capacc ? 2 * dr->capacc : 256;
        span *p;
        if (dr->nacc >= 4096) { /* many: merge first, grow only if that was little use */
            merge(dr);
            cap = dr->nacc < dr->capacc / 2 ? dr->capacc : cap;
        }
        if (cap != dr->capacc) {
            if (!(p = realloc(dr->acc, cap * sizeof *p))) {
                dr->nomem = 1;
                return;
            }
            dr->acc = p;
            dr->capacc = cap;
        }
    }
    dr->acc[dr->nacc++] = (span){b, e};
}

/* Doubles the room of an array of n items of `size` bytes at *p (cap
 * items) when it is full; -1 when memory runs out. */
static int grow(void **p, size_t *cap, size_t n, size_t size)
{
    size_t c = *cap ? 2 * *cap : 16;
    void *q;
    if (n < *cap)
        return 0;
    if (!(q = realloc(*p, c * size)))
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

/* Adds [b, e) to the spans of items handed out, under the mutex; 1 when
 * some of its items were handed out before (the chunk runs aside), else 0.
 * Chunks mostly come from a pool in order, so the spans merge into few and
 * this costs a binary search.  Out of memory: 1 (aside is always safe) and
 * the drive fails. */
static int hand_out(drive *dr, size_t b, size_t e)
{
    size_t lo = 0, hi = dr->nhanded, j;
    int before = 0;
    span *h;
    while (lo < hi) { /* the first span that ends at or after b */
        size_t mid = lo + (hi - lo) / 2;
        if (dr->handed[mid].end < b)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (j = lo; j < dr->nhanded && dr->handed[j].begin <= e; j++) /* touch or overlap */
        before |= dr->handed[j].begin < e && dr->handed[j].end > b;
    if (j > lo) { /* merge [b, e) with spans lo .. j-1 */
        h = dr->handed;
        h[lo].begin = h[lo].begin < b ? h[lo].begin : b;
        h[lo].end = h[j - 1].end > e ? h[j - 1].end : e;
        memmove(h + lo + 1, h + j, (dr->nhanded - j) * sizeof *h);
        dr->nhanded -= j - lo - 1;
        return before;
    }
    if (grow((void **)&dr->handed, &dr->caphanded, dr->nhanded, sizeof *dr->handed) != 0) {
        dr->nomem = 1;
        return 1;
    }
    h = dr->handed;
    memmove(h + lo + 1, h + lo, (dr->nhanded - lo) * sizeof *h);
    h[lo] = (span){b, e};
    dr->nhanded++;
    return 0;
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
    hs__monotonic_in(&ts, left);
    pthread_cond_timedwait(&dr->cv, &dr->mu, &ts);
}

static void *device_thread(void *arg)
{
    worker *w = arg;
    drive *dr = w->dr;
    int d = w->device;
    pthread_mutex_lock(&dr->mu);
    dr->ready++;
    pthread_cond_broadcast(&dr->cv);
    while (!dr->go)
        pthread_cond_wait(&dr->cv, &dr->mu);
    pthread_mutex_unlock(&dr->mu);
    if (dr->ops.prep) {
        double p0 = since(&dr->t0);
        int rc = dr->ops.prep(dr->user, d);
        dr->stats->prep_us[d] = since(&dr->t0) - p0;
        if (rc != 0) {
            pthread_mutex_lock(&dr->mu);
            dr->stats->failed[d] = 1;
            pthread_cond_broadcast(&dr->cv);
            pthread_mutex_unlock(&dr->mu);
            return NULL;
        }
    }
    pthread_mutex_lock(&dr->mu);
    for (;;) {
        hs_split_grant g = {0, 0, HUGE_VAL};
        hs_split_answer a;
        double t0, t1;
        int rc, ok, aside;
        if (dr->broken) /* a wavefront tile ran too early: everyone stops */
            break;
        a = dr->sp->next(dr->st, d, since(&dr->t0), &g);
        if (a == HS_SPLIT_STOP)
            break;
        if (a == HS_SPLIT_WAIT) {
            wait_until(dr, g.wake_us);
            continue;
        }
        if (hs_split_wave_log_start(&dr->wave, dr->sp->name, g.begin, g.end, since(&dr->t0),
                                    &dr->werr) != HS_OK) {
            dr->broken = 1;
            break;
        }
        aside = hand_out(dr, g.begin, g.end);
        pthread_mutex_unlock(&dr->mu);
        t0 = since(&dr->t0);
        rc = dr->ops.run(dr->user, d, g.begin, g.end, aside);
        t1 = since(&dr->t0);
        pthread_mutex_lock(&dr->mu);
        if (rc != 0) { /* the device stopped answering: never report */
            dr->stats->failed[d] = 1;
            break;
        }
        ok = dr->sp->finished(dr->st, d, g.begin, g.end, t1 - t0, t1);
        dr->stats->busy_us[d] += t1 - t0;
        if (dr->stats->nrecords < dr->stats->max_records)
            dr->stats->records[dr->stats->nrecords++] =
                (hs_split_drive_record){d, g.begin, g.end, t0, t1, ok};
        if (ok && aside) {
            if (grow((void **)&dr->aside, &dr->capaside, dr->naside, sizeof *dr->aside) == 0)
                dr->aside[dr->naside++] = (aside_run){d, g.begin, g.end};
            else
                dr->nomem = 1;
        }
        if (ok) {
            mark(dr, g.begin, g.end);
            hs_split_wave_log_done(&dr->wave, g.begin, g.end, t1);
            dr->accepted += g.end - g.begin;
            dr->stats->items[d] += g.end - g.begin;
            dr->stats->chunks[d]++;
            dr->stats->finish_us[d] = t1;
        } else {
            dr->stats->refused[d]++;
        }
        pthread_cond_broadcast(&dr->cv);
    }
    if (dr->ops.drain && !dr->stats->failed[d]) {
        double t0 = since(&dr->t0), t1;
        int rc;
        pthread_mutex_unlock(&dr->mu);
        rc = dr->ops.drain(dr->user, d);
        t1 = since(&dr->t0);
        pthread_mutex_lock(&dr->mu);
        dr->stats->busy_us[d] += t1 - t0;
        if (dr->stats->chunks[d])
            dr->stats->finish_us[d] = t1;
        if (rc != 0) {
            dr->stats->failed[d] = 1;
            if (!dr->drain_failed)
                dr->drain_failed = d + 1;
        }
    }
    pthread_cond_broadcast(&dr->cv); /* one device fewer: others may stop */
    pthread_mutex_unlock(&dr->mu);
    return NULL;
}

int hs_split_drive(const hs_splitter *sp, const hs_split_kernel *k, const hs_split_device *dev,
                   int ndev, const hs_split_options *opt, hs_split_memory *mem,
                   const hs_split_drive_ops *ops, void *user, hs_split_drive_stats *st,
                   hs_error *err)
{
    hs_split_drive_stats own = {0};
    hs_split_drive_record *records;
    size_t max_records;
    pthread_t tid[HS_SPLIT_MAX_DEVICES];
    worker w[HS_SPLIT_MAX_DEVICES];
    pthread_condattr_t ca;
    drive dr;
    int rc, started = 0;
    if (!st)
        st = &own;
    records = st->records;
    max_records = records ? st->max_records : 0;
    memset(st, 0, sizeof *st);
    st->records = records;
    st->max_records = max_records;
    memset(&dr, 0, sizeof dr);
    if (!sp || !k || !ops || !ops->run)
        return hs_error_set(err, HS_EUSAGE, "split drive: no splitter, kernel or run function");
    if (ndev < 1 || ndev > HS_SPLIT_MAX_DEVICES)
        return hs_error_set(err, HS_EINPUT, "a split needs 1 to %d devices, not %d",
                            HS_SPLIT_MAX_DEVICES, ndev);
    if ((rc = hs_split_wave_log_init(&dr.wave, sp, opt, k->items, err)) != HS_OK)
        return rc;
    if ((rc = sp->start(k, dev, ndev, opt, mem, &dr.st, err)) != HS_OK) {
        hs_split_wave_log_free(&dr.wave);
        return rc;
    }
    dr.sp = sp;
    dr.items = k->items;
    dr.ops = *ops;
    dr.user = user;
    dr.stats = st;
    pthread_mutex_init(&dr.mu, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&dr.cv, &ca);
    pthread_condattr_destroy(&ca);
    for (; started < ndev; started++) {
        w[started] = (worker){&dr, started};
        if (pthread_create(&tid[started], NULL, device_thread, &w[started]) != 0)
            break;
    }
    /* the clock starts once every thread is up: starting one took 0.2 ms
     * on an H200 host, which put the second device of every split that
     * late against a device alone */
    pthread_mutex_lock(&dr.mu);
    while (dr.ready < started)
        pthread_cond_wait(&dr.cv, &dr.mu);
    clock_gettime(CLOCK_MONOTONIC, &dr.t0);
    dr.go = 1;
    pthread_cond_broadcast(&dr.cv);
    pthread_mutex_unlock(&dr.mu);
    for (int i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    merge(&dr);
    if (dr.ops.commit) /* no run writes any more */
        for (size_t i = 0; i < dr.naside; i++)
            dr.ops.commit(user, dr.aside[i].device, dr.aside[i].begin, dr.aside[i].end);
    st->wall_us = since(&dr.t0);
    if (started < ndev)
        rc = hs_error_set(err, HS_EIO, "cannot start the thread of device %s: %s",
                          dev[started].name, strerror(errno));
    else if (dr.drain_failed)
        rc = hs_error_set(err, HS_EIO, "device %s failed while its last results were copied out",
                          dev[dr.drain_failed - 1].name);
    else if (dr.broken)
        rc = hs_error_set(err, HS_EINTERNAL, "%s", dr.werr.msg);
    else if (dr.nomem)
        rc = hs_error_set(err, HS_ENOMEM, "out of memory for the record of the chunks");
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
    free(dr.acc);
    free(dr.handed);
    free(dr.aside);
    hs_split_wave_log_free(&dr.wave);
    return rc;
}
