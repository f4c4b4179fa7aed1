/* hetsched — `qilin`: a static split from a linear performance model
 * trained on an earlier run, after Qilin's adaptive mapping (Luk, Hong &
 * Kim, MICRO 2009) as HDSS Sec. 1 and 4 describe it.
 *
 * Training run (nothing learned yet): the even split of `static`, but each
 * device runs its share as three chunks of 1/7, 2/7 and 4/7 of it, so that
 * learn() can fit T_d(B) = a_d + b_d B µs (gsl_fit_linear; transfers
 * included) through points of different sizes.
 * Later runs: one chunk per device, sized so that the models predict equal
 * finishing times: sum_d (T - a_d) / b_d = N, a device with a_d > T gets
 * nothing (the water-filling of mapper/split_core.h); the items lost to
 * rounding go round-robin, one each.  A model that cannot see the run
 * (throttling, a dead device) is not corrected: that is the point of
 * comparing it with the dynamic splitters.
 */
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_fit.h>

#include "mapper/split_core.h"

#define QILIN_PARTS 3

typedef struct qilin {
    hs__split_core core;
    int training;
    /* per device: its ranges in order, and the (size, µs) points measured */
    size_t cut[HS_SPLIT_MAX_DEVICES][QILIN_PARTS + 1];
    int nparts[HS_SPLIT_MAX_DEVICES], given[HS_SPLIT_MAX_DEVICES];
    double x[HS_SPLIT_MAX_DEVICES][QILIN_PARTS], y[HS_SPLIT_MAX_DEVICES][QILIN_PARTS];
    int npoints[HS_SPLIT_MAX_DEVICES];
} qilin;

/* Shares of n items from the models a + b B (b > 0). */
static void model_split(const hs_split_memory *mem, int p, size_t n, size_t *share)
{
    double t, lambda[HS_SPLIT_MAX_DEVICES], omega[HS_SPLIT_MAX_DEVICES];
    size_t sum = 0;
    for (int d = 0; d < p; d++) {
        lambda[d] = mem->model_a[d] > 0 ? mem->model_a[d] : 0;
        omega[d] = mem->model_b[d];
    }
    hs__split_level(p, lambda, omega, -1, (double)n, &t);
    for (int d = 0; d < p; d++) {
        double x = (t - lambda[d]) / omega[d];
        share[d] = x > 0 ? (size_t)floor(x) : 0;
        if (share[d] > n - sum)
            share[d] = n - sum;
        sum += share[d];
    }
    /* floor lost less than one item per device that takes part */
    for (int d = 0; d < p && sum < n; d++)
        if ((t - lambda[d]) / omega[d] > 0) {
            share[d]++;
            sum++;
        }
    if (sum < n)
        share[0] += n - sum;
}

static int has_model(const hs_split_memory *mem, int p)
{
    if (!mem || mem->runs < 1 || mem->ndevices != p)
        return 0;
    for (int d = 0; d < p; d++)
        if (!(mem->model_b[d] > 0) || !isfinite(mem->model_a[d]))
            return 0;
    return 1;
}

static int qilin_start(const hs_split_kernel *k, const hs_split_device *dev, int ndev,
                       const hs_split_options *opt, const hs_split_memory *mem, void **state,
                       hs_error *err)
{
    size_t share[HS_SPLIT_MAX_DEVICES], n = k->items, b = 0;
    qilin *s = calloc(1, sizeof *s);
    int rc;
    (void)opt;
    if (!s)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    if ((rc = hs__split_core_init(&s->core, k, dev, ndev, 0, err)) != HS_OK) {
        free(s);
        return rc;
    }
    s->core.next = n;
    s->training = !has_model(mem, ndev);
    if (s->training)
        for (int d = 0; d < ndev; d++)
            share[d] = n / (size_t)ndev + ((size_t)d < n % (size_t)ndev);
    else
        model_split(mem, ndev, n, share);
    for (int d = 0; d < ndev; d++) {
        s->cut[d][0] = b;
        if (s->training && share[d] >= QILIN_PARTS) { /* 1/7, 2/7, 4/7 */
            s->cut[d][1] = b + share[d] / 7;
            s->cut[d][2] = b + 3 * share[d] / 7;
            if (s->cut[d][1] == b)
                s->cut[d][1] = b + 1;
            if (s->cut[d][2] <= s->cut[d][1])
                s->cut[d][2] = s->cut[d][1] + 1;
            s->cut[d][3] = b + share[d];
            s->nparts[d] = QILIN_PARTS;
        } else {
            s->cut[d][1] = b + share[d];
            s->nparts[d] = share[d] > 0;
        }
        b += share[d];
    }
    *state = s;
    return HS_OK;
}

static hs_split_answer qilin_next(void *state, int d, double now, hs_split_grant *g)
{
    qilin *s = state;
    int i = s->given[d];
    if (i >= s->nparts[d] || s->core.d[d].busy)
        return HS_SPLIT_STOP;
    s->given[d]++;
    return hs__split_give_range(&s->core, d, s->cut[d][i], s->cut[d][i + 1], now, g);
}

static int qilin_finished(void *state, int d, size_t b, size_t e, double us, double now)
{
    qilin *s = state;
    (void)now;
    if (!hs__split_done(&s->core, d, b, e, us))
        return 0;
    if (s->npoints[d] < QILIN_PARTS) {
        s->x[d][s->npoints[d]] = (double)(e - b);
        s->y[d][s->npoints[d]] = us;
        s->npoints[d]++;
    }
    return 1;
}

/* Fits T(B) = a + b B for every device from a training run; a device with
 * fewer than two points gets a = 0, b = T / B. */
static void qilin_learn(void *state, hs_split_memory *mem)
{
    qilin *s = state;
    if (!s->training)
        return;
    mem->ndevices = s->core.ndev;
    for (int d = 0; d < s->core.ndev; d++) {
        double a = 0, b = 0, c00, c01, c11, ss;
        int n = s->npoints[d];
        if (n >= 2 && gsl_fit_linear(s->x[d], 1, s->y[d], 1, (size_t)n, &a, &b, &c00, &c01,
                                     &c11, &ss) == 0 &&
            b > 0 && isfinite(a)) {
            if (a < 0)
                a = 0;
        } else if (n >= 1 && s->x[d][0] > 0) {
            a = 0;
            b = s->y[d][0] / s->x[d][0];
        }
        mem->model_a[d] = a;
        mem->model_b[d] = b > 0 ? b : 1e9; /* never measured: give it nothing */
    }
    mem->runs++;
}

static void qilin_fini(void *state)
{
    qilin *s = state;
    if (!s)
        return;
    hs__split_core_free(&s->core);
    free(s);
}

const hs_splitter hs__split_qilin = {
    .name = "qilin",
    .description = "Qilin: static split from a linear model T = a + bB fitted on a training run",
    .flags = HS_SPLIT_LEARNS | HS_SPLIT_TRAINS,
    .start = qilin_start,
    .next = qilin_next,
    .finished = qilin_finished,
    .learn = qilin_learn,
    .fini = qilin_fini,
};
