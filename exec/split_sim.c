/* hetsched — the chunk simulator (hetsched/split.h). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "exec/queue.h"
#include "mapper/split.h"
#include "hetsched/graph.h"

/* A WAIT answer that keeps a device asking at the same instant this often
 * is a splitter spinning. */
#define SPIN_LIMIT 1000

enum { EV_END = 0, EV_WAKE = 1 };
enum { ST_ASK, ST_BUSY, ST_WAIT, ST_STOP, ST_DEAD };

/* --------------------------------------------------------------- the model */

/* One-way transfer of `bytes` over d's link (DESIGN §1, hs_transfer_us),
 * 0 for a device that computes from host memory. */
static double link_us(const hs_split_sim_device *v, int to_device, double bytes)
{
    hs_link links[4] = {{0}};
    hs_platform p = {.nmemories = 2, .links = links};
    if (!(v->bandwidth_gbps > 0))
        return 0;
    links[1] = links[2] = (hs_link){.present = 1, .bandwidth_gbps = v->bandwidth_gbps,
                                    .latency_us = v->latency_us};
    return to_device ? hs_transfer_us(&p, HS_HOST_MEMORY, 1, bytes)
                     : hs_transfer_us(&p, 1, HS_HOST_MEMORY, bytes);
}

/* End of `dur` µs of computing at full clock started at c0, on a device
 * whose computing takes `throttle` times longer from throttle_at_us on. */
static double compute_end(const hs_split_sim_device *v, double c0, double dur)
{
    double f = v->throttle > 0 ? v->throttle : 1, t = v->throttle_at_us;
    if (f == 1 || c0 + dur <= t)
        return c0 + dur;
    if (c0 >= t)
        return c0 + dur * f;
    return t + (dur - (t - c0)) * f;
}

static double work_of(const hs_split_sim *sim, size_t b, size_t e)
{
    return sim->work ? sim->work(sim->work_ctx, b, e) : (double)(e - b);
}

/* Duration of [b, e) on d from start, computing `scale` times its nominal. */
static double chunk_us(const hs_split_sim *sim, int d, size_t b, size_t e, double start,
                       double scale)
{
    const hs_split_sim_device *v = &sim->dev[d];
    double n = (double)(e - b);
    double c0 = start + v->overhead_us + link_us(v, 1, n * sim->in_bytes);
    double c1 = compute_end(v, c0, work_of(sim, b, e) / v->items_per_us * scale);
    return c1 + link_us(v, 0, n * sim->out_bytes) - start;
}

double hs_split_sim_chunk_us(const hs_split_sim *sim, int d, size_t b, size_t e,
                             double start_us)
{
    return chunk_us(sim, d, b, e, start_us, 1.0);
}

double hs_split_sim_static_us(const hs_split_sim *sim, const int *pct)
{
    size_t b = 0, n = sim->items;
    double worst = 0;
    int cum = 0;
    for (int d = 0; d < sim->ndevices; d++) {
        size_t e = d == sim->ndevices - 1 ? n : (size_t)llround((cum += pct[d]) / 100.0 * n);
        if (e > b) {
            double t = hs_split_sim_chunk_us(sim, d, b, e, 0);
            if (sim->dev[d].fails && t > sim->dev[d].fail_at_us)
                return HUGE_VAL;
            worst = t > worst ? t : worst;
        }
        b = e;
    }
    return worst;
}

long hs_split_sim_static_count(int k)
{
    long c = 1;
    for (int i = 1; i < k; i++)
        c = c * (100 + i) / i;
    return c;
}

typedef struct static_search {
    const hs_split_sim *sim;
    const volatile sig_atomic_t *stop;
    int pct[HS_SPLIT_MAX_DEVICES];
    int *best;
    double *best_us;
    long *tried;
} static_search;

/* Tries every way of giving devices d.. the `left` percent that remain. */
static void search_static(static_search *s, int d, int left)
{
    if (s->stop && *s->stop)
        return;
    if (d == s->sim->ndevices - 1) {
        double t;
        s->pct[d] = left;
        (*s->tried)++;
        if ((t = hs_split_sim_static_us(s->sim, s->pct)) < *s->best_us) {
            *s->best_us = t;
            memcpy(s->best, s->pct, (size_t)s->sim->ndevices * sizeof *s->pct);
        }
        return;
    }
    for (int p = 0; p <= left; p++) {
        s->pct[d] = p;
        search_static(s, d + 1, left - p);
    }
}

int hs_split_sim_best_static(const hs_split_sim *sim, const volatile sig_atomic_t *stop,
                             int *best, double *best_us, long *tried, hs_error *err)
{
    static_search s = {.sim = sim, .stop = stop, .best = best, .best_us = best_us,
                       .tried = tried};
    *best_us = HUGE_VAL;
    *tried = 0;
    if (sim->ndevices < 1 || sim->ndevices > 4)
        return hs_error_set(err, HS_EINPUT, "best static split: not searched beyond 4 devices");
    search_static(&s, 0, 100);
    return HS_OK;
}

void hs_split_sim_devices(const hs_split_sim *sim, hs_split_device *dev)
{
    for (int d = 0; d < sim->ndevices; d++) {
        const hs_split_sim_device *v = &sim->dev[d];
        double per_item = 1 / v->items_per_us, fixed = v->overhead_us;
        if (v->bandwidth_gbps > 0) {
            per_item += (sim->in_bytes + sim->out_bytes) / (v->bandwidth_gbps * 1000.0);
            fixed += 2 * v->latency_us;
        }
        dev[d] = (hs_split_device){
            .name = v->name,
            .kind = v->kind,
            .width = v->width ? v->width : 1,
            .cores = v->cores,
            .rate_hint = sim->no_hints ? 0 : 1 / per_item,
            .overhead_hint_us = sim->no_hints ? 0 : fixed,
        };
    }
}

static int bad(double x)
{
    return !isfinite(x) || x < 0;
}

/* Refuses a sim the model cannot run, before anything is allocated. */
static int check_sim(const hs_split_sim *sim, hs_error *err)
{
    if (sim->items < 1 || sim->items > HS_SPLIT_SIM_MAX_ITEMS)
        return hs_error_set(err, HS_EINPUT, "items must be in 1..%zu, not %zu",
                            HS_SPLIT_SIM_MAX_ITEMS, sim->items);
    if (sim->ndevices < 1 || sim->ndevices > HS_SPLIT_MAX_DEVICES)
        return hs_error_set(err, HS_EINPUT, "a split needs 1 to %d devices, not %d",
                            HS_SPLIT_MAX_DEVICES, sim->ndevices);
    if (bad(sim->in_bytes) || bad(sim->out_bytes))
        return hs_error_set(err, HS_EINPUT, "bytes per item must be finite numbers >= 0");
    if (bad(sim->noise) || sim->noise > 0.9)
        return hs_error_set(err, HS_EINPUT, "noise must be in [0, 0.9], not %g", sim->noise);
    for (int d = 0; d < sim->ndevices; d++) {
        const hs_split_sim_device *v = &sim->dev[d];
        if (!v->name || !v->name[0])
            return hs_error_set(err, HS_EINPUT, "device %d has no name", d);
        for (int e = 0; e < d; e++)
            if (strcmp(sim->dev[e].name, v->name) == 0)
                return hs_error_set(err, HS_EINPUT, "device '%s' given twice", v->name);
        if (!(v->items_per_us > 0) || !isfinite(v->items_per_us))
            return hs_error_set(err, HS_EINPUT, "device '%s': items per µs must be > 0",
                                v->name);
        if (bad(v->overhead_us) || bad(v->bandwidth_gbps) || bad(v->latency_us))
            return hs_error_set(err, HS_EINPUT,
                                "device '%s': overhead, bandwidth and latency must be >= 0",
                                v->name);
        if (bad(v->throttle_at_us) || bad(v->throttle) ||
            (v->throttle != 0 && !(v->throttle > 0)))
            return hs_error_set(err, HS_EINPUT,
                                "device '%s': throttle needs a time >= 0 and a factor > 0",
                                v->name);
        if (v->fails && bad(v->fail_at_us))
            return hs_error_set(err, HS_EINPUT, "device '%s': failure time must be >= 0",
                                v->name);
    }
    return HS_OK;
}

/* ----------------------------------------------------------------- the run */

typedef struct simdev {
    int state;
    size_t b, e;              /* chunk in flight */
    double start, end;
    double ev_time[2];        /* live event of each kind, NAN when none */
    int spins;
    double spin_at;
} simdev;

typedef struct run {
    const hs_split_sim *sim;
    const hs_splitter *sp;
    void *st;
    hs_split_result *res;
    hs__heap events;
    simdev d[HS_SPLIT_MAX_DEVICES];
    uint64_t *done;           /* bitmap of accepted items */
    gsl_rng *rng;
    hs_split_wave_log wave;   /* wavefront mode: when each tile finished */
} run;

static int nomem(hs_error *err)
{
    return hs_error_set(err, HS_ENOMEM, "out of memory");
}

static void record(run *r, int d, size_t b, size_t e, double s, double t, hs_chunk_fate fate)
{
    hs_split_result *res = r->res;
    if (res->nrecords >= r->sim->max_records) {
        res->records_truncated |= r->sim->max_records > 0;
        return;
    }
    res->records[res->nrecords++] = (hs_split_record){d, b, e, s, t, fate};
}

static int push(run *r, int d, int kind, double t, hs_error *err)
{
    r->d[d].ev_time[kind] = t;
    if (hs__heap_push(&r->events, t, (double)d, (size_t)d * 2 + (size_t)kind) != 0)
        return nomem(err);
    return HS_OK;
}

/* Sets bits [b, e) of a bitmap of items; 0, or 1 + the first item that was
 * set already.  (Virtual time: its cost per chunk does not show, unlike in
 * the driver, which keeps merged spans.) */
static size_t bits_mark(uint64_t *bits, size_t b, size_t e)
{
    size_t twice = 0;
    for (size_t i = b; i < e;) {
        uint64_t *w = &bits[i / 64], m;
        size_t lo = i % 64, hi = (e - i + lo) < 64 ? e - i + lo : 64;
        m = (hi == 64 ? ~(uint64_t)0 : (((uint64_t)1 << hi) - 1)) & ~(((uint64_t)1 << lo) - 1);
        if ((*w & m) && !twice) {
            size_t k = i;
            while (!(*w & ((uint64_t)1 << (k % 64))))
                k++;
            twice = k + 1;
        }
        *w |= m;
        i += hi - lo;
    }
    return twice;
}

/* Marks [b, e) finished; HS_EINTERNAL naming the first item already marked. */
static int mark(run *r, size_t b, size_t e, hs_error *err)
{
    size_t twice = bits_mark(r->done, b, e);
    if (twice)
        return hs_error_set(err, HS_EINTERNAL, "splitter '%s' had item %zu finished twice",
                            r->sp->name, twice - 1);
    return HS_OK;
}

/* Device d asks for work at `now` and gets it started, told to wait, or
 * stopped. */
static int ask(run *r, int d, double now, hs_error *err)
{
    const hs_split_sim *sim = r->sim;
    const hs_split_sim_device *v = &sim->dev[d];
    simdev *x = &r->d[d];
    hs_split_grant g = {0, 0, HUGE_VAL};
    hs_split_answer a;
    int rc;
    if (v->fails && now >= v->fail_at_us) {
        x->state = ST_DEAD;
        return HS_OK;
    }
    r->res->asks++;
    a = r->sp->next(r->st, d, now, &g);
    if (a == HS_SPLIT_STOP) {
        x->state = ST_STOP;
        return HS_OK;
    }
    if (a == HS_SPLIT_WAIT) {
        x->state = ST_WAIT;
        if (x->spin_at != now) {
            x->spin_at = now;
            x->spins = 0;
        }
        if (!(g.wake_us > now) && ++x->spins > SPIN_LIMIT)
            return hs_error_set(err, HS_EINTERNAL,
                                "splitter '%s' keeps telling %s to wait without progress",
                                r->sp->name, v->name);
        if (isfinite(g.wake_us))
            return push(r, d, EV_WAKE, g.wake_us > now ? g.wake_us : now, err);
        return HS_OK;
    }
    if (a != HS_SPLIT_CHUNK || g.begin >= g.end || g.end > sim->items)
        return hs_error_set(err, HS_EINTERNAL, "splitter '%s' gave %s a bad chunk [%zu, %zu)",
                            r->sp->name, v->name, g.begin, g.end);
    rc = hs_split_wave_log_start(&r->wave, r->sp->name, g.begin, g.end, now, err);
    if (rc != HS_OK)
        return rc;
    x->spins = 0;
    x->b = g.begin;
    x->e = g.end;
    x->start = now;
    x->end = now + chunk_us(sim, d, g.begin, g.end, now,
                            sim->noise > 0 ? 1 + sim->noise * (2 * gsl_rng_uniform(r->rng) - 1)
                                           : 1.0);
    if (v->fails && x->end > v->fail_at_us) { /* dies holding it */
        x->state = ST_DEAD;
        r->res->dev[d].busy_us += v->fail_at_us - now;
        r->res->dev[d].lost++;
        record(r, d, g.begin, g.end, now, x->end, HS_CHUNK_LOST);
        return HS_OK;
    }
    x->state = ST_BUSY;
    return push(r, d, EV_END, x->end, err);
}

/* The chunk of d ended at `now`: tell the splitter, then let d and every
 * waiting device ask again. */
static int chunk_ended(run *r, int d, double now, hs_error *err)
{
    simdev *x = &r->d[d];
    hs_split_dev_result *o = &r->res->dev[d];
    double us = x->end - x->start;
    int rc, ok = r->sp->finished(r->st, d, x->b, x->e, us, now);
    o->busy_us += us;
    record(r, d, x->b, x->e, x->start, x->end, ok ? HS_CHUNK_ACCEPTED : HS_CHUNK_REFUSED);
    if (ok) {
        if ((rc = mark(r, x->b, x->e, err)) != HS_OK)
            return rc;
        hs_split_wave_log_done(&r->wave, x->b, x->e, now);
        o->items += x->e - x->b;
        o->chunks++;
        o->finish_us = now;
        if (now > r->res->makespan_us)
            r->res->makespan_us = now;
    } else {
        o->refused++;
    }
    x->state = ST_ASK;
    if ((rc = ask(r, d, now, err)) != HS_OK)
        return rc;
    for (int e = 0; e < r->sim->ndevices; e++)
        if (e != d && r->d[e].state == ST_WAIT && (rc = ask(r, e, now, err)) != HS_OK)
            return rc;
    return HS_OK;
}

static int loop(run *r, hs_error *err)
{
    hs__heap_entry ev;
    int rc;
    for (int d = 0; d < r->sim->ndevices; d++)
        if ((rc = ask(r, d, 0.0, err)) != HS_OK)
            return rc;
    while (hs__heap_pop(&r->events, &ev) == 0) {
        int d = (int)(ev.item / 2), kind = (int)(ev.item % 2);
        simdev *x = &r->d[d];
        if (x->ev_time[kind] != ev.key)
            continue; /* superseded */
        x->ev_time[kind] = NAN;
        if (kind == EV_END && x->state == ST_BUSY)
            rc = chunk_ended(r, d, ev.key, err);
        else if (kind == EV_WAKE && x->state == ST_WAIT)
            rc = ask(r, d, ev.key, err);
        else
            rc = HS_OK;
        if (rc != HS_OK)
            return rc;
    }
    return HS_OK;
}

/* Per-device totals and the run's figures (see split_sim.h). */
static void summarise(run *r)
{
    const hs_split_sim *sim = r->sim;
    hs_split_result *res = r->res;
    for (int d = 0; d < sim->ndevices; d++) {
        hs_split_dev_result *o = &res->dev[d];
        const hs_split_sim_device *v = &sim->dev[d];
        o->dead = r->d[d].state == ST_DEAD;
        o->idle_us = res->makespan_us > o->busy_us ? res->makespan_us - o->busy_us : 0;
        o->alone_us = chunk_us(sim, d, 0, sim->items, 0, 1.0);
        if (v->fails && o->alone_us > v->fail_at_us)
            o->alone_us = HUGE_VAL;
    }
    hs_split_result_figures(res, sim->items);
}

void hs_split_result_figures(hs_split_result *res, size_t items)
{
    double hi = 0, lo = HUGE_VAL, sum = 0, alone = 0;
    int live = 0;
    for (int d = 0; d < res->ndevices; d++) {
        const hs_split_dev_result *o = &res->dev[d];
        if (o->dead)
            continue;
        live++;
        hi = hi > o->finish_us ? hi : o->finish_us;
        lo = lo < o->finish_us ? lo : o->finish_us;
        sum += o->finish_us;
        if (isfinite(o->alone_us) && o->alone_us > 0)
            alone += (double)items / o->alone_us;
    }
    res->spread_us = live ? hi - lo : 0;
    res->imbalance_pct = live > 1 && hi > 0 ? (hi - sum / live) / hi * live / (live - 1) * 100 : 0;
    res->efficiency =
        res->makespan_us > 0 && alone > 0 ? (double)items / res->makespan_us / alone : 0;
}

/* HS_EINTERNAL naming the first item no accepted chunk covered. */
static int check_all_done(run *r, hs_error *err)
{
    size_t n = r->sim->items;
    for (size_t w = 0; w < (n + 63) / 64; w++) {
        uint64_t want = w == n / 64 ? (((uint64_t)1 << (n % 64)) - 1) : ~(uint64_t)0;
        if ((r->done[w] & want) != want) {
            size_t k = w * 64;
            while (r->done[w] & ((uint64_t)1 << (k % 64)))
                k++;
            for (int d = 0; d < r->sim->ndevices; d++)
                if (r->d[d].state == ST_DEAD)
                    return hs_error_set(err, HS_EINTERNAL,
                                        "item %zu never finished: splitter '%s' did not hand "
                                        "out again the work of %s, which stopped answering",
                                        k, r->sp->name, r->sim->dev[d].name);
            return hs_error_set(err, HS_EINTERNAL, "splitter '%s' never had item %zu finished",
                                r->sp->name, k);
        }
    }
    return HS_OK;
}

int hs_split_sim_run(const hs_split_sim *sim, const hs_splitter *sp, const hs_split_options *opt,
                     hs_split_memory *mem, hs_split_result *res, hs_error *err)
{
    hs_split_device dev[HS_SPLIT_MAX_DEVICES];
    hs_split_kernel k;
    run r;
    int rc;
    memset(res, 0, sizeof *res);
    if (!sp)
        return hs_error_set(err, HS_EUSAGE, "no splitter");
    if ((rc = check_sim(sim, err)) != HS_OK)
        return rc;
    memset(&r, 0, sizeof r);
    r.sim = sim;
    r.sp = sp;
    r.res = res;
    res->ndevices = sim->ndevices;
    for (int d = 0; d < sim->ndevices; d++) {
        r.d[d].ev_time[0] = r.d[d].ev_time[1] = NAN;
        r.d[d].spin_at = NAN;
    }
    r.done = calloc((sim->items + 63) / 64, sizeof *r.done);
    r.rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (sim->max_records)
        res->records = malloc(sim->max_records * sizeof *res->records);
    if (!r.done || !r.rng || (sim->max_records && !res->records)) {
        rc = nomem(err);
        goto out;
    }
    if ((rc = hs_split_wave_log_init(&r.wave, sp, opt, sim->items, err)) != HS_OK)
        goto out;
    gsl_rng_set(r.rng, sim->seed);
    hs_split_sim_devices(sim, dev);
    k = (hs_split_kernel){.name = sim->kernel,
                          .items = sim->items,
                          .work = sim->work,
                          .work_ctx = sim->work_ctx};
    if ((rc = sp->start(&k, dev, sim->ndevices, opt, mem, &r.st, err)) != HS_OK) {
        r.st = NULL;
        goto out;
    }
    if ((rc = loop(&r, err)) == HS_OK && (rc = check_all_done(&r, err)) == HS_OK) {
        summarise(&r);
        if (mem && sp->learn)
            sp->learn(r.st, mem);
    }
out:
    if (r.st)
        sp->fini(r.st);
    hs__heap_free(&r.events);
    gsl_rng_free(r.rng);
    free(r.done);
    hs_split_wave_log_free(&r.wave);
    if (rc != HS_OK)
        hs_split_result_free(res);
    return rc;
}

void hs_split_result_free(hs_split_result *res)
{
    if (!res)
        return;
    free(res->records);
    res->records = NULL;
    res->nrecords = 0;
}

/* ----------------------------------------------------------- kernel profiles
 * Round figures of a current node: a 16-core CPU and one data-centre GPU
 * behind a 12 GB/s link with 10 µs latency (the link of DESIGN §3's
 * example).  Overheads: 5 µs per CPU chunk (waking the worker threads), 10
 * µs per GPU chunk (a kernel launch and its synchronisation).
 *   va          c = a + b on float32: 8 bytes in and 4 out per element.  CPU:
 *               ~12 GB/s of memory traffic = 1000 elements/µs; GPU: ~1.2 TB/s
 *               = 100000 elements/µs.  The link (1000 elements/µs) bounds
 *               the GPU: transfer-bound.
 *   xgemm-rows  rows of C = A B, n = 8192 float32: a row is 2 n^2 = 134 MFLOP,
 *               reads its row of A (32 KiB) and writes its row of C (32 KiB);
 *               B is on every device beforehand.  CPU 0.75 TFLOP/s = 0.0056
 *               rows/µs; GPU 15 TFLOP/s = 0.112 rows/µs, 8.9 µs of compute per
 *               row against 5.5 µs of transfers: compute-bound.
 *   pi          Monte-Carlo pi: an item is a block of 256 samples writing one
 *               4-byte count.  CPU 16 x 150 M samples/s = 9.4 blocks/µs; GPU
 *               100 G samples/s = 390 blocks/µs.
 * Widths: 16 for the CPU (its cores); for the GPU 2048 elements (va), 512
 * blocks (pi) and 1 row (xgemm-rows). */

typedef struct profile {
    const char *name, *description;
    size_t items;
    double in_bytes, out_bytes;
    double cpu_rate, gpu_rate;
    size_t gpu_width;
} profile;

static const profile profiles[] = {
    {"va", "vector add, float32 elements: transfer-bound", 16777216, 8, 4, 1000, 100000, 2048},
    {"xgemm-rows", "rows of an 8192^3 float32 matrix product: compute-bound", 8192, 32768, 32768,
     0.0056, 0.112, 1},
    {"pi", "Monte-Carlo pi, blocks of 256 samples: compute-bound, tiny output", 4194304, 0, 4,
     9.4, 390, 512},
};

int hs_split_sim_profile(hs_split_sim *sim, const char *kernel, hs_error *err)
{
    for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++) {
        const profile *p = &profiles[i];
        if (!kernel || strcmp(kernel, p->name) != 0)
            continue;
        sim->kernel = p->name;
        sim->items = p->items;
        sim->in_bytes = p->in_bytes;
        sim->out_bytes = p->out_bytes;
        sim->work = NULL;
        sim->work_ctx = NULL;
        sim->ndevices = 2;
        sim->dev[0] = (hs_split_sim_device){.name = "cpu0", .kind = HS_DEVICE_CPU,
                                            .overhead_us = 5, .items_per_us = p->cpu_rate,
                                            .width = 16, .cores = 16};
        sim->dev[1] = (hs_split_sim_device){.name = "gpu0", .kind = HS_DEVICE_GPU,
                                            .overhead_us = 10, .items_per_us = p->gpu_rate,
                                            .width = p->gpu_width, .cores = 132,
                                            .bandwidth_gbps = 12, .latency_us = 10};
        return HS_OK;
    }
    return hs_error_set(err, HS_EINPUT, "unknown kernel '%s' (profiles: va, xgemm-rows, pi)",
                        kernel ? kernel : "(null)");
}

void hs_split_sim_profile_help(FILE *out)
{
    fprintf(out, "kernel profiles (devices cpu0: 16 cores, 5 us per chunk; gpu0: 10 us per "
                 "chunk, link 12 GB/s + 10 us):\n");
    for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++) {
        const profile *p = &profiles[i];
        fprintf(out, "  %-11s %s\n              %zu items, %g B in + %g B out per item; "
                     "cpu0 %g, gpu0 %g items/us (gpu0 width %zu)\n",
                p->name, p->description, p->items, p->in_bytes, p->out_bytes, p->cpu_rate,
                p->gpu_rate, p->gpu_width);
    }
}
