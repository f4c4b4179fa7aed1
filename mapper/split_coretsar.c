/* hetsched — `coretsar`: the schedules of CoreTSAR, Scogland, Rountree, Feng
 * & de Supinski (IPDPS 2012), Sec. 3.2-3.4 and 4.1.
 *
 * Work is cut into sub-regions; each sub-region is split over the devices
 * by the linear program of Fig. 4 (fractions f_j summing to 1, |f_j p_j -
 * f_1 p_1| minimised with t+ and t- slacks, p_j the time per item of device
 * j scaled to at most 1), solved with GLPK under the process-wide GLPK lock
 * (milp/glpk_lock.h).  Each device gets floor(f_j r) items of an r-item
 * sub-region, the few left over go round-robin (Sec. 4.1.1), and a device
 * waits for the whole sub-region to finish before the next is cut.  The
 * schedules (-o schedule=...):
 *   static    one sub-region, the default split of Sec. 3.3 (below);
 *   adaptive  one sub-region per run, split by the time per item measured in
 *             the previous run (the static split on the first run);
 *   split     -o div (10) equal sub-regions, each re-split with the times of
 *             the one before (the default);
 *   quick     a first sub-region of N / div to train on, then all the rest
 *             at once.
 * The default split uses the devices' rate hints when all are known (the
 * "input value" of Sec. 3.3); otherwise the paper's rule: a GPU takes
 * 1/(4 c_g) per item (c_g its multiprocessors, the largest over the GPUs),
 * a CPU core 1 - that, divided here by the CPU device's cores.
 *
 * Back-off (Sec. 4.1.2): after every measured sub-region (and across runs),
 * a GPU slower per item than one core of the slowest CPU device (the paper's
 * CPU devices are single cores; ours gather `cores` of them) counts a slow
 * pass; after -o backoff (2) slow passes in a row it is dropped.  Not for
 * static.
 *
 * A device that stops answering loses its part to the devices waiting at
 * the barrier (mapper/split_core.h) and is left out of later sub-regions.
 */
#include <math.h>
#include <stdlib.h>

#include <glpk.h>

#include "mapper/split_core.h"
#include "milp/glpk_lock.h"

typedef struct coretsar {
    hs__split_core core;
    int schedule, div, backoff;
    double p[HS_SPLIT_MAX_DEVICES];       /* µs per item fed to the LP */
    int slow[HS_SPLIT_MAX_DEVICES];
    int dropped[HS_SPLIT_MAX_DEVICES];
    int ran[HS_SPLIT_MAX_DEVICES];        /* ran a chunk in this sub-region */
    size_t region_left;                   /* items of it not yet finished */
    int regions;
    int lp_failures;
} coretsar;

/* The LP of Fig. 4 for n devices with times per item p[] (> 0): fills f[]
 * (>= 0, summing to 1).  Falls back to f_j proportional to 1/p_j (the LP's
 * optimum) and returns -1 if GLPK does not find an optimum. */
static int lp_fractions(const double *p, int n, double *f)
{
    int ncols = n + 2 * (n - 1), nrows = n, nz = 0, ok;
    int *ia = NULL, *ja = NULL;
    double *ar = NULL, pmax = 0, inv = 0;
    glp_prob *lp;
    glp_smcp parm;
    for (int j = 0; j < n; j++) {
        pmax = fmax(pmax, p[j]);
        inv += 1 / p[j];
    }
    for (int j = 0; j < n; j++) /* the fallback, and the answer for n = 1 */
        f[j] = 1 / p[j] / inv;
    if (n == 1)
        return 0;
    ia = malloc((size_t)(5 * n) * sizeof *ia);
    ja = malloc((size_t)(5 * n) * sizeof *ja);
    ar = malloc((size_t)(5 * n) * sizeof *ar);
    if (!ia || !ja || !ar) {
        free(ia);
        free(ja);
        free(ar);
        return -1;
    }
    hs__glpk_lock();
    lp = glp_create_prob();
    glp_set_obj_dir(lp, GLP_MIN);
    glp_add_cols(lp, ncols);
    for (int c = 1; c <= ncols; c++) {
        glp_set_col_bnds(lp, c, GLP_LO, 0.0, 0.0);
        glp_set_obj_coef(lp, c, c > n ? 1.0 : 0.0); /* eq. (7): the slacks */
    }
    glp_add_rows(lp, nrows);
    glp_set_row_bnds(lp, 1, GLP_FX, 1.0, 1.0); /* eq. (8): sum f_j = 1 */
    for (int j = 1; j <= n; j++) {
        nz++;
        ia[nz] = 1, ja[nz] = j, ar[nz] = 1.0;
    }
    for (int k = 1; k < n; k++) { /* eq. (9)-(11): f_{k+1} p_{k+1} - f_1 p_1 = t+ - t- */
        int row = k + 1;
        glp_set_row_bnds(lp, row, GLP_FX, 0.0, 0.0);
        nz++;
        ia[nz] = row, ja[nz] = k + 1, ar[nz] = p[k] / pmax;
        nz++;
        ia[nz] = row, ja[nz] = 1, ar[nz] = -p[0] / pmax;
        nz++;
        ia[nz] = row, ja[nz] = n + k, ar[nz] = -1.0;
        nz++;
        ia[nz] = row, ja[nz] = n + (n - 1) + k, ar[nz] = 1.0;
    }
    glp_load_matrix(lp, nz, ia, ja, ar);
    glp_init_smcp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    parm.presolve = GLP_ON;
    ok = glp_simplex(lp, &parm) == 0 && glp_get_status(lp) == GLP_OPT;
    if (ok) {
        double sum = 0;
        for (int j = 0; j < n; j++)
            sum += f[j] = fmax(0.0, glp_get_col_prim(lp, j + 1));
        if (sum > 0)
            for (int j = 0; j < n; j++)
                f[j] /= sum;
        else
            ok = 0;
    }
    glp_delete_prob(lp);
    glp_free_env(); /* GLPK keeps one environment per thread: device threads
                       that end would leak it */
    hs__glpk_unlock();
    free(ia);
    free(ja);
    free(ar);
    if (!ok)
        for (int j = 0; j < n; j++)
            f[j] = 1 / p[j] / inv;
    return ok ? 0 : -1;
}

/* Sec. 3.3: hints when all are known, else the 4-to-1 cycle rule. */
static void default_times(coretsar *s)
{
    const hs_split_device *dev = s->core.dev;
    int n = s->core.ndev, all = 1, cg = 0, gpus = 0;
    double tg;
    for (int j = 0; j < n; j++) {
        all &= dev[j].rate_hint > 0;
        if (dev[j].kind == HS_DEVICE_GPU) {
            gpus++;
            if (dev[j].cores > cg)
                cg = dev[j].cores;
        }
    }
    if (all) {
        for (int j = 0; j < n; j++)
            s->p[j] = 1 / dev[j].rate_hint;
        return;
    }
    tg = gpus ? 1.0 / (cg > 0 ? cg : 1) / 4 : 0.5;
    for (int j = 0; j < n; j++)
        s->p[j] = dev[j].kind == HS_DEVICE_GPU ? tg
                                               : (1 - tg) / (dev[j].cores > 0 ? dev[j].cores : 1);
}

static int coretsar_start(const hs_split_kernel *k, const hs_split_device *dev, int ndev,
                          const hs_split_options *opt, const hs_split_memory *mem, void **state,
                          hs_error *err)
{
    hs_split_options o = {0};
    coretsar *s;
    int rc;
    if (opt)
        o = *opt;
    if (o.schedule < HS_CORETSAR_SPLIT || o.schedule > HS_CORETSAR_QUICK || o.div < 0 ||
        o.backoff < 0)
        return hs_error_set(err, HS_EINPUT, "coretsar: bad schedule, div or backoff");
    if (!(s = calloc(1, sizeof *s)))
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    if ((rc = hs__split_core_init(&s->core, k, dev, ndev, !(opt && opt->no_takeback), err)) != HS_OK) {
        free(s);
        return rc;
    }
    s->schedule = o.schedule;
    s->div = o.div > 0 ? o.div : 10;
    s->backoff = o.backoff > 0 ? o.backoff : 2;
    default_times(s);
    if (mem && mem->runs > 0 && mem->ndevices == ndev && s->schedule != HS_CORETSAR_STATIC)
        for (int j = 0; j < ndev; j++) {
            if (mem->us_per_item[j] > 0)
                s->p[j] = mem->us_per_item[j];
            s->slow[j] = mem->slow_passes[j];
            s->dropped[j] = mem->dropped[j];
        }
    *state = s;
    return HS_OK;
}

/* Size of the next sub-region when `left` items have not been cut yet. */
static size_t region_size(const coretsar *s, size_t left)
{
    size_t r = (s->core.items + (size_t)s->div - 1) / (size_t)s->div;
    if (s->schedule == HS_CORETSAR_STATIC || s->schedule == HS_CORETSAR_ADAPTIVE ||
        (s->schedule == HS_CORETSAR_QUICK && s->regions > 0))
        return left;
    return r < left ? r : left;
}

/* Cuts the next sub-region and reserves each device its part; 0, or -1 if
 * no device may take part any more. */
static int cut_region(coretsar *s, double now)
{
    hs__split_core *c = &s->core;
    int on[HS_SPLIT_MAX_DEVICES], n = 0;
    double p[HS_SPLIT_MAX_DEVICES], f[HS_SPLIT_MAX_DEVICES];
    size_t r = region_size(s, c->items - c->next), part[HS_SPLIT_MAX_DEVICES], sum = 0, b;
    for (int j = 0; j < c->ndev; j++)
        if (!c->d[j].retired && !s->dropped[j]) {
            on[n] = j;
            p[n++] = s->p[j] > 0 ? s->p[j] : 1e-9;
        }
    if (n == 0)
        return -1;
    if (lp_fractions(p, n, f) != 0)
        s->lp_failures++;
    for (int i = 0; i < n; i++) {
        double x = floor(f[i] * (double)r);
        part[i] = x > (double)(r - sum) ? r - sum : (size_t)x;
        sum += part[i];
    }
    for (int i = 0; sum < r; i = (i + 1) % n) { /* Sec. 4.1.1: round-robin */
        part[i]++;
        sum++;
    }
    b = c->next;
    for (int i = 0; i < n; i++)
        if (part[i] > 0) {
            hs__split_reserve(c, on[i], b, b + part[i], now);
            b += part[i];
        }
    c->next = b;
    s->region_left = r;
    s->regions++;
    return 0;
}

/* After a sub-region: new times per item from the devices that ran in it,
 * then the back-off rule. */
static void end_region(coretsar *s)
{
    const hs__split_core *c = &s->core;
    double slowest_cpu = 0;
    int cpus = 0;
    for (int j = 0; j < c->ndev; j++) {
        if (s->ran[j] && c->d[j].last_items > 0)
            s->p[j] = c->d[j].last_us / (double)c->d[j].last_items;
        if (c->dev[j].kind == HS_DEVICE_CPU && !c->d[j].retired && !s->dropped[j]) {
            cpus++; /* time per item of one of its cores */
            slowest_cpu = fmax(slowest_cpu, s->p[j] * (c->dev[j].cores > 0 ? c->dev[j].cores : 1));
        }
    }
    if (s->schedule != HS_CORETSAR_STATIC && cpus > 0)
        for (int j = 0; j < c->ndev; j++) {
            if (c->dev[j].kind != HS_DEVICE_GPU || !s->ran[j] || s->dropped[j])
                continue;
            s->slow[j] = s->p[j] > slowest_cpu ? s->slow[j] + 1 : 0;
            if (s->slow[j] >= s->backoff)
                s->dropped[j] = 1;
        }
    for (int j = 0; j < c->ndev; j++)
        s->ran[j] = 0;
}

static hs_split_answer coretsar_next(void *state, int d, double now, hs_split_grant *g)
{
    coretsar *s = state;
    hs__split_core *c = &s->core;
    if (c->d[d].retired)
        return HS_SPLIT_STOP;
    if (hs__split_claim(c, d, g) == HS_SPLIT_CHUNK)
        return HS_SPLIT_CHUNK;
    if (s->region_left == 0 && c->next < c->items && cut_region(s, now) == 0 &&
        hs__split_claim(c, d, g) == HS_SPLIT_CHUNK)
        return HS_SPLIT_CHUNK;
    return hs__split_idle(c, d, now, g); /* the barrier, or the end */
}

static int coretsar_finished(void *state, int d, size_t b, size_t e, double us, double now)
{
    coretsar *s = state;
    (void)now;
    if (!hs__split_done(&s->core, d, b, e, us))
        return 0;
    s->ran[d] = 1;
    s->region_left -= e - b;
    if (s->region_left == 0)
        end_region(s);
    return 1;
}

static void coretsar_learn(void *state, hs_split_memory *mem)
{
    coretsar *s = state;
    mem->ndevices = s->core.ndev;
    for (int j = 0; j < s->core.ndev; j++) {
        mem->us_per_item[j] = s->p[j];
        mem->slow_passes[j] = s->slow[j];
        mem->dropped[j] = s->dropped[j];
    }
    mem->runs++;
}

static void coretsar_fini(void *state)
{
    coretsar *s = state;
    if (!s)
        return;
    hs__split_core_free(&s->core);
    free(s);
}

const hs_splitter hs__split_coretsar = {
    .name = "coretsar",
    .description = "CoreTSAR: sub-regions split by the LP of its Fig. 4 (GLPK), with back-off",
    .flags = HS_SPLIT_SURVIVES_FAILURE | HS_SPLIT_LEARNS,
    .start = coretsar_start,
    .next = coretsar_next,
    .finished = coretsar_finished,
    .learn = coretsar_learn,
    .fini = coretsar_fini,
};
