/* hetsched — the book-keeping splitters share (mapper/split_core.h). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mapper/split_core.h"

int hs__split_core_init(hs__split_core *c, const hs_split_kernel *k,
                        const hs_split_device *dev, int ndev, int survive, hs_error *err)
{
    memset(c, 0, sizeof *c);
    if (!k || k->items == 0)
        return hs_error_set(err, HS_EINPUT, "a split kernel needs at least one item");
    if (ndev < 1 || ndev > HS_SPLIT_MAX_DEVICES || !dev)
        return hs_error_set(err, HS_EINPUT, "a split needs 1 to %d devices, not %d",
                            HS_SPLIT_MAX_DEVICES, ndev);
    for (int d = 0; d < ndev; d++) {
        if (!dev[d].name || !dev[d].name[0])
            return hs_error_set(err, HS_EINPUT, "split device %d has no name", d);
        if (dev[d].width < 1)
            return hs_error_set(err, HS_EINPUT, "split device '%s': width must be >= 1",
                                dev[d].name);
        if (!(dev[d].rate_hint >= 0) || !isfinite(dev[d].rate_hint) ||
            !(dev[d].overhead_hint_us >= 0) || !isfinite(dev[d].overhead_hint_us))
            return hs_error_set(err, HS_EINPUT,
                                "split device '%s': hints must be finite numbers >= 0",
                                dev[d].name);
    }
    c->k = k;
    c->dev = dev;
    c->ndev = ndev;
    c->items = k->items;
    c->survive = survive;
    return HS_OK;
}

void hs__split_core_free(hs__split_core *c)
{
    free(c->again);
    c->again = NULL;
    c->nagain = c->capagain = 0;
}

size_t hs__split_left(const hs__split_core *c)
{
    size_t n = c->items - c->next;
    for (size_t i = 0; i < c->nagain; i++) {
        const hs__split_range *r = &c->again[(c->again_head + i) % c->capagain];
        n += r->end - r->begin;
    }
    return n;
}

static void hold(hs__split_core *c, int d, size_t b, size_t e, double now, int handed,
                 int strikes)
{
    hs__split_dev *x = &c->d[d];
    x->busy = 1;
    x->strikes = strikes;
    x->handed = handed;
    x->b = b;
    x->e = e;
    x->issued_us = now;
    x->revoked = 0;
}

hs_split_answer hs__split_give_range(hs__split_core *c, int d, size_t b, size_t e, double now,
                                     hs_split_grant *g)
{
    hold(c, d, b, e, now, 1, 0);
    g->begin = b;
    g->end = e;
    return HS_SPLIT_CHUNK;
}

hs_split_answer hs__split_give(hs__split_core *c, int d, size_t want, double now,
                               hs_split_grant *g)
{
    size_t b, e;
    if (want < 1)
        want = 1;
    if (c->nagain > 0) {
        hs__split_range *r = &c->again[c->again_head];
        int strikes = r->strikes;
        b = r->begin;
        e = r->end - b > want ? b + want : r->end;
        r->begin = e;
        if (r->begin == r->end) {
            c->again_head = (c->again_head + 1) % c->capagain;
            c->nagain--;
        }
        hs__split_give_range(c, d, b, e, now, g);
        c->d[d].strikes = strikes;
        return HS_SPLIT_CHUNK;
    } else if (c->next < c->items) {
        b = c->next;
        e = c->items - b > want ? b + want : c->items;
        c->next = e;
    } else {
        return HS_SPLIT_STOP;
    }
    return hs__split_give_range(c, d, b, e, now, g);
}

void hs__split_reserve(hs__split_core *c, int d, size_t b, size_t e, double now)
{
    hold(c, d, b, e, now, 0, 0);
}

hs_split_answer hs__split_claim(hs__split_core *c, int d, hs_split_grant *g)
{
    hs__split_dev *x = &c->d[d];
    if (!x->busy || x->handed || x->revoked)
        return HS_SPLIT_STOP;
    x->handed = 1;
    g->begin = x->b;
    g->end = x->e;
    return HS_SPLIT_CHUNK;
}

int hs__split_done(hs__split_core *c, int d, size_t b, size_t e, double us)
{
    hs__split_dev *x;
    if (d < 0 || d >= c->ndev)
        return 0;
    x = &c->d[d];
    if (!x->busy || !x->handed || x->b != b || x->e != e)
        return 0;
    x->busy = 0;
    x->last_items = e - b;
    x->last_us = us;
    if (us > 0 && (x->min_us == 0 || us < x->min_us))
        x->min_us = us;
    if (x->revoked) { /* alive after all: refuse the result, keep the device */
        x->revoked = 0;
        x->retired = 0;
        return 0;
    }
    x->nfinished++;
    x->items_done += e - b;
    x->busy_us += us;
    return 1;
}

/* Appends [b, e) to the ring of taken-back ranges; -1 when memory runs out. */
static int push_again(hs__split_core *c, size_t b, size_t e, int strikes)
{
    if (c->nagain == c->capagain) {
        size_t cap = c->capagain ? 2 * c->capagain : 8;
        hs__split_range *a = malloc(cap * sizeof *a);
        if (!a)
            return -1;
        for (size_t i = 0; i < c->nagain; i++)
            a[i] = c->again[(c->again_head + i) % c->capagain];
        free(c->again);
        c->again = a;
        c->capagain = cap;
        c->again_head = 0;
    }
    c->again[(c->again_head + c->nagain) % c->capagain] = (hs__split_range){b, e, strikes};
    c->nagain++;
    return 0;
}

void hs__split_revoke(hs__split_core *c, int e)
{
    hs__split_dev *x = &c->d[e];
    x->retired = 1;
    if (!x->busy || x->revoked)
        return;
    /* Out of memory: the chunk stays with e, which may still finish it; the
     * run then at worst waits, it never loses items. */
    if (push_again(c, x->b, x->e, x->strikes + 1) != 0)
        return;
    if (x->handed)
        x->revoked = 1;
    else
        x->busy = 0; /* never told: nothing to refuse later */
}

double hs__split_rate(const hs__split_core *c, int d)
{
    const hs__split_dev *x = &c->d[d];
    if (x->last_items > 0 && x->last_us > 0)
        return (double)x->last_items / x->last_us;
    return c->dev[d].rate_hint;
}

double hs__split_work(const hs_split_kernel *k, size_t b, size_t e)
{
    return k->work ? k->work(k->work_ctx, b, e) : (double)(e - b);
}

size_t hs__split_round_up(size_t x, size_t w)
{
    if (w <= 1)
        return x;
    if (x > SIZE_MAX - w)
        return SIZE_MAX / w * w;
    return (x + w - 1) / w * w;
}

/* Expected time of device d for u items (see split_core.h), 0 unknown. */
static double expected_us(const hs__split_core *c, int d, double u)
{
    double r = hs__split_rate(c, d), t;
    if (!(r > 0))
        return 0;
    t = u / r;
    if (c->d[d].min_us > t)
        t = c->d[d].min_us;
    return t > c->dev[d].overhead_hint_us ? t : c->dev[d].overhead_hint_us;
}

/* Mean µs per item over the chunks every device finished so far; 0 none. */
static double mean_us_per_item(const hs__split_core *c)
{
    double us = 0, items = 0;
    for (int i = 0; i < c->ndev; i++) {
        us += c->d[i].busy_us;
        items += (double)c->d[i].items_done;
    }
    return items > 0 && us > 0 ? us / items : 0;
}

/* The moment device e (holding a chunk) would be judged dead when device a
 * asks (see split_core.h): pe, pa and pe_bound are P_e, P_a and P'_e
 * there; HS__SPLIT_BLIND_US when nothing is known of any device: some
 * bound must hold for the run to end at all. */
static double judged_dead_at(const hs__split_core *c, int a, int e)
{
    const hs__split_dev *x = &c->d[e];
    double u = (double)(x->e - x->b), pa = expected_us(c, a, u), pe = expected_us(c, e, u);
    double mean = mean_us_per_item(c), pe_bound = pe > 0 ? pe : mean > 0 ? u * mean
                                                                        : HS__SPLIT_BLIND_US;
    double wait;
    if (!(pa > 0))
        pa = pe_bound;
    wait = fmin(pe + HS__SPLIT_PATIENCE * pa, HS__SPLIT_DEAD_FACTOR * pe_bound);
    wait = fmax(wait, HS__SPLIT_DEAD_FLOOR_US);
    return x->issued_us + ldexp(wait, x->strikes < 60 ? x->strikes : 60);
}

hs_split_answer hs__split_idle(hs__split_core *c, int d, double now, hs_split_grant *g)
{
    double best = HUGE_VAL;
    int victim = -1, others = 0;
    if (c->d[d].retired)
        return HS_SPLIT_STOP;
    if (c->nagain > 0)
        return hs__split_give(c, d, SIZE_MAX, now, g);
    if (!c->survive)
        return HS_SPLIT_STOP;
    for (int e = 0; e < c->ndev; e++) {
        double t;
        if (e == d || !c->d[e].busy || c->d[e].revoked)
            continue;
        others = 1;
        t = judged_dead_at(c, d, e);
        if (t < best) {
            best = t;
            victim = e;
        }
    }
    if (!others)
        return HS_SPLIT_STOP;
    if (victim >= 0 && now >= best) {
        hs__split_revoke(c, victim);
        if (c->nagain > 0)
            return hs__split_give(c, d, SIZE_MAX, now, g);
    }
    g->wake_us = best;
    return HS_SPLIT_WAIT;
}

double hs__split_level(int n, const double *lambda, const double *omega, int skip, double w,
                       double *level)
{
    int on[HS_SPLIT_MAX_DEVICES], changed = 1, any = 0;
    double t = 0, last = 0;
    for (int i = 0; i < n; i++) {
        on[i] = i != skip;
        any |= on[i];
        if (on[i] && lambda[i] > last)
            last = lambda[i];
    }
    if (!any) {
        *level = HUGE_VAL;
        return w > 0 ? HUGE_VAL : 0;
    }
    while (changed) {
        double num = w, den = 0;
        changed = 0;
        for (int i = 0; i < n; i++)
            if (on[i]) {
                num += lambda[i] / omega[i];
                den += 1 / omega[i];
            }
        t = num / den;
        for (int i = 0; i < n; i++)
            if (on[i] && lambda[i] > t) {
                on[i] = 0;
                changed = 1;
            }
    }
    *level = t;
    return t > last ? t : last;
}

/* ------------------------------------------------- self-scheduling skeleton */

int hs__selfsched_start(const hs_split_kernel *k, const hs_split_device *dev, int ndev,
                        const hs_split_options *opt, hs__chunk_rule rule, hs__selfsched **out,
                        hs_error *err)
{
    hs__selfsched *s = calloc(1, sizeof *s);
    int rc;
    if (!s)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    if ((rc = hs__split_core_init(&s->core, k, dev, ndev, !(opt && opt->no_takeback), err)) != HS_OK) {
        free(s);
        return rc;
    }
    if (opt)
        s->opt = *opt;
    s->rule = rule;
    s->p = (size_t)ndev;
    s->n = k->items;
    *out = s;
    return HS_OK;
}

hs_split_answer hs__selfsched_next(void *state, int d, double now, hs_split_grant *g)
{
    hs__selfsched *s = state;
    size_t left = hs__split_left(&s->core);
    hs_split_answer a;
    if (s->core.d[d].retired)
        return HS_SPLIT_STOP;
    if (left == 0)
        return hs__split_idle(&s->core, d, now, g);
    a = hs__split_give(&s->core, d, s->rule(s, d, left), now, g);
    if (a == HS_SPLIT_CHUNK) {
        s->asks[d]++;
        s->issued++;
    }
    return a;
}

int hs__selfsched_finished(void *state, int d, size_t b, size_t e, double us, double now)
{
    hs__selfsched *s = state;
    (void)now;
    return hs__split_done(&s->core, d, b, e, us);
}

void hs__selfsched_fini(void *state)
{
    hs__selfsched *s = state;
    if (!s)
        return;
    hs__split_core_free(&s->core);
    free(s);
}
