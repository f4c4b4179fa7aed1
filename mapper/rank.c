/* hetsched — priorities, the threshold dispatcher, insertion slots and the
 * planner shared by h-ratio, d-rank, ad-part, heft and peft (mapper/rank.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exec/queue.h"
#include "mapper/policy.h"
#include "mapper/rank.h"
#include "mapper/split_graph.h"

static int nomem(hs_error *err)
{
    return hs_error_set(err, HS_ENOMEM, "out of memory");
}

static size_t at_least_1(size_t n)
{
    return n ? n : 1;
}

/* ================================================================ priorities */

double hs__mean_cost(const hs_graph *g, size_t t)
{
    double sum = 0.0;
    if (g->ndevices <= 0)
        return 0.0;
    for (int d = 0; d < g->ndevices; d++)
        sum += g->tasks[t].cost_us[d];
    return sum / g->ndevices;
}

/* The model's transfer time summed over ordered device pairs whose
 * memories differ (the others cost 0), split into its latency and its
 * per-byte part; the number of pairs averaged over is m(m-1) for HEFT's
 * c-bar, m^2 for eq. (13). */
void hs__link_sums_init(hs__link_sums *s, const hs_platform *pf, int distinct)
{
    int m = pf->ndevices;
    *s = (hs__link_sums){.pairs = distinct ? (double)m * (m - 1) : (double)m * m};
    for (int q = 0; q < m; q++)
        for (int w = 0; w < m; w++) {
            int mq = pf->devices[q].memory, mw = pf->devices[w].memory;
            const hs_link *l = &pf->links[mq * pf->nmemories + mw];
            if (mq == mw)
                continue;
            if (!l->present) {
                s->missing++;
                continue;
            }
            s->latency_us += l->latency_us;
            s->us_per_byte += 1.0 / (l->bandwidth_gbps * 1000.0);
        }
}

double hs__mean_transfer(const hs__link_sums *s, double bytes)
{
    if (s->pairs <= 0 || bytes <= 0)
        return 0.0;
    if (s->missing)
        return HUGE_VAL;
    return (s->latency_us + bytes * s->us_per_byte) / s->pairs;
}

/* eq. (9): F_k = max_h C_h / C_k; eq. (10): H = max_k F_k, which is the
 * largest cost over the smallest.  Zero costs are kept finite where they
 * can be: a task free everywhere is homogeneous (1). */
void hs__h_ratio(const hs_graph *g, double *h)
{
    for (size_t t = 0; t < g->ntasks; t++) {
        double lo = HUGE_VAL, hi = 0.0;
        for (int d = 0; d < g->ndevices; d++) {
            double c = g->tasks[t].cost_us[d];
            lo = c < lo ? c : lo;
            hi = c > hi ? c : hi;
        }
        if (hi <= 0.0)
            h[t] = 1.0;
        else if (lo <= 0.0)
            h[t] = HUGE_VAL;
        else
            h[t] = hi / lo;
    }
}

/* eq. (14), read literally: the max term looks at the immediate successors
 * only (their transfer by eq. (13) plus their own mean cost), so a sink's
 * rank is its mean cost.  The paper calls it structure-based because it
 * pairs a kernel with its heaviest consumer; it is not the recursive upward
 * rank of HEFT, and Definition 1's depth does not enter it. */
void hs__d_rank(const hs_graph *g, const hs_platform *pf, double *rank)
{
    hs__link_sums links;
    hs__link_sums_init(&links, pf, 0);
    for (size_t t = 0; t < g->ntasks; t++) {
        double best = 0.0;
        const hs_edge *e;
        HS_GRAPH_SUCC_FOREACH(g, t, e)
        {
            double v = hs__mean_transfer(&links, e->bytes) + hs__mean_cost(g, e->to);
            if (v > best)
                best = v;
        }
        rank[t] = hs__mean_cost(g, t) + best;
    }
}

/* A topological order of g in a new array (NULL and err set on failure). */
static size_t *topo(const hs_graph *g, hs_error *err)
{
    size_t *order = malloc(at_least_1(g->ntasks) * sizeof *order);
    if (!order) {
        nomem(err);
        return NULL;
    }
    if (hs_graph_topo_order(g, order, err) != 0) {
        free(order);
        return NULL;
    }
    return order;
}

/* Topcuoglu et al., eq. (7)-(8): successors are ranked before their
 * predecessors by walking a topological order backwards. */
int hs__upward_rank(const hs_graph *g, const hs_platform *pf, double *rank, hs_error *err)
{
    hs__link_sums links;
    size_t *order = topo(g, err);
    if (!order)
        return err ? err->code : HS_ENOMEM;
    hs__link_sums_init(&links, pf, 1);
    for (size_t i = g->ntasks; i-- > 0;) {
        size_t t = order[i];
        double best = 0.0;
        const hs_edge *e;
        HS_GRAPH_SUCC_FOREACH(g, t, e)
        {
            double v = hs__mean_transfer(&links, e->bytes) + rank[e->to];
            if (v > best)
                best = v;
        }
        rank[t] = hs__mean_cost(g, t) + best;
    }
    free(order);
    return HS_OK;
}

/* The speed weights of task t (mapper/rank.h, hs__weighted_upward_rank)
 * into p[0 .. m). */
static void speed_weights(const hs_graph *g, size_t t, double *p)
{
    int m = g->ndevices, zeros = 0;
    double sum = 0.0;
    for (int d = 0; d < m; d++)
        zeros += g->tasks[t].cost_us[d] <= 0.0;
    for (int d = 0; d < m; d++) {
        double c = g->tasks[t].cost_us[d];
        p[d] = zeros ? (c <= 0.0 ? 1.0 : 0.0) : 1.0 / c;
        sum += p[d];
    }
    for (int d = 0; d < m; d++)
        p[d] /= sum;
}

/* McSweeney et al., eq. (6)-(7) generalised to any devices, then eq. (3). */
int hs__weighted_upward_rank(const hs_graph *g, const hs_platform *pf, double *rank,
                             hs_error *err)
{
    int m = g->ndevices;
    size_t *order = topo(g, err);
    double *p;
    if (!order)
        return err ? err->code : HS_ENOMEM;
    if (!(p = malloc(at_least_1(g->ntasks * (size_t)m) * sizeof *p))) {
        free(order);
        return nomem(err);
    }
    for (size_t t = 0; t < g->ntasks; t++)
        speed_weights(g, t, &p[t * (size_t)m]);
    for (size_t i = g->ntasks; i-- > 0;) {
        size_t t = order[i];
        const double *pt = &p[t * (size_t)m];
        double mean = 0.0, best = 0.0;
        const hs_edge *e;
        for (int d = 0; d < m; d++)
            mean += pt[d] * g->tasks[t].cost_us[d];
        HS_GRAPH_SUCC_FOREACH(g, t, e)
        {
            const double *ps = &p[e->to * (size_t)m];
            double c = 0.0;
            for (int a = 0; a < m && e->bytes > 0; a++)
                for (int b = 0; b < m; b++) {
                    int ma = pf->devices[a].memory, mb = pf->devices[b].memory;
                    if (ma != mb && pt[a] > 0 && ps[b] > 0)
                        c += pt[a] * ps[b] * hs_transfer_us(pf, ma, mb, e->bytes);
                }
            if (c + rank[e->to] > best)
                best = c + rank[e->to];
        }
        rank[t] = mean + best;
    }
    free(p);
    free(order);
    return HS_OK;
}

/* Topcuoglu et al., eq. (9): predecessors are ranked before their
 * successors by walking a topological order forwards. */
int hs__downward_rank(const hs_graph *g, const hs_platform *pf, double *rank, hs_error *err)
{
    hs__link_sums links;
    size_t *order = topo(g, err);
    if (!order)
        return err ? err->code : HS_ENOMEM;
    hs__link_sums_init(&links, pf, 1);
    for (size_t i = 0; i < g->ntasks; i++) {
        size_t t = order[i];
        double best = 0.0;
        const hs_edge *e;
        HS_GRAPH_PRED_FOREACH(g, t, e)
        {
            double v = rank[e->from] + hs__mean_cost(g, e->from) +
                       hs__mean_transfer(&links, e->bytes);
            if (v > best)
                best = v;
        }
        rank[t] = best;
    }
    free(order);
    return HS_OK;
}

/* McSweeney et al., eq. (8), forwards through a topological order. */
int hs__oft(const hs_graph *g, const hs_platform *pf, double *oft, hs_error *err)
{
    int m = g->ndevices;
    size_t *order = topo(g, err);
    if (!order)
        return err ? err->code : HS_ENOMEM;
    for (size_t i = 0; i < g->ntasks; i++) {
        size_t t = order[i];
        const hs_task *task = &g->tasks[t];
        for (int d = 0; d < m; d++) {
            int md = pf->devices[d].memory;
            double ready = hs_transfer_us(pf, HS_HOST_MEMORY, md, task->input_bytes);
            const hs_edge *e;
            HS_GRAPH_PRED_FOREACH(g, t, e)
            {
                const double *row = &oft[e->from * (size_t)m];
                double best = HUGE_VAL;
                for (int a = 0; a < m; a++) {
                    double v = row[a] + hs_transfer_us(pf, pf->devices[a].memory, md, e->bytes);
                    if (v < best)
                        best = v;
                }
                if (best > ready)
                    ready = best;
            }
            oft[t * (size_t)m + d] = ready + task->cost_us[d];
        }
    }
    free(order);
    return HS_OK;
}

/* Arabnejad & Barbosa, eq. (6)-(7): OCT(t, p) is, over t's successors, the
 * worst of the best way to finish that successor's remaining path if t runs
 * on p.  The transfer term counts where the successor's device has another
 * memory than p (the model moves nothing within a memory; the paper's "w !=
 * p" is the same test on a platform with one device per memory). */
int hs__oct(const hs_graph *g, const hs_platform *pf, double *oct, double *rank,
            hs_error *err)
{
    int m = g->ndevices;
    hs__link_sums links;
    size_t *order = topo(g, err);
    if (!order)
        return err ? err->code : HS_ENOMEM;
    hs__link_sums_init(&links, pf, 1);
    for (size_t i = g->ntasks; i-- > 0;) {
        size_t t = order[i];
        double *row = &oct[t * (size_t)m];
        const hs_edge *e;
        for (int p = 0; p < m; p++)
            row[p] = 0.0;
        HS_GRAPH_SUCC_FOREACH(g, t, e)
        {
            double cbar = hs__mean_transfer(&links, e->bytes);
            const double *srow = &oct[e->to * (size_t)m];
            for (int p = 0; p < m; p++) {
                double best = HUGE_VAL;
                for (int w = 0; w < m; w++) {
                    double v = srow[w] + g->tasks[e->to].cost_us[w];
                    if (pf->devices[w].memory != pf->devices[p].memory)
                        v += cbar;
                    if (v < best)
                        best = v;
                }
                if (best > row[p])
                    row[p] = best;
            }
        }
        if (rank) {
            double sum = 0.0;
            for (int p = 0; p < m; p++)
                sum += row[p];
            rank[t] = m ? sum / m : 0.0;
        }
    }
    free(order);
    return HS_OK;
}

/* ====================================================== threshold dispatcher */

/* The threshold of Alg. 1.  The paper keeps ready tasks in the central,
 * sorted queue so that a task arriving late can still overtake and reach its
 * favourite device, while making sure the devices always have queued work.
 * One queued task per device is not enough for the second aim: earliest
 * finish time sends the first few tasks all to the fastest device, whose
 * queue then holds every slot while slower devices idle.  On random
 * Topcuoglu graphs (100-300 tasks, 2-5 devices, CCR 0.1-5, GPU speedup
 * 1.5-10) the mean makespan falls as thr grows and levels off at about 8
 * per device: at GPU speedup 4, thr = m is 13.5% above no threshold at all,
 * 2m 5.6%, 8m 0.4% (1.2% at speedup 10).  So the default is 8 tasks per
 * device: the devices stay supplied and everything beyond that still waits
 * in priority order. */
int hs__dispatch_default_thr(int ndevices)
{
    return 8 * (ndevices > 0 ? ndevices : 1);
}

typedef struct dispatch {
    double *prio;       /* [ntasks], owned */
    hs__heap central;   /* ready, not dispatched: key -prio, key2 -arrival */
    hs__fifo *queue;    /* [ndevices]: assigned, not started */
    double *bound;      /* [ndevices]: refill's lower bounds of a finish time */
    size_t queued;      /* tasks in all device queues together */
    size_t thr;
    double arrivals;    /* ready() calls so far */
    int ndevices;
    int fresh;          /* events arrived since the last dispatch */
} dispatch;

void hs__dispatch_fini(void *state)
{
    dispatch *s = state;
    if (!s)
        return;
    for (int d = 0; s->queue && d < s->ndevices; d++)
        hs__fifo_free(&s->queue[d]);
    free(s->queue);
    free(s->bound);
    hs__heap_free(&s->central);
    free(s->prio);
    free(s);
}

int hs__dispatch_new(hs_engine *e, const hs_map_options *opt, double *prio, void **state,
                     hs_error *err)
{
    const hs_graph *g = hs_engine_graph(e);
    dispatch *s;
    int thr = opt ? opt->thr : 0;
    size_t cap;
    if (thr < 0) {
        free(prio);
        return hs_error_set(err, HS_EINPUT, "thr must be >= 0 (0: the default), not %d", thr);
    }
    s = calloc(1, sizeof *s);
    if (!s) {
        free(prio);
        return nomem(err);
    }
    s->prio = prio;
    s->ndevices = g->ndevices;
    s->thr = (size_t)(thr ? thr : hs__dispatch_default_thr(g->ndevices));
    /* ready() and pick() cannot fail, so reserve now: the central queue
     * holds at most every task, a device queue at most thr of them. */
    cap = s->thr < g->ntasks ? s->thr : g->ntasks;
    s->queue = calloc((size_t)g->ndevices, sizeof *s->queue);
    s->bound = malloc((size_t)(g->ndevices > 0 ? g->ndevices : 1) * sizeof *s->bound);
    s->central.a = malloc(at_least_1(g->ntasks) * sizeof *s->central.a);
    if (!s->queue || !s->bound || !s->central.a)
        goto fail;
    s->central.cap = at_least_1(g->ntasks);
    for (int d = 0; d < g->ndevices; d++) {
        if (!(s->queue[d].buf = malloc(at_least_1(cap) * sizeof *s->queue[d].buf)))
            goto fail;
        s->queue[d].cap = at_least_1(cap);
    }
    *state = s;
    return HS_OK;
fail:
    hs__dispatch_fini(s);
    return nomem(err);
}

/* PushTask of Alg. 1 (lines 1-8): into the central queue, largest priority
 * first.  Lines 3-7 put a task before the first queued one whose priority is
 * not larger, so among equal priorities the newest goes first: key2 is minus
 * the arrival number.  Dispatching waits for the next pick(), which comes
 * right after the batch of events, so the whole batch is sorted first. */
void hs__dispatch_ready(void *state, hs_engine *e, size_t task)
{
    dispatch *s = state;
    (void)e;
    s->arrivals += 1.0;
    s->fresh = 1;
    (void)hs__heap_push(&s->central, -s->prio[task], -s->arrivals, task); /* reserved */
}

/* A completion opens a new batch of events: the next pick dispatches, and
 * fills the places that the previous batch's picks freed. */
void hs__dispatch_done(void *state, hs_engine *e, size_t task, int device, double measured_us)
{
    dispatch *s = state;
    (void)e;
    (void)task;
    (void)device;
    (void)measured_us;
    s->fresh = 1;
}

/* The device of earliest finish time for task t, the lowest index among
 * equals.  A finish time is max(available, data ready) + cost, never below
 * available + cost (bound[]), which costs no pass over t's inputs: the
 * device of least bound is tried first, and a device whose bound is no
 * better than the best finish so far is passed over. */
static int dispatch_device(dispatch *s, hs_engine *e, size_t t)
{
    int first = 0, best;
    double best_f;
    for (int d = 0; d < s->ndevices; d++) {
        s->bound[d] = hs_engine_device_available(e, d) + hs_engine_cost(e, t, d);
        if (s->bound[d] < s->bound[first])
            first = d;
    }
    best = first;
    best_f = hs_engine_finish_time(e, t, first);
    for (int d = 0; d < s->ndevices; d++) {
        double f;
        if (d == first || s->bound[d] > best_f || (s->bound[d] == best_f && d > best))
            continue;
        f = hs_engine_finish_time(e, t, d);
        if (f < best_f || (f == best_f && d < best)) {
            best_f = f;
            best = d;
        }
    }
    return best;
}

/* PushTaskOnDeviceQueue of Alg. 1 (lines 9-21), repeated while fewer than
 * thr tasks wait in device queues: the head of the central queue goes to
 * the device of earliest finish time, eq. (11)-(12).  The engine's finish
 * time takes max(available, data ready) where eq. (12) adds the two: the
 * data can move while the device works, as the delay model says.  Ties go
 * to the lower device index. */
static void refill(dispatch *s, hs_engine *e)
{
    hs__heap_entry top;
    while (s->queued < s->thr && hs__heap_pop(&s->central, &top) == 0) {
        int best = dispatch_device(s, e, top.item);
        hs_engine_assign(e, top.item, best);
        (void)hs__fifo_push(&s->queue[best], top.item); /* reserved: len <= thr */
        s->queued++;
    }
}

/* A device takes the oldest task of its own queue (FIFO).  The queues are
 * topped up once per batch of events, at its first pick, before any device
 * takes work: the engine asks each idle device once per batch, so a task
 * dispatched later in the batch could land on an idle device that was
 * already asked and would wait there for the next event.  Places freed by
 * this batch's picks are filled at the next batch, before anyone pops. */
long hs__dispatch_pick(void *state, hs_engine *e, int device)
{
    dispatch *s = state;
    size_t t;
    if (s->fresh) {
        refill(s, e);
        s->fresh = 0;
    }
    if (hs__fifo_pop(&s->queue[device], &t) != 0)
        return HS_NO_TASK;
    s->queued--;
    return (long)t;
}

/* A device's own queue is the order in which it takes its tasks, as a
 * plan's is (hs__planned_ahead): their inputs from host move there in that
 * order, in the link's idle time before the next completion.  The queue
 * holds at most thr tasks, so it is walked from its head each time. */
void hs__dispatch_ahead(void *state, hs_engine *e, int device)
{
    dispatch *s = state;
    const hs__fifo *q = &s->queue[device];
    for (size_t i = 0; i < q->len; i++)
        if (hs_engine_prefetch_input(e, q->buf[(q->head + i) % q->cap], device))
            break;
}

/* ========================================================== insertion slots */

void hs__slots_init(hs__slots *s)
{
    memset(s, 0, sizeof *s);
    s->root = s->last = -1;
    s->rng = 2463534242u;
}

void hs__slots_free(hs__slots *s)
{
    free(s->node);
    hs__slots_init(s);
}

static double gap_of(const hs__slot *x)
{
    return x->start - x->lo;
}

/* Recomputes x's subtree maximum from its children. */
static void pull(hs__slots *s, long x)
{
    hs__slot *n = &s->node[x];
    double m = gap_of(n);
    if (n->l >= 0 && s->node[n->l].maxgap > m)
        m = s->node[n->l].maxgap;
    if (n->r >= 0 && s->node[n->r].maxgap > m)
        m = s->node[n->r].maxgap;
    n->maxgap = m;
}

static void pull_to_root(hs__slots *s, long x)
{
    for (; x >= 0; x = s->node[x].p)
        pull(s, x);
}

/* Rotates x above its parent, keeping the in-order sequence. */
static void rotate_up(hs__slots *s, long x)
{
    hs__slot *N = s->node;
    long p = N[x].p, gp = N[p].p;
    if (N[p].l == x) {
        N[p].l = N[x].r;
        if (N[x].r >= 0)
            N[N[x].r].p = p;
        N[x].r = p;
    } else {
        N[p].r = N[x].l;
        if (N[x].l >= 0)
            N[N[x].l].p = p;
        N[x].l = p;
    }
    N[p].p = x;
    N[x].p = gp;
    if (gp < 0)
        s->root = x;
    else if (N[gp].l == p)
        N[gp].l = x;
    else
        N[gp].r = x;
    pull(s, p);
    pull(s, x);
}

/* The leftmost node of x's subtree whose gap is >= dur, or -1.  The subtree
 * maxima make it one descent. */
static long leftmost_fit(const hs__slots *s, long x, double dur)
{
    const hs__slot *N = s->node;
    if (x < 0 || N[x].maxgap < dur)
        return -1;
    for (;;) {
        if (N[x].l >= 0 && N[N[x].l].maxgap >= dur)
            x = N[x].l;
        else if (gap_of(&N[x]) >= dur)
            return x;
        else
            x = N[x].r;
    }
}

/* Two cases: the idle stretch around `ready` (between p, the last interval
 * starting before it, and q, the next one) fits, or the first later
 * gap long enough does, found by walking from q towards the root and
 * searching each right subtree met on the way.  O(log k) expected.  On a
 * busy device most tasks go after the latest interval: the two tests that
 * lead there without a walk (ready after the latest start; no gap long
 * enough) save walks whose nodes miss the cache at a million intervals. */
double hs__slots_earliest(const hs__slots *s, double ready, double dur)
{
    const hs__slot *N = s->node;
    long cur = s->root, p = -1, q = -1, x;
    double s0 = ready;
    if (s->last >= 0 && N[s->last].start < ready) /* the walk would end at p = last, no q */
        cur = -1, p = s->last;
    while (cur >= 0) {
        if (N[cur].start < ready) {
            p = cur;
            cur = N[cur].r;
        } else {
            q = cur;
            cur = N[cur].l;
        }
    }
    if (p >= 0 && N[p].end > s0)
        s0 = N[p].end;
    if (q < 0 || s0 + dur <= N[q].start)
        return s0;
    if (N[s->root].maxgap < dur) /* no gap fits: after the last interval */
        return N[s->last].end;
    if ((x = leftmost_fit(s, N[q].r, dur)) >= 0)
        return N[x].lo;
    for (x = q; N[x].p >= 0; x = N[x].p) {
        long par = N[x].p, y;
        if (N[par].l != x)
            continue;
        if (gap_of(&N[par]) >= dur)
            return N[par].lo;
        if ((y = leftmost_fit(s, N[par].r, dur)) >= 0)
            return N[y].lo;
    }
    return N[s->last].end; /* no gap fits */
}

int hs__slots_insert(hs__slots *s, double start, double end)
{
    hs__slot *N;
    long x, cur, parent = -1, pred = -1, succ = -1;
    int left = 0;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        hs__slot *node = realloc(s->node, cap * sizeof *node);
        if (!node)
            return -1;
        s->node = node;
        s->cap = cap;
    }
    N = s->node;
    x = (long)s->n++;
    /* xorshift32: the treap's random priorities */
    s->rng ^= s->rng << 13;
    s->rng ^= s->rng >> 17;
    s->rng ^= s->rng << 5;
    N[x] = (hs__slot){.start = start, .end = end, .prio = s->rng, .l = -1, .r = -1, .p = -1};
    for (cur = s->root; cur >= 0;) {
        parent = cur;
        left = start < N[cur].start || (start == N[cur].start && end < N[cur].end);
        if (left) {
            succ = cur;
            cur = N[cur].l;
        } else {
            pred = cur;
            cur = N[cur].r;
        }
    }
    N[x].p = parent;
    if (parent < 0)
        s->root = x;
    else if (left)
        N[parent].l = x;
    else
        N[parent].r = x;
    N[x].lo = pred >= 0 ? N[pred].end : 0.0;
    if (succ < 0)
        s->last = x;
    pull(s, x);
    while (N[x].p >= 0 && N[x].prio > N[N[x].p].prio)
        rotate_up(s, x);
    pull_to_root(s, x);
    if (succ >= 0) {
        N[succ].lo = end;
        pull_to_root(s, succ);
    }
    return 0;
}

/* ========================================================= planned schedule */

int hs__plan_alloc(hs__plan *plan, size_t n, hs_error *err)
{
    plan->device = malloc(at_least_1(n) * sizeof *plan->device);
    plan->start = malloc(at_least_1(n) * sizeof *plan->start);
    plan->end = malloc(at_least_1(n) * sizeof *plan->end);
    if (plan->device && plan->start && plan->end)
        return HS_OK;
    hs__plan_free(plan);
    return nomem(err);
}

void hs__plan_free(hs__plan *plan)
{
    free(plan->device);
    free(plan->start);
    free(plan->end);
    memset(plan, 0, sizeof *plan);
}

double hs__planner_data_ready(const hs__planner *p, size_t t, int d)
{
    const hs_graph *g = p->g;
    int mem = p->pf->devices[d].memory;
    double at = hs_transfer_us(p->pf, HS_HOST_MEMORY, mem, g->tasks[t].input_bytes);
    const hs_edge *e;
    HS_GRAPH_PRED_FOREACH(g, t, e)
    {
        int du = p->plan.device[e->from];
        double v;
        if (du < 0)
            continue;
        v = p->plan.end[e->from] +
            hs_transfer_us(p->pf, p->pf->devices[du].memory, mem, e->bytes);
        if (v > at)
            at = v;
    }
    return at;
}

/* hs__planner_data_ready of t on every device into at[ndevices], in one
 * walk over its predecessors: at a million tasks each predecessor's place
 * in the plan is a cache miss, taken once instead of once per device.  The
 * same maxima of the same values, so the same times. */
static void data_ready_all(const hs__planner *p, size_t t, double *at)
{
    const hs_graph *g = p->g;
    const hs_device *dev = p->pf->devices;
    int m = g->ndevices;
    const hs_edge *e;
    for (int d = 0; d < m; d++)
        at[d] = hs_transfer_us(p->pf, HS_HOST_MEMORY, dev[d].memory, g->tasks[t].input_bytes);
    HS_GRAPH_PRED_FOREACH(g, t, e)
    {
        int du = p->plan.device[e->from];
        double end;
        if (du < 0)
            continue;
        end = p->plan.end[e->from];
        for (int d = 0; d < m; d++) {
            double v = end + hs_transfer_us(p->pf, dev[du].memory, dev[d].memory, e->bytes);
            if (v > at[d])
                at[d] = v;
        }
    }
}

double hs__planner_start(const hs__planner *p, size_t t, int d)
{
    return hs__slots_earliest(&p->slots[d], hs__planner_data_ready(p, t, d),
                              p->g->tasks[t].cost_us[d]);
}

int hs__plan_list(const hs_graph *g, const hs_platform *pf, const hs_map_options *opt,
                  const double *prio, hs__choose_fn choose, void *ctx, hs__plan *plan,
                  hs_error *err)
{
    const int *pin = hs__split_graph_pins(opt, g);
    size_t n = g->ntasks, placed = 0;
    int m = g->ndevices, rc = HS_OK;
    size_t *left = calloc(at_least_1(n), sizeof *left);
    double *est = malloc((size_t)(m > 0 ? m : 1) * sizeof *est);
    hs__planner p = {.g = g, .pf = pf};
    hs__heap ready = {0};
    hs__heap_entry top;
    memset(plan, 0, sizeof *plan);
    if (m <= 0 && n > 0) {
        free(left);
        free(est);
        return hs_error_set(err, HS_EINPUT, "the platform has no device");
    }
    p.slots = calloc((size_t)(m > 0 ? m : 1), sizeof *p.slots);
    if (!left || !est || !p.slots)
        rc = nomem(err);
    else
        rc = hs__plan_alloc(&p.plan, n, err);
    if (rc != HS_OK)
        goto out;
    for (int d = 0; d < m; d++)
        hs__slots_init(&p.slots[d]);
    for (size_t t = 0; t < n; t++) {
        p.plan.device[t] = -1;
        left[t] = g->pred_off[t + 1] - g->pred_off[t];
        if (left[t] == 0 && hs__heap_push(&ready, -prio[t], (double)t, t) != 0) {
            rc = nomem(err);
            goto out;
        }
    }
    while (hs__heap_pop(&ready, &top) == 0) {
        size_t t = top.item;
        const hs_edge *e;
        int d;
        data_ready_all(&p, t, est);
        for (d = 0; d < m; d++)
            est[d] = hs__slots_earliest(&p.slots[d], est[d], g->tasks[t].cost_us[d]);
        d = pin && pin[t] >= 0 ? pin[t] : choose(ctx, &p, t, est);
        p.plan.device[t] = d;
        p.plan.start[t] = est[d];
        p.plan.end[t] = est[d] + g->tasks[t].cost_us[d];
        if (hs__slots_insert(&p.slots[d], p.plan.start[t], p.plan.end[t]) != 0) {
            rc = nomem(err);
            goto out;
        }
        placed++;
        HS_GRAPH_SUCC_FOREACH(g, t, e)
        {
            if (--left[e->to] == 0 &&
                hs__heap_push(&ready, -prio[e->to], (double)e->to, e->to) != 0) {
                rc = nomem(err);
                goto out;
            }
        }
    }
    if (placed != n)
        rc = hs_error_set(err, HS_EINPUT, "the task graph has a cycle");
out:
    for (int d = 0; p.slots && d < m; d++)
        hs__slots_free(&p.slots[d]);
    free(p.slots);
    free(left);
    free(est);
    hs__heap_free(&ready);
    if (rc == HS_OK)
        *plan = p.plan;
    else
        hs__plan_free(&p.plan);
    return rc;
}

/* HEFT's device choice, plus PEFT's OCT when a bonus table is given. */
static int earliest_finish(void *ctx, const hs__planner *p, size_t t, const double *est)
{
    const double *bonus = ctx;
    const hs_task *task = &p->g->tasks[t];
    int m = p->g->ndevices, best = 0;
    double best_score = HUGE_VAL;
    for (int d = 0; d < m; d++) {
        double score = est[d] + task->cost_us[d] + (bonus ? bonus[t * (size_t)m + d] : 0.0);
        if (d == 0 || score < best_score) {
            best = d;
            best_score = score;
        }
    }
    return best;
}

int hs__plan_compute(const hs_graph *g, const hs_platform *pf, const hs_map_options *opt,
                     const double *prio, const double *bonus, hs__plan *plan, hs_error *err)
{
    return hs__plan_list(g, pf, opt, prio, earliest_finish, (void *)bonus, plan, err);
}

int hs__plan_ranked(const hs_graph *g, const hs_platform *pf, const hs_map_options *opt,
                    hs__rank_fn rank_fn, hs__plan *plan, hs_error *err)
{
    double *rank = malloc(at_least_1(g->ntasks) * sizeof *rank);
    int rc;
    if (!rank)
        return nomem(err);
    rc = rank_fn(g, pf, rank, err);
    if (rc == HS_OK)
        rc = hs__plan_compute(g, pf, opt, rank, NULL, plan, err);
    free(rank);
    return rc;
}

typedef struct planned {
    hs__plan plan;
    size_t *order;        /* tasks grouped by device, in planned order */
    size_t *off;          /* [ndevices + 1] into order */
    size_t *pos;          /* [ndevices]: next entry of order to hand out */
    size_t *ahead;        /* [ndevices]: next entry of order whose input from host
                             may still have some to move (hs__planned_ahead) */
    unsigned char *ready; /* [ntasks] */
} planned;

typedef struct plan_key {
    double start, end;
    size_t topo;          /* position in a topological order */
    size_t task;
} plan_key;

/* Start, then end; tasks of no duration at one instant by topological
 * position, so that a chain of them runs in its order. */
static int by_start(const void *a, const void *b)
{
    const plan_key *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    return (x->topo > y->topo) - (x->topo < y->topo);
}

void hs__planned_fini(void *state)
{
    planned *s = state;
    if (!s)
        return;
    hs__plan_free(&s->plan);
    free(s->order);
    free(s->off);
    free(s->pos);
    free(s->ahead);
    free(s->ready);
    free(s);
}

/* Groups the tasks by planned device (a counting pass) and sorts each
 * device's group into planned order. */
int hs__planned_new(hs_engine *e, hs__plan *plan, void **state, hs_error *err)
{
    const hs_graph *g = hs_engine_graph(e);
    size_t n = g->ntasks;
    int m = g->ndevices;
    size_t *order = topo(g, err), *fill = NULL;
    plan_key *keys = NULL;
    planned *s = NULL;
    if (!order) {
        hs__plan_free(plan);
        return err ? err->code : HS_ENOMEM;
    }
    s = calloc(1, sizeof *s);
    keys = malloc(at_least_1(n) * sizeof *keys);
    fill = calloc((size_t)m + 1, sizeof *fill);
    if (!s || !keys || !fill)
        goto fail;
    s->plan = *plan;
    memset(plan, 0, sizeof *plan);
    s->order = malloc(at_least_1(n) * sizeof *s->order);
    s->off = calloc((size_t)m + 1, sizeof *s->off);
    s->pos = calloc((size_t)(m > 0 ? m : 1), sizeof *s->pos);
    s->ahead = calloc((size_t)(m > 0 ? m : 1), sizeof *s->ahead);
    s->ready = calloc(at_least_1(n), 1);
    if (!s->order || !s->off || !s->pos || !s->ahead || !s->ready)
        goto fail;
    for (size_t t = 0; t < n; t++)
        s->off[s->plan.device[t] + 1]++;
    for (int d = 0; d < m; d++)
        s->off[d + 1] += s->off[d];
    memcpy(fill, s->off, (size_t)m * sizeof *fill);
    for (size_t k = 0; k < n; k++) {
        size_t t = order[k];
        keys[fill[s->plan.device[t]]++] = (plan_key){
            .start = s->plan.start[t], .end = s->plan.end[t], .topo = k, .task = t};
    }
    for (int d = 0; d < m; d++)
        qsort(keys + s->off[d], s->off[d + 1] - s->off[d], sizeof *keys, by_start);
    for (size_t i = 0; i < n; i++)
        s->order[i] = keys[i].task;
    free(order);
    free(keys);
    free(fill);
    *state = s;
    return HS_OK;
fail:
    free(order);
    free(keys);
    free(fill);
    if (s)
        hs__planned_fini(s);
    else
        hs__plan_free(plan);
    return nomem(err);
}

int hs__planned_init(hs_engine *e, const hs_map_options *opt, hs__plan_fn plan_fn,
                     void **state, hs_error *err)
{
    hs__plan plan;
    int rc = plan_fn(hs_engine_graph(e), hs_engine_platform(e), opt, &plan, err);
    return rc != HS_OK ? rc : hs__planned_new(e, &plan, state, err);
}

/* A ready task is committed to its planned device: the engine counts it in
 * that device's availability and a real backend may fetch its inputs. */
void hs__planned_ready(void *state, hs_engine *e, size_t task)
{
    planned *s = state;
    s->ready[task] = 1;
    hs_engine_assign(e, task, s->plan.device[task]);
}

/* The plan's order on each device is kept even when a later task of that
 * device is ready first: the plan put the earlier one there on purpose. */
long hs__planned_pick(void *state, hs_engine *e, int device)
{
    planned *s = state;
    size_t i = s->off[device] + s->pos[device];
    (void)e;
    if (i >= s->off[device + 1] || !s->ready[s->order[i]])
        return HS_NO_TASK;
    s->pos[device]++;
    return (long)s->order[i];
}

/* The plan knows which tasks d runs next: their inputs from host move
 * there in the plan's order, in the link's idle time before the next
 * completion (hs_engine_prefetch_input), so that the first one's copy
 * comes first and no copy that completion brings waits behind them.
 * Moving every task's inputs at its commitment instead made heft, peft and
 * hoft 10-30% slower in the executor's model: copies of tasks planned late
 * went ahead of those that run sooner.  Moving a whole large input at once
 * (a 512-MB copy of 10 ms) held up the copies on the critical path: heft-wm
 * 14% slower on mixed. */
void hs__planned_ahead(void *state, hs_engine *e, int device)
{
    planned *s = state;
    size_t end = s->off[device + 1] - s->off[device];
    if (s->ahead[device] < s->pos[device])
        s->ahead[device] = s->pos[device];
    while (s->ahead[device] < end &&
           !hs_engine_prefetch_input(e, s->order[s->off[device] + s->ahead[device]], device))
        s->ahead[device]++;
}
