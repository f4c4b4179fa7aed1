/* hetsched — `kass`: Knowledge-based Adaptive Self-Scheduling, Wang, Ji,
 * Shi, Zuo & Deng (NPC 2012), Sec. 3.
 *
 * Static partition (Sec. 3.1): the items are cut into one local queue per
 * device from what is known beforehand: the work profile t_i of the loop
 * (hs_split_kernel.work; uniform when absent) and the capacities a_i of the
 * devices (their rate hints; all equal when none is known).  The three rules:
 *   1. c.o.v. of t below 0.1 (uniform loop): bounds by capacity, eq. (3);
 *   2. else c.o.v. of a below 0.1 (equal devices): equal work, eq. (1)-(2);
 *   3. else the heuristic: start halfway between the two, eq. (5), then move
 *      (mu_T - T_j) / t-bar items to each device (T_j of eq. (6)) until the
 *      c.o.v. of the T_j is below 0.1, it grows again, or 100 steps.
 * The c.o.v. of t is taken over 4096 equal segments of the profile.
 *
 * Dynamic phase (Sec. 3.2): device i takes k_i of what is left in its own
 * queue, or all of it when fewer than 2 alpha items are left; with an empty
 * queue it takes k_j of the next unfinished queue j (stealing).  k_i comes
 * from eq. (7), read as k = 1 - c.o.v. - Delta with the c.o.v. of the rule
 * used (capped at 0.1) and Delta = -o kass_delta (0.1), kept in [0.5, 1].
 * alpha = 2 T_cs / mu (-o alpha): T_cs is the device's per-chunk overhead
 * hint and mu its time per item; 1 when unknown.
 *
 * Repeated runs (Sec. 3.3): every steal counts +1 for the thief and -1 for
 * the victim; after a run, k_i moves by eq. (8) with threshold -o theta (1)
 * and is remembered for the next run.
 *
 * A queue whose device died is stolen by the others; its chunk in flight is
 * taken back by the rule of mapper/split_core.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mapper/split_core.h"

#define KASS_SEGMENTS 4096
#define KASS_COV 0.1
#define KASS_STEPS 100

typedef struct kass {
    hs__split_core core;
    size_t l[HS_SPLIT_MAX_DEVICES], u[HS_SPLIT_MAX_DEVICES]; /* queue [l, u) */
    double k[HS_SPLIT_MAX_DEVICES];
    size_t alpha[HS_SPLIT_MAX_DEVICES];
    int count[HS_SPLIT_MAX_DEVICES];   /* C_i of Sec. 3.3 */
    int theta;
    int rule;                          /* 1, 2 or 3: which rule cut the queues */
} kass;

static double cov(const double *x, int n)
{
    double mean = 0, var = 0;
    for (int i = 0; i < n; i++)
        mean += x[i];
    mean /= n;
    for (int i = 0; i < n; i++)
        var += (x[i] - mean) * (x[i] - mean);
    return mean > 0 ? sqrt(var / n) / mean : 0;
}

/* c.o.v. of the per-item work, over equal segments of the profile. */
static double profile_cov(const hs_split_kernel *k)
{
    size_t nseg = k->items < KASS_SEGMENTS ? k->items : KASS_SEGMENTS;
    double *t, c;
    if (!k->work || nseg < 2)
        return 0;
    if (!(t = malloc(nseg * sizeof *t)))
        return 0;
    for (size_t s = 0; s < nseg; s++) {
        size_t b = s * k->items / nseg, e = (s + 1) * k->items / nseg;
        t[s] = hs__split_work(k, b, e) / (double)(e - b);
    }
    c = cov(t, (int)nseg);
    free(t);
    return c;
}

/* eq. (3): u_j = ceil(sum_{i<=j} a_i / sum a * N). */
static void bounds_by_capacity(const double *a, int p, size_t n, size_t *u)
{
    double sum = 0, run = 0;
    for (int j = 0; j < p; j++)
        sum += a[j];
    for (int j = 0; j < p - 1; j++) {
        double x;
        run += a[j];
        x = ceil(run / sum * (double)n - 1e-9);
        u[j] = x >= (double)n ? n : (size_t)x;
    }
    u[p - 1] = n;
}

/* eq. (1)-(2): u_j = the first index whose prefix of work reaches j/p of the
 * whole (binary search on the profile). */
static void bounds_by_work(const hs_split_kernel *k, int p, size_t *u)
{
    double total = hs__split_work(k, 0, k->items);
    for (int j = 0; j < p - 1; j++) {
        double target = total * (j + 1) / p;
        size_t lo = 0, hi = k->items;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (hs__split_work(k, 0, mid) >= target)
                hi = mid;
            else
                lo = mid + 1;
        }
        u[j] = lo;
    }
    u[p - 1] = k->items;
}

/* T_j of eq. (6) for the queues ending at u[]; returns sigma_T / mu_T. */
static double queue_times(const hs_split_kernel *k, const double *a, int p, const size_t *u,
                          double *t)
{
    for (int j = 0; j < p; j++)
        t[j] = hs__split_work(k, j ? u[j - 1] : 0, u[j]) / a[j];
    return cov(t, p);
}

/* Rule 3: eq. (5) then the iterative adjustment of Sec. 3.1.  Returns the
 * c.o.v. of the T_j it ends with. */
static double bounds_heuristic(const hs_split_kernel *k, const double *a, int p, size_t *u)
{
    size_t u1[HS_SPLIT_MAX_DEVICES], u3[HS_SPLIT_MAX_DEVICES], prev[HS_SPLIT_MAX_DEVICES];
    double t[HS_SPLIT_MAX_DEVICES], c, sigma_prev = HUGE_VAL;
    size_t n = k->items;
    bounds_by_work(k, p, u1);
    bounds_by_capacity(a, p, n, u3);
    for (int j = 0; j < p; j++)
        u[j] = (u1[j] + u3[j]) / 2; /* eq. (5) */
    u[p - 1] = n;
    c = queue_times(k, a, p, u, t);
    for (int step = 0; step < KASS_STEPS && c >= KASS_COV; step++) {
        double mu = 0, sigma, tbar, size[HS_SPLIT_MAX_DEVICES], total = 0, run = 0;
        for (int j = 0; j < p; j++)
            mu += t[j];
        tbar = mu / (double)n; /* mean time of an item */
        mu /= p;
        sigma = c * mu;
        if (sigma > sigma_prev) { /* worse than the last step: undo it */
            memcpy(u, prev, (size_t)p * sizeof *u);
            return queue_times(k, a, p, u, t);
        }
        sigma_prev = sigma;
        memcpy(prev, u, (size_t)p * sizeof *u);
        for (int j = 0; j < p; j++) {
            size[j] = (double)(u[j] - (j ? u[j - 1] : 0)) + (mu - t[j]) / tbar;
            if (size[j] < 0)
                size[j] = 0;
            total += size[j];
        }
        for (int j = 0; j < p - 1; j++) {
            double x;
            run += size[j];
            x = floor(run / total * (double)n + 0.5);
            u[j] = x >= (double)n ? n : (size_t)x;
            if (j && u[j] < u[j - 1])
                u[j] = u[j - 1];
        }
        u[p - 1] = n;
        c = queue_times(k, a, p, u, t);
    }
    return c;
}

static int kass_start(const hs_split_kernel *k, const hs_split_device *dev, int ndev,
                      const hs_split_options *opt, const hs_split_memory *mem, void **state,
                      hs_error *err)
{
    hs_split_options o = {0};
    double a[HS_SPLIT_MAX_DEVICES], known = 0, err_cov, cov_t, cov_a, delta;
    size_t u[HS_SPLIT_MAX_DEVICES];
    int nknown = 0, rc;
    kass *s;
    if (opt)
        o = *opt;
    if (o.kass_delta < 0 || o.kass_delta > 0.4 || o.theta < 0)
        return hs_error_set(err, HS_EINPUT, "kass: kass_delta must be in [0, 0.4], theta >= 0");
    if (!(s = calloc(1, sizeof *s)))
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    if ((rc = hs__split_core_init(&s->core, k, dev, ndev, !(opt && opt->no_takeback), err)) != HS_OK) {
        free(s);
        return rc;
    }
    s->core.next = k->items; /* nothing in the shared pool: queues instead */
    for (int j = 0; j < ndev; j++)
        if (dev[j].rate_hint > 0) {
            known += dev[j].rate_hint;
            nknown++;
        }
    for (int j = 0; j < ndev; j++) /* capacities; unknown ones count as average */
        a[j] = dev[j].rate_hint > 0 ? dev[j].rate_hint : nknown ? known / nknown : 1;
    cov_t = profile_cov(k);
    cov_a = cov(a, ndev);
    if (cov_t < KASS_COV) {
        s->rule = 1;
        bounds_by_capacity(a, ndev, k->items, u);
        err_cov = cov_a;
    } else if (cov_a < KASS_COV) {
        s->rule = 2;
        bounds_by_work(k, ndev, u);
        err_cov = cov_t;
    } else {
        s->rule = 3;
        err_cov = bounds_heuristic(k, a, ndev, u);
    }
    if (err_cov > KASS_COV)
        err_cov = KASS_COV;
    delta = o.kass_delta > 0 ? o.kass_delta : 0.1;
    for (int j = 0; j < ndev; j++) {
        double kk = 1 - err_cov - delta; /* eq. (7) */
        if (mem && mem->runs > 0 && mem->ndevices == ndev && mem->k[j] > 0)
            kk = mem->k[j];
        s->k[j] = kk < 0.5 ? 0.5 : kk > 1 ? 1 : kk;
        s->l[j] = j ? u[j - 1] : 0;
        s->u[j] = u[j];
        if (o.alpha)
            s->alpha[j] = o.alpha;
        else {
            double al = ceil(2 * dev[j].overhead_hint_us * dev[j].rate_hint);
            s->alpha[j] = al >= 1 && al < (double)k->items ? (size_t)al : 1;
        }
    }
    s->theta = o.theta > 0 ? o.theta : 1;
    *state = s;
    return HS_OK;
}

/* get_iterations of Fig. 1: k of what is left in queue j, all of it when
 * fewer than 2 alpha items are left. */
static hs_split_answer take(kass *s, int d, int j, double now, hs_split_grant *g)
{
    size_t l = s->l[j], u = s->u[j], e;
    if (u - l < 2 * s->alpha[d])
        e = u;
    else {
        double x = ceil((double)(u - l) * s->k[j]);
        e = l + (x < 1 ? 1 : x >= (double)(u - l) ? u - l : (size_t)x);
    }
    s->l[j] = e;
    return hs__split_give_range(&s->core, d, l, e, now, g);
}

static hs_split_answer kass_next(void *state, int d, double now, hs_split_grant *g)
{
    kass *s = state;
    int p = s->core.ndev;
    if (s->core.d[d].retired)
        return HS_SPLIT_STOP;
    if (s->l[d] < s->u[d])
        return take(s, d, d, now, g);
    for (int i = 1; i < p; i++) {
        int j = (d + i) % p;
        if (s->l[j] < s->u[j]) {
            s->count[d]++;
            s->count[j]--;
            return take(s, d, j, now, g);
        }
    }
    return hs__split_idle(&s->core, d, now, g);
}

static int kass_finished(void *state, int d, size_t b, size_t e, double us, double now)
{
    kass *s = state;
    (void)now;
    return hs__split_done(&s->core, d, b, e, us);
}

/* eq. (8): lightly loaded devices (stole more than theta times) take
 * larger shares of their queue next time, heavily loaded ones smaller. */
static void kass_learn(void *state, hs_split_memory *mem)
{
    kass *s = state;
    mem->ndevices = s->core.ndev;
    for (int j = 0; j < s->core.ndev; j++) {
        double k = s->k[j];
        if (s->count[j] > s->theta)
            k = fmin(0.9, k + 0.1);
        else if (s->count[j] < -s->theta)
            k = fmax(0.5, k - 0.1);
        mem->k[j] = k;
    }
    mem->runs++;
}

static void kass_fini(void *state)
{
    kass *s = state;
    if (!s)
        return;
    hs__split_core_free(&s->core);
    free(s);
}

const hs_splitter hs__split_kass = {
    .name = "kass",
    .description = "KASS: knowledge-based local queues taken k_i at a time, with stealing",
    .flags = HS_SPLIT_SURVIVES_FAILURE | HS_SPLIT_LEARNS,
    .start = kass_start,
    .next = kass_next,
    .finished = kass_finished,
    .learn = kass_learn,
    .fini = kass_fini,
};
