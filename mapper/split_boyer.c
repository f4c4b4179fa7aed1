/* hetsched — `boyer`: dynamic load balancing without training, Boyer,
 * Skadron, Che & Jayasena, "Load Balancing in a Changing World" (CF 2013),
 * Sec. 4.
 *
 * Step 1-2: every device gets chunks of beta = 7% of the items, each of its
 * later chunks delta = 1.5 times the previous (rounded up), until every
 * device has finished gamma = 2 chunks (-o beta, delta, gamma).
 * Step 3: the items left are split so that all devices finish together,
 * eq. (1)-(3) extended to P devices: with Omega_i the time per item of
 * device i's last chunk (transfers included) and lambda_i = Omega_i U_i -
 * T_i the time its chunk in flight still needs (0 when idle or overdue), a
 * common finishing time T satisfies sum_i (T - lambda_i) / Omega_i = W; a
 * device whose lambda_i exceeds T gets nothing.  Each device asking gets its
 * share W_i as one chunk, computed when it asks, so the work in flight is
 * accounted for with the latest measurements; floor and ceil of W_i are both
 * tried and the one predicted to finish the whole run earlier wins (Sec.
 * 4.1; on a tie the smaller).
 *
 * Non-functional devices (Sec. 4.2): when a device's next growing chunk
 * would take all the items left and another device has not finished a
 * single chunk yet, that device's chunk in flight is taken back and goes to
 * the asking device too; later, any device judged dead by the rule of
 * mapper/split_core.h loses its chunk the same way.
 */
#include <math.h>
#include <stdlib.h>

#include "mapper/split_core.h"

typedef struct boyer {
    hs__split_core core;
    double beta, delta;
    int gamma;
    int final;                           /* step 3 reached */
    size_t grown[HS_SPLIT_MAX_DEVICES];  /* step-2 chunks handed to each */
} boyer;

static int boyer_start(const hs_split_kernel *k, const hs_split_device *dev, int ndev,
                       const hs_split_options *opt, const hs_split_memory *mem, void **state,
                       hs_error *err)
{
    hs_split_options o = {0};
    boyer *s;
    int rc;
    (void)mem;
    if (opt)
        o = *opt;
    if ((o.beta != 0 && !(o.beta > 0 && o.beta <= 1)) || (o.delta != 0 && !(o.delta >= 1)) ||
        o.gamma < 0)
        return hs_error_set(err, HS_EINPUT,
                            "boyer: beta must be in (0, 1], delta >= 1, gamma >= 1");
    if (!(s = calloc(1, sizeof *s)))
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    if ((rc = hs__split_core_init(&s->core, k, dev, ndev, !(opt && opt->no_takeback), err)) != HS_OK) {
        free(s);
        return rc;
    }
    s->beta = o.beta > 0 ? o.beta : 0.07;
    s->delta = o.delta > 0 ? o.delta : 1.5;
    s->gamma = o.gamma > 0 ? o.gamma : 2;
    *state = s;
    return HS_OK;
}

/* Per-device inputs of eq. (2)-(3): Omega (µs per item) and lambda (µs). */
typedef struct share_in {
    int n;
    double omega[HS_SPLIT_MAX_DEVICES], lambda[HS_SPLIT_MAX_DEVICES];
    int dev[HS_SPLIT_MAX_DEVICES];
} share_in;

/* Step 3 for the asking device d (index a in `in`, lambda 0): its share of
 * the w items left, rounded as Sec. 4.1 says. */
static size_t final_share(const share_in *in, int a, size_t w)
{
    double t, wa, lo, best = HUGE_VAL;
    size_t pick = 0;
    hs__split_level(in->n, in->lambda, in->omega, -1, (double)w, &t);
    wa = (t - in->lambda[a]) / in->omega[a]; /* eq. (3) */
    if (!(wa > 0))
        return 0;
    lo = floor(wa);
    for (int c = 0; c < 2; c++) {
        double take = lo + c, rest_t, end;
        if (take > (double)w)
            break;
        end = hs__split_level(in->n, in->lambda, in->omega, a, (double)w - take, &rest_t);
        if (in->omega[a] * take + in->lambda[a] > end)
            end = in->omega[a] * take + in->lambda[a];
        if (end < best) {
            best = end;
            pick = (size_t)take;
        }
    }
    return pick;
}

static hs_split_answer boyer_next(void *state, int d, double now, hs_split_grant *g)
{
    boyer *s = state;
    hs__split_core *c = &s->core;
    size_t left = hs__split_left(c), want;
    share_in in = {0};
    int a = -1;
    if (c->d[d].retired)
        return HS_SPLIT_STOP;
    if (left == 0)
        return hs__split_idle(c, d, now, g);
    if (!s->final) {
        s->final = 1;
        for (int e = 0; e < c->ndev; e++)
            if (!c->d[e].retired && c->d[e].nfinished < (size_t)s->gamma)
                s->final = 0;
    }
    if (!s->final) {
        double size = ceil(s->beta * (double)c->items * pow(s->delta, (double)s->grown[d]) -
                           1e-9);
        want = size >= (double)left ? left : (size_t)size;
        if (want >= left) { /* d claims all the rest: Sec. 4.2 (and takes back
                               the first chunks of the others, unless its
                               caller never loses a chunk: no_takeback) */
            for (int e = 0; e < c->ndev && c->survive; e++)
                if (e != d && c->d[e].busy && c->d[e].nfinished == 0)
                    hs__split_revoke(c, e);
            want = hs__split_left(c);
        }
        s->grown[d]++;
        return hs__split_give(c, d, want, now, g);
    }
    for (int e = 0; e < c->ndev; e++) {
        const hs__split_dev *x = &c->d[e];
        double om;
        if (x->retired || x->last_items == 0)
            continue;
        om = x->last_us / (double)x->last_items;
        if (!(om > 0))
            om = 1e-9;
        if (e == d)
            a = in.n;
        in.dev[in.n] = e;
        in.omega[in.n] = om;
        in.lambda[in.n] = 0;
        if (e != d && x->busy && x->handed && !x->revoked) {
            double lam = om * (double)(x->e - x->b) - (now - x->issued_us);
            in.lambda[in.n] = lam > 0 ? lam : 0;
        }
        in.n++;
    }
    want = a >= 0 ? final_share(&in, a, left) : left;
    if (want == 0) { /* the others are expected to finish the rest first... */
        for (int e = 0; e < c->ndev; e++)
            if (e != d && c->d[e].busy && !c->d[e].revoked)
                return hs__split_idle(c, d, now, g);
        want = 1; /* ...but none of them is running: someone has to start */
    }
    return hs__split_give(c, d, want, now, g);
}

static int boyer_finished(void *state, int d, size_t b, size_t e, double us, double now)
{
    boyer *s = state;
    (void)now;
    return hs__split_done(&s->core, d, b, e, us);
}

static void boyer_fini(void *state)
{
    boyer *s = state;
    if (!s)
        return;
    hs__split_core_free(&s->core);
    free(s);
}

const hs_splitter hs__split_boyer = {
    .name = "boyer",
    .description = "Boyer et al.: growing 7% chunks until each device did 2, then eq. (1-3)",
    .flags = HS_SPLIT_SURVIVES_FAILURE,
    .start = boyer_start,
    .next = boyer_next,
    .finished = boyer_finished,
    .fini = boyer_fini,
};
