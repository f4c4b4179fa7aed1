/* hetsched — the engine (exec/engine.h): readiness, time and data residency,
 * driving a policy (mapper/policy.h) with events and a backend
 * (exec/backend.h) with work.
 *
 * One run, in batches:
 *   1. ask every idle device, and every device that holds fewer started
 *      tasks than its depth (the backend's; 1 under sim) and has tasks
 *      committed to it (hs_engine_assign), in index order, for its next task
 *      (pick) and start what it returns, no earlier than its inputs can be
 *      there; repeat over the devices that took one and may take more until
 *      every device is full or declined;
 *   2. wait for the next completion, then take every other completion of
 *      the same instant (backend poll), ordered by the backend (sim: end,
 *      device, start order);
 *   3. account for them (placements, residency, predecessor counts), then
 *      tell the policy: done(t) followed by ready() of each successor that
 *      t made ready, completion by completion; back to 1.
 * Where the backend drives (backend.h: the real backends), each batch is one
 * step: the completions posted so far (2, without waiting), accounted (3),
 * then the picks (1), run by a worker thread that posted one: a chain of
 * short tasks then never waits for another thread.
 * Work per event is O(degree + devices) plus the heaps' O(log n): the whole
 * run is O((n + e) log n) for a fixed number of devices.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exec/backend.h"
#include "exec/engine.h"
#include "graph/transfer.h"
#include "mapper/parts.h"
#include "mapper/policy.h"
#include "mapper/split.h"
#include "workloads/kernels/kernel.h"

/* A task split at run time (hs_map_options.live_split): its splitter's
 * state, and its chunks' placements. */
typedef struct live {
    size_t task;
    int owner;              /* the device the policy gave it to */
    double opened;          /* when */
    void *state;
    hs_split_kernel k;
    hs_split_device *dev;   /* [ndevices]: what the splitter is told */
    size_t items, done;     /* items in all, accepted so far */
    long *parts;            /* its chunks' placements, in completion order */
    size_t nparts, capparts;
    struct live *next;
} live;

enum { T_WAITING, T_READY, T_RUNNING, T_DONE };

struct hs_engine {
    const hs_workload *w;
    const hs_platform *pf;
    const hs_graph *g;
    const hs_policy *policy;
    void *pstate;
    hs_backend *b;
    double now;             /* µs, the backend's clock at the current batch */
    /* per task */
    size_t *waiting;        /* predecessors not finished */
    unsigned char *state;   /* T_* */
    int *device;            /* device it runs / ran on, or -1 */
    int *assigned;          /* device whose queue holds it (hs_engine_assign), or -1 */
    double *end;            /* end: actual once done, predicted while running or queued */
    uint64_t *valid;        /* [ntasks][words]: memories holding a copy of its output */
    size_t words;
    int *ready_memory;      /* the memory of its last data-ready time, -1: none */
    double *ready_at;       /*   (hs_engine_data_ready) */
    /* per device */
    int *depth;             /* most started tasks it may hold (backend depth op) */
    size_t *held;           /* started tasks not yet booked: 0 when idle */
    long *fifo;             /* [ndevices][HS_BACKEND_MAX_DEPTH]: held tasks, start order */
    size_t *fifo_head;      /* where the oldest held task is in its ring */
    unsigned char *declined; /* answered HS_NO_TASK in this pick round */
    double *run_end;        /* predicted end of the last started task */
    /* running a task ahead of a held one that waits for its inputs
     * (order_of): the devices where the model lets it happen, and, beside
     * fifo, each held task's predicted start and whether it was started
     * HS_START_MAY_WAIT */
    unsigned char *reorders;
    double *held_begin;
    unsigned char *held_waits;
    double *tail;           /* predicted end of the queued chain (eq. 11-12 applied in turn) */
    double *queued;         /* sum of the queued tasks' costs */
    size_t *nqueued;
    /* per batch */
    hs_completion *batch;   /* [batch_cap]: one per held task at most */
    size_t batch_cap;       /* the sum of the depths */
    size_t *newly_ready;    /* [ntasks] */
    size_t *ready_off;      /* [batch_cap + 1] */
    /* the executor's model (hs_map_options.executor_depth): exec_depth
     * under the simulator, which then records its copies and holds;
     * exec_model wherever the engine's estimates follow it (a real run
     * predicted with it too: hs_map_options.executor_estimates) */
    const int *exec_depth;  /* NULL: not simulating the executor */
    int exec_model;         /* 0: the delay model's estimates */
    double *link_free;      /* [nmemories^2]: when each link's queue is empty */
    double *arrive;         /* [ntasks][nmemories]: when its data are there */
    double *input_at;       /* [ntasks]: when its input from host is on input_mem[t] */
    int *input_mem;         /*   (executor_fetch), input_mem -1: not copied yet */
    double *input_moved;    /*   and how many of its bytes are there or on their way
                               (less than all: hs_engine_prefetch_input moved pieces) */
    double *part_in;        /* [ntasks]: a typed part's bytes read and written, or -1 */
    double *part_out;       /*   (part_bytes; NULL when the graph has no typed part) */
    long *placement_of;     /* [ntasks]: its placement in s (executor's model only) */
    hs_transfer *copies;    /* from/to placement fields hold task indices until the end */
    size_t ncopies, capcopies;
    /* failed devices (hs_completion.failed): their work goes to the others */
    unsigned char *dead;    /* [ndevices] */
    long *orphan_next;      /* [ntasks]: next task of its device's orphan list */
    long *orphan_head, *orphan_tail; /* [ndevices]: tasks it runs first */
    int failed_devices;
    size_t rerun;
    /* splitting at run time */
    const hs_splitter *splitter;
    hs_split_options split_opt;
    live *open;             /* tasks being split, oldest first */
    unsigned char *quiet;   /* [batch_cap]: the completion tells the policy nothing */
    size_t live_splits, chunks; /* tasks split, and their chunks */
    /* accounting */
    size_t ndone, events;
    int stepped;            /* drive: the first step (the sources) is done */
    double hook_seconds, busy_us;
    hs_schedule *s;
    char bug[256];          /* misuse by the policy, reported after its hook returns */
};

/* ------------------------------------------------------------- queries */

const hs_workload *hs_engine_workload(const hs_engine *e)
{
    return e->w;
}

const hs_platform *hs_engine_platform(const hs_engine *e)
{
    return e->pf;
}

const hs_graph *hs_engine_graph(const hs_engine *e)
{
    return e->g;
}

double hs_engine_now(const hs_engine *e)
{
    return e->now;
}

double hs_engine_cost(const hs_engine *e, size_t t, int d)
{
    return e->g->tasks[t].cost_us[d];
}

int hs_engine_task_device(const hs_engine *e, size_t t)
{
    return e->device[t];
}

static int memory_of(const hs_engine *e, int d)
{
    return e->pf->devices[d].memory;
}

/* A walk over the edges into task t (in) or out of it of a graph, listed
 * or implied by its whole (hetsched/graph.h): walk_begin, then walk_next
 * gives each edge's other end and bytes (b x f_from x f_to, as
 * hs__part_edges lists them) until it returns 0.  Its edges between parts
 * come in the order hs__part_edges lists them in the adjacency: by the
 * whole's edge, then by part. */
typedef struct edge_walk {
    const hs_graph *g;
    int in;
    size_t k, kend;         /* in g's adjacency, or in its whole's */
    size_t p, pend;         /* implied: the parts at the other end of edge k - 1 */
    double bytes, f;        /* implied: that edge's bytes; t's fraction */
} edge_walk;

static inline void walk_begin(edge_walk *w, const hs_graph *g, size_t t, int in)
{
    const hs_graph *a = g->whole ? g->whole : g;
    size_t o = g->whole ? g->tasks[t].origin : t;
    const size_t *off = in ? a->pred_off : a->succ_off;
    *w = (edge_walk){.g = g, .in = in, .k = off[o], .kend = off[o + 1],
                     .f = g->tasks[t].fraction};
}

static inline int walk_next(edge_walk *w, size_t *other, double *bytes)
{
    const hs_graph *g = w->g, *whole = g->whole;
    const hs_edge *ed;
    double fo;
    if (!whole) {
        if (w->k == w->kend)
            return 0;
        ed = &g->edges[(w->in ? g->pred : g->succ)[w->k++]];
        *other = w->in ? ed->from : ed->to;
        *bytes = ed->bytes;
        return 1;
    }
    while (w->p == w->pend) {
        size_t o;
        if (w->k == w->kend)
            return 0;
        ed = &whole->edges[(w->in ? whole->pred : whole->succ)[w->k++]];
        o = w->in ? ed->from : ed->to;
        w->p = g->part_base[o];
        w->pend = g->part_base[o + 1];
        w->bytes = ed->bytes;
    }
    *other = w->p++;
    fo = g->tasks[*other].fraction;
    *bytes = w->in ? w->bytes * fo * w->f : w->bytes * w->f * fo;
    return 1;
}

#define WALK_IN(w, g, t, u, bytes)                                                                 \
    for (walk_begin(&(w), g, t, 1); walk_next(&(w), &(u), &(bytes));)
#define WALK_OUT(w, g, t, v, bytes)                                                                \
    for (walk_begin(&(w), g, t, 0); walk_next(&(w), &(v), &(bytes));)

/* Delay model (DESIGN.md §1, eq. (4) of Zhou & Liu): an input leaves its
 * producer's memory when the producer ends and arrives transfer_us later; the
 * host input leaves at time 0.  A producer not yet placed is assumed to end
 * at now + its fastest cost, on memory m (an optimistic guess). */
static double data_ready_on(const hs_engine *e, size_t t, int m)
{
    const hs_graph *g = e->g;
    double ready = hs__transfer_us(e->pf, HS_HOST_MEMORY, m, g->tasks[t].input_bytes), bytes;
    edge_walk w;
    size_t u;
    WALK_IN(w, g, t, u, bytes)
    {
        int du = e->device[u] >= 0 ? e->device[u] : e->assigned[u];
        double at;
        if (du >= 0)
            at = e->end[u] + hs__transfer_us(e->pf, memory_of(e, du), m, bytes);
        else
            at = e->now + hs_task_min_cost(g, u);
        if (at > ready)
            ready = at;
    }
    return ready;
}

/* Once every predecessor of t has ended (t is ready), its data-ready time
 * on a memory no longer changes, and the question that chose a device for
 * t comes again when the policy commits t there (hs_engine_assign) and when
 * t starts there: each ready task keeps its last answer. */
double hs_engine_data_ready(const hs_engine *e, size_t t, int d)
{
    int m = memory_of(e, d);
    if (e->state[t] != T_READY)
        return data_ready_on(e, t, m);
    if (e->ready_memory[t] != m) {
        e->ready_memory[t] = m;
        e->ready_at[t] = data_ready_on(e, t, m);
    }
    return e->ready_at[t];
}

/* The later of: the predicted end of the last task d holds (started tasks
 * run in order, so it ends last); the queued chain's predicted end; and that
 * end plus the queued costs, which corrects the chain when tasks start later
 * than it predicted. */
double hs_engine_device_available(const hs_engine *e, int d)
{
    double a = e->now;
    if (e->dead[d])
        return HUGE_VAL; /* failed: no policy should choose it */
    if (e->held[d] > 0 && e->run_end[d] > a)
        a = e->run_end[d];
    if (e->nqueued[d] > 0) {
        double b = a + e->queued[d];
        a = e->tail[d] > b ? e->tail[d] : b;
    }
    return a;
}

/* eq. (11)-(12): the earliest start is the later of the device's
 * availability and the inputs' arrival; the finish adds the cost. */
double hs_engine_finish_time(const hs_engine *e, size_t t, int d)
{
    double avail = hs_engine_device_available(e, d);
    double ready = hs_engine_data_ready(e, t, d);
    return (avail > ready ? avail : ready) + hs_engine_cost(e, t, d);
}

static int has_copy(const hs_engine *e, size_t t, int m)
{
    return (e->valid[t * e->words + (size_t)m / 64] >> ((unsigned)m % 64)) & 1u;
}

static void set_copy(hs_engine *e, size_t t, int m)
{
    e->valid[t * e->words + (size_t)m / 64] |= (uint64_t)1 << ((unsigned)m % 64);
}

int hs_engine_inputs_on(const hs_engine *e, size_t t, int memory)
{
    const hs_graph *g = e->g;
    edge_walk w;
    size_t u;
    double bytes;
    int n = g->tasks[t].input_bytes > 0 && memory == HS_HOST_MEMORY;
    WALK_IN(w, g, t, u, bytes)
    {
        if (bytes > 0 && has_copy(e, u, memory))
            n++;
    }
    return n;
}

/* Takes t out of the queue of the device it was assigned to. */
static void unqueue(hs_engine *e, size_t t)
{
    int a = e->assigned[t];
    e->queued[a] -= hs_engine_cost(e, t, a);
    if (--e->nqueued[a] == 0) {
        e->queued[a] = 0.0; /* no rounding residue once the queue is empty */
        e->tail[a] = 0.0;
    }
    e->assigned[t] = -1;
}

void hs_engine_assign(hs_engine *e, size_t t, int d)
{
    double f;
    if (t >= e->g->ntasks || d < 0 || d >= e->pf->ndevices || e->state[t] >= T_RUNNING) {
        snprintf(e->bug, sizeof e->bug,
                 "policy '%s' assigned task %zu to device %d: no such task or device, or the "
                 "task already started",
                 e->policy->name, t, d);
        return;
    }
    if (e->assigned[t] >= 0) /* a second call moves it (the contract says once) */
        unqueue(e, t);
    f = hs_engine_finish_time(e, t, d);
    e->tail[d] = f;
    e->queued[d] += hs_engine_cost(e, t, d);
    e->nqueued[d]++;
    e->assigned[t] = d;
    e->end[t] = f;
}

/* ------------------------------------------------------------- the run */

/* Seconds on the monotonic clock.  Mapping time is the time spent inside
 * the policy's hooks; it is read once per batch, not per hook, and with the
 * monotonic clock (a vDSO read of about 20 ns) rather than the thread CPU
 * clock (a system call of about 200 ns), which would cost more than the
 * cheap policies' hooks themselves.  The simulation runs in one thread, so
 * the two clocks agree unless the process is descheduled. */
static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int policy_bug(hs_engine *e, hs_error *err)
{
    return hs_error_set(err, HS_EINTERNAL, "%s", e->bug);
}

/* ------------------------------------------------- the executor's model */

/* Queues a copy of `bytes` from memory `from` to memory `to` on that link,
 * once `after` has passed, for task `to_task` (or -1) of data of
 * `from_task` (or -1: a kernel's input from host); returns its end. */
static double queue_copy(hs_engine *e, long from_task, long to_task, int from, int to,
                         double bytes, double after)
{
    size_t link = (size_t)from * (size_t)e->pf->nmemories + (size_t)to;
    double start = after > e->link_free[link] ? after : e->link_free[link];
    double end = start + hs__transfer_us(e->pf, from, to, bytes);
    hs_transfer *c;
    e->link_free[link] = end;
    if (!e->exec_depth)
        return end; /* a real run's estimate: its backend reports the copies */
    if (e->ncopies == e->capcopies) {
        size_t cap = e->capcopies ? 2 * e->capcopies : 256;
        hs_transfer *n = realloc(e->copies, cap * sizeof *n);
        if (!n) {
            snprintf(e->bug, sizeof e->bug, "out of memory for the executor model's copies");
            return end;
        }
        e->copies = n;
        e->capcopies = cap;
    }
    c = &e->copies[e->ncopies++];
    *c = (hs_transfer){.from_placement = from_task, .to_placement = to_task,
                       .from_device = from, .to_device = to, .bytes = bytes,
                       .start_us = start, .end_us = end};
    return end;
}

/* When the data of edge ed's producer are on memory m under the executor's
 * model: a copy of its bytes for ed's consumer, from now on, queued on its
 * link from host when host holds them, else from where the producer ran,
 * unless an earlier copy brought them there. */
static double data_on(hs_engine *e, const hs_edge *ed, int m)
{
    size_t u = ed->from, nm = (size_t)e->pf->nmemories;
    if (!has_copy(e, u, m)) {
        int src = has_copy(e, u, HS_HOST_MEMORY) ? HS_HOST_MEMORY : memory_of(e, e->device[u]);
        double there = e->arrive[u * nm + (size_t)src];
        e->arrive[u * nm + (size_t)m] = queue_copy(e, (long)u, (long)ed->to, src, m, ed->bytes,
                                                   e->now > there ? e->now : there);
        set_copy(e, u, m);
    }
    return e->arrive[u * nm + (size_t)m];
}

/* Whether t is a typed part that runs on memory m through host under the
 * executor's model: the data manager gathers a split kernel's inputs and
 * results in host buffers, copies a part's read spans from there to the
 * device's memory and its written span back (exec/data.c, piece_launch). */
static int part_via_host(const hs_engine *e, size_t t, int m)
{
    return e->part_in && e->part_in[t] >= 0 && m != HS_HOST_MEMORY;
}

/* When part t's inputs are on m (part_via_host): every predecessor's data
 * on host (copied there from where it ran, where no earlier copy brought
 * it), then one copy of the spans t reads, from host. */
static double part_ready(hs_engine *e, size_t t, int m)
{
    const hs_edge *ed;
    double ready = e->now;
    HS_GRAPH_PRED_FOREACH(e->g, t, ed)
    {
        double at = data_on(e, ed, HS_HOST_MEMORY);
        if (at > ready)
            ready = at;
    }
    return e->part_in[t] > 0 ? queue_copy(e, -1, (long)t, HS_HOST_MEMORY, m, e->part_in[t], ready)
                             : ready;
}

/* How many bytes of t's input from host are neither on memory m nor on
 * their way there (executor's model): all of them once it is to go to
 * another memory than the one a copy went to. */
static double input_left(hs_engine *e, size_t t, int m)
{
    if (e->input_mem[t] != m) {
        e->input_mem[t] = m;
        e->input_moved[t] = 0;
    }
    return e->g->tasks[t].input_bytes - e->input_moved[t];
}

/* Queues a copy of `bytes` more of t's input from host to memory m now. */
static void move_input(hs_engine *e, size_t t, int m, double bytes)
{
    e->input_at[t] = queue_copy(e, -1, (long)t, HS_HOST_MEMORY, m, bytes, e->now);
    e->input_moved[t] += bytes;
}

/* When t's inputs are on memory m under the executor's model: its input
 * from host, and each predecessor's data that no earlier copy brought
 * there (from host when host holds it, else from where the predecessor
 * ran), each copied once, from now on, queued on its link. */
static double executor_fetch(hs_engine *e, size_t t, int m)
{
    const hs_graph *g = e->g;
    const hs_edge *ed;
    double ready = e->now;
    if (g->tasks[t].input_bytes > 0 && m != HS_HOST_MEMORY) {
        double left = input_left(e, t, m);
        if (left > 0) /* all of it, or what no piece moved ahead */
            move_input(e, t, m, left);
        ready = fmax(e->input_at[t], e->now);
    }
    HS_GRAPH_PRED_FOREACH(g, t, ed)
    {
        if (ed->bytes > 0)
            ready = fmax(ready, data_on(e, ed, m));
    }
    return ready;
}

/* When t's inputs are on device d's memory, from its start: fetched as
 * above (or earlier, when prefetched), a typed part's as part_ready says. */
static double executor_ready(hs_engine *e, size_t t, int d)
{
    int m = memory_of(e, d);
    return part_via_host(e, t, m) ? part_ready(e, t, m) : executor_fetch(e, t, m);
}

/* A typed whole task on device d's own memory (not host): a real backend
 * prefetches its inputs (exec/data.h, hs__data_prefetch), and a GPU's
 * worker may hold its kernel back (order_of). */
static int own_kernel(const hs_engine *e, size_t t, int d)
{
    const hs_task *task = &e->g->tasks[t];
    return memory_of(e, d) != HS_HOST_MEMORY && task->nparts == 1 &&
           e->w->apps[task->app].kernels[task->kernel].type != NULL;
}

void hs_engine_prefetch(hs_engine *e, size_t t, int d)
{
    edge_walk w;
    size_t u;
    double bytes;
    if (t >= e->g->ntasks || d < 0 || d >= e->pf->ndevices || e->state[t] != T_READY) {
        snprintf(e->bug, sizeof e->bug,
                 "policy '%s' prefetched task %zu for device %d: no such task or device, or "
                 "the task is not ready or already started",
                 e->policy->name, t, d);
        return;
    }
    if (!own_kernel(e, t, d))
        return;
    if (e->exec_model) /* a real backend starts copying them now: so does the model */
        (void)executor_fetch(e, t, memory_of(e, d));
    if (!e->b->ops->prefetch)
        return; /* the simulator: under the delay model, nothing moves early */
    e->b->ops->prefetch(e->b, t, d, HUGE_VAL);
    WALK_IN(w, e->g, t, u, bytes)
    {
        if (bytes > 0)
            set_copy(e, u, memory_of(e, d));
    }
}

static size_t held_slot(const hs_engine *e, int d, size_t i);

/* hs_engine_prefetch_input moves nothing in less idle time: a real copy
 * costs a few us to issue, and the compute composition's pi kernels end
 * every 5-10 us.  Its copies may run up to HS__PREFETCH_SLACK_US past the
 * next completion the model predicts (a copy that completion brings waits
 * at most that long): a run whose tasks end a little later than predicted,
 * as short CPU kernels do on a loaded host, would otherwise find the next
 * completion always due and move nothing ahead (one H200 run of the data
 * composition under heteroprio moved 3 pieces where its prediction moved
 * hundreds).  The model gains from it too: over the Fig. 5 compositions
 * and two Cholesky graphs, the planned policies' makespans came out 4.8%
 * shorter than without moving inputs ahead (geometric mean), 4.0% without
 * the slack. */
#define HS__PREFETCH_MIN_US 50.0
#define HS__PREFETCH_SLACK_US 200.0

/* The earliest end the model predicts of a task some device holds: the
 * next completion, before which the engine starts nothing (now when no
 * device holds one, or when that end is overdue in a run). */
static double next_completion(const hs_engine *e)
{
    double at = HUGE_VAL;
    for (int d = 0; d < e->pf->ndevices; d++)
        for (size_t i = 0; i < e->held[d]; i++)
            at = fmin(at, e->end[e->fifo[held_slot(e, d, i)]]);
    return at == HUGE_VAL ? e->now : fmax(at, e->now);
}

int hs_engine_prefetch_input(hs_engine *e, size_t t, int d)
{
    const hs_task *task;
    const hs_link *l;
    int m;
    double left, idle, bytes;
    if (t >= e->g->ntasks || d < 0 || d >= e->pf->ndevices || e->state[t] >= T_RUNNING) {
        snprintf(e->bug, sizeof e->bug,
                 "policy '%s' prefetched the input of task %zu for device %d: no such task or "
                 "device, or the task already started",
                 e->policy->name, t, d);
        return 0;
    }
    task = &e->g->tasks[t];
    m = memory_of(e, d);
    if (!e->exec_model || !own_kernel(e, t, d) || task->input_bytes <= 0)
        return 0; /* the delay model moves nothing early; host's own memory needs nothing */
    if ((left = input_left(e, t, m)) <= 0)
        return 0;
    l = &e->pf->links[(size_t)m]; /* host -> m */
    idle = fmax(next_completion(e), e->now + HS__PREFETCH_SLACK_US) -
           fmax(e->now, e->link_free[(size_t)m]) - l->latency_us;
    if (idle < HS__PREFETCH_MIN_US)
        return 1; /* the link is busy until the next completion */
    bytes = fmin(left, floor(idle * l->bandwidth_gbps * 1000.0));
    move_input(e, t, m, bytes);
    if (e->b->ops->prefetch)
        e->b->ops->prefetch(e->b, t, d, bytes);
    return bytes < left;
}

/* After task t ended on memory m at `end` (executor's model): its data are
 * there, and its output goes back to host on that link; a typed part's
 * written span goes back to host, and the copy there is its data's only
 * one (the data manager frees the part's buffers on m). */
static void executor_done(hs_engine *e, size_t t, int m, double end)
{
    size_t nm = (size_t)e->pf->nmemories;
    e->arrive[t * nm + (size_t)m] = end;
    if (part_via_host(e, t, m)) {
        e->arrive[t * nm + HS_HOST_MEMORY] =
            e->part_out[t] > 0 ? queue_copy(e, (long)t, -1, m, HS_HOST_MEMORY, e->part_out[t], end)
                               : end;
        set_copy(e, t, HS_HOST_MEMORY);
    } else if (e->g->tasks[t].output_bytes > 0 && m != HS_HOST_MEMORY) {
        e->arrive[t * nm + HS_HOST_MEMORY] =
            queue_copy(e, (long)t, -1, m, HS_HOST_MEMORY, e->g->tasks[t].output_bytes, end);
        set_copy(e, t, HS_HOST_MEMORY);
    }
}

/* The device of memory m for a copy of placement p: p's device when it
 * computes on m, else the first device of m; HS_HOST_DEVICE for host. */
static int copy_device(const hs_engine *e, long p, int m)
{
    if (p != HS_NONE && memory_of(e, e->s->placements[p].device) == m)
        return e->s->placements[p].device;
    if (m == HS_HOST_MEMORY)
        return HS_HOST_DEVICE;
    for (int d = 0; d < e->pf->ndevices; d++)
        if (memory_of(e, d) == m)
            return d;
    return HS_HOST_DEVICE;
}

/* The executor's model's copies become the schedule's transfers (task
 * indices to placements, memories to devices), its held activities refer
 * to placements; its makespan is the end of the last task or copy. */
static int executor_schedule(hs_engine *e, hs_error *err)
{
    hs_schedule *s = e->s;
    char *model = strdup("executor");
    double makespan = 0;
    if (!model)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    free(s->model);
    s->model = model;
    s->ntransfers = 0;
    for (size_t i = 0; i < s->nplacements; i++)
        if (s->placements[i].end_us > makespan)
            makespan = s->placements[i].end_us;
    for (size_t i = 0; i < s->nactivities; i++) /* held: task indices until now */
        s->activities[i].placement = e->placement_of[s->activities[i].placement];
    for (size_t k = 0; k < e->ncopies; k++) {
        hs_transfer t = e->copies[k];
        int from = t.from_device, to = t.to_device;
        t.from_placement = t.from_placement >= 0 ? e->placement_of[t.from_placement] : HS_NONE;
        t.to_placement = t.to_placement >= 0 ? e->placement_of[t.to_placement] : HS_NONE;
        t.from_device = copy_device(e, t.from_placement, from);
        t.to_device = copy_device(e, t.to_placement, to);
        if (hs_schedule_add_transfer(s, &t, err) < 0)
            return HS_ENOMEM;
        if (t.end_us > makespan)
            makespan = t.end_us;
    }
    s->makespan_us = makespan;
    return HS_OK;
}

/* Where the i-th task that device d holds (in the order it runs them) is
 * in fifo, held_begin and held_waits. */
static size_t held_slot(const hs_engine *e, int d, size_t i)
{
    return (size_t)d * HS_BACKEND_MAX_DEPTH + (e->fifo_head[d] + i) % HS_BACKEND_MAX_DEPTH;
}

/* Moves device d's i-th held task one place later (fifo, held_begin and
 * held_waits together). */
static void shift_held(hs_engine *e, int d, size_t i)
{
    size_t to = held_slot(e, d, i + 1), from = held_slot(e, d, i);
    e->fifo[to] = e->fifo[from];
    e->held_begin[to] = e->held_begin[from];
    e->held_waits[to] = e->held_waits[from];
}

/* Puts task t among device d's held tasks as the at-th to run, predicted
 * to start at `begin`. */
static void hold(hs_engine *e, size_t t, int d, size_t at, double begin, int order)
{
    size_t k;
    for (size_t i = e->held[d]; i > at; i--)
        shift_held(e, d, i - 1);
    k = held_slot(e, d, at);
    e->fifo[k] = (long)t;
    e->held_begin[k] = begin;
    e->held_waits[k] = order == HS_START_MAY_WAIT;
    e->held[d]++;
}

/* The tasks d holds stop waiting: a worker launches those it holds back
 * before a task that it cannot hold back. */
static void no_waiting(hs_engine *e, int d)
{
    for (size_t i = 0; i < e->held[d]; i++)
        e->held_waits[held_slot(e, d, i)] = 0;
}

/* Where the executor's model runs task t, ready on device d at `ready`:
 * *begin, *at (its place among the tasks d holds) and the order to start
 * it in (HS_START_*).  Mostly after what d holds; but a GPU's worker holds
 * back the kernel of a task started HS_START_MAY_WAIT until its input
 * copies have happened, and with it those started after it (exec/cpu.c),
 * so a task whose inputs are there runs ahead of the first such task that
 * waits, when it ends before that one's inputs arrive: it delays nothing
 * that the model has placed.  On the data composition's GPU runs a task
 * whose inputs were there waited behind one whose 268-MB copy was under
 * way for up to a quarter of the makespan.  The worker holds back only an
 * own_kernel, and the model only one that waits HS__WAIT_MIN_US or more
 * (its kernel starts some 10-25 us after its inputs arrive: the worker
 * sees them and launches it). */
#define HS__WAIT_MIN_US 50.0
static int order_of(hs_engine *e, size_t t, int d, double ready, double *begin, size_t *at)
{
    int reorder = e->reorders[d] && own_kernel(e, t, d);
    double free_at = e->now;
    if (e->reorders[d] && !reorder)
        no_waiting(e, d);
    for (size_t i = 0; reorder && i < e->held[d]; i++) {
        size_t k = held_slot(e, d, i);
        double b;
        if (!e->held_waits[k] || e->held_begin[k] <= e->now)
            continue;
        /* the first held task that waits: the gap before it */
        b = fmax(ready, e->now);
        if (i > 0)
            b = fmax(b, e->end[e->fifo[held_slot(e, d, i - 1)]]);
        if (b + hs_engine_cost(e, t, d) > e->held_begin[k])
            break;
        *begin = b;
        *at = i;
        return HS_START_AHEAD;
    }
    if (e->held[d] > 0 && e->run_end[d] > free_at)
        free_at = e->run_end[d];
    *begin = ready > free_at ? ready : free_at;
    *at = e->held[d];
    return reorder && *begin - free_at >= HS__WAIT_MIN_US ? HS_START_MAY_WAIT
                                                          : HS_START_IN_ORDER;
}

/* Starts task t on device d, which has room: predicted to run once its
 * inputs are there and what d holds has ended (an idle device: at the
 * inputs' arrival or now, as before depths existed), or in the gap before
 * a held task that waits (order_of).  Records where its inputs now have
 * copies. */
static int start(hs_engine *e, size_t t, int d, hs_error *err)
{
    const hs_graph *g = e->g;
    edge_walk w;
    size_t u;
    int m = memory_of(e, d), order;
    double ready, begin, bytes;
    size_t at;
    if (e->assigned[t] >= 0)
        unqueue(e, t);
    /* exact: every producer has ended */
    ready = e->exec_model ? executor_ready(e, t, d) : hs_engine_data_ready(e, t, d);
    order = order_of(e, t, d, ready, &begin, &at);
    /* the executor's model holds t from now to its kernel's start, as a
     * real run's "held" event does (exec/data.h, HS_EV_HELD): the same
     * idle time while holding work is then predicted and measured */
    if (e->exec_depth && begin > e->now &&
        hs_schedule_add_activity(e->s, &(hs_activity){.device = d, .what = "held",
                                                       .placement = (long)t,
                                                       .start_us = e->now, .end_us = begin},
                                 err) < 0)
        return HS_ENOMEM;
    e->state[t] = T_RUNNING;
    e->device[t] = d;
    hold(e, t, d, at, begin, order);
    e->end[t] = begin + hs_engine_cost(e, t, d);
    if (order != HS_START_AHEAD)
        e->run_end[d] = e->end[t];
    WALK_IN(w, g, t, u, bytes)
    {
        if (bytes > 0)
            set_copy(e, u, m);
    }
    return e->b->ops->start_task(e->b, t, d, begin, order, err);
}

/* Asks every device with room, in index order, for a task and starts it;
 * then again the devices that took one and still have room, until none
 * does.  A device that declined is not asked again in this round.  A device
 * that already holds a task is asked only while the policy has committed
 * tasks to it (hs_engine_assign): a policy that decides at pick time
 * (eager's central queue) then decides for idle devices only, exactly as
 * with depth 1, and a busy device takes early only work that is its own
 * anyway (StarPU's per-worker queues: dm*).  With depth 1 (sim) this is one
 * pass over the idle devices. */
static int may_ask(const hs_engine *e, int d)
{
    return e->held[d] < (size_t)e->depth[d] && !e->declined[d] &&
           (e->held[d] == 0 || e->nqueued[d] > 0);
}

/* ------------------------------------------------- splitting at run time
 * A splittable task that the policy gives a device opens a split: its
 * splitter hands out chunks, and every live device that holds nothing
 * runs them, oldest split first, before it asks the policy for work (a
 * device joins a split kernel when it becomes free).  A device holds one
 * chunk at a time; the splitter learns from each chunk's measured time
 * (finished) and never takes a chunk back (the engine has its own failure
 * path).  The chunk that completes the items completes the task: the
 * policy is told it ran on the device it chose, from the split's opening
 * to that end. */

static int splittable(const hs_engine *e, size_t t)
{
    const hs_task *task = &e->g->tasks[t];
    const hs_kernel *k = &e->w->apps[task->app].kernels[task->kernel];
    return e->splitter && k->splittable && k->items >= 1 && task->nparts == 1;
}

static void live_free(live *ls)
{
    free(ls->dev);
    free(ls->parts);
    free(ls);
}

/* Starts chunk [b, x) of ls on device d. */
static int start_chunk(hs_engine *e, live *ls, int d, size_t b, size_t x, hs_error *err)
{
    double ready = hs_engine_data_ready(e, ls->task, d);
    double begin = ready > e->now ? ready : e->now;
    if (e->held[d] > 0 && e->run_end[d] > begin)
        begin = e->run_end[d];
    no_waiting(e, d);
    hold(e, ls->task, d, e->held[d], begin, HS_START_IN_ORDER);
    e->run_end[d] = begin + hs_engine_cost(e, ls->task, d) * (double)(x - b) / (double)ls->items;
    return e->b->ops->start_chunk(e->b, ls->task, d, b, x, begin, err);
}

/* Asks ls's splitter for a chunk for idle device d and starts it: 1 when
 * it did, 0 when the splitter has none for d now, or an error. */
static int ask_split(hs_engine *e, live *ls, int d, hs_error *err)
{
    hs_split_grant gr;
    int rc;
    if (e->splitter->next(ls->state, d, e->now, &gr) != HS_SPLIT_CHUNK)
        return 0;
    if (gr.begin >= gr.end || gr.end > ls->items)
        return hs_error_set(err, HS_EINTERNAL, "splitter '%s' gave items [%zu, %zu) of %zu",
                            e->splitter->name, gr.begin, gr.end, ls->items);
    return (rc = start_chunk(e, ls, d, gr.begin, gr.end, err)) != 0 ? rc : 1;
}

/* Task t, which the policy gave device d, becomes a split: its splitter
 * starts, told each device's rate from the costs (items per µs). */
static int open_split(hs_engine *e, size_t t, int d, hs_error *err)
{
    const hs_task *task = &e->g->tasks[t];
    const hs_kernel *k = &e->w->apps[task->app].kernels[task->kernel];
    live *ls = calloc(1, sizeof *ls), **tail;
    int nd = e->pf->ndevices, rc;
    if (!ls || !(ls->dev = calloc((size_t)nd, sizeof *ls->dev))) {
        free(ls);
        return hs_error_set(err, HS_ENOMEM, "out of memory for a split");
    }
    ls->task = t;
    ls->owner = d;
    ls->opened = e->now;
    ls->items = (size_t)k->items;
    ls->k = (hs_split_kernel){.name = k->name, .items = ls->items};
    for (int i = 0; i < nd; i++) {
        double c = hs_engine_cost(e, t, i);
        ls->dev[i] = (hs_split_device){.name = e->pf->devices[i].name,
                                       .kind = e->pf->devices[i].kind, .width = 1,
                                       .cores = e->pf->devices[i].cores,
                                       .rate_hint = c > 0 ? (double)ls->items / c : 0};
    }
    if ((rc = e->splitter->start(&ls->k, ls->dev, nd, &e->split_opt, NULL, &ls->state, err)) !=
        HS_OK) {
        live_free(ls);
        return rc;
    }
    e->state[t] = T_RUNNING;
    e->device[t] = d;
    e->end[t] = e->now + hs_engine_cost(e, t, d);
    for (tail = &e->open; *tail; tail = &(*tail)->next)
        ;
    *tail = ls;
    e->live_splits++;
    return HS_OK;
}

/* Books a chunk's completion c: its placement, the splitter's finished;
 * when its items are complete, the split task's completion (c becomes it:
 * the owner device, from the opening on).  Returns 0 when the task is now
 * complete, 1 when not (the policy hears nothing), or an error. */
static int book_chunk(hs_engine *e, hs_completion *c, hs_error *err)
{
    live *ls, **at;
    hs_placement p;
    long pi;
    for (at = &e->open; *at && (*at)->task != c->task; at = &(*at)->next)
        ;
    if (!(ls = *at))
        return hs_error_set(err, HS_EINTERNAL, "a chunk of task %zu, which is not split",
                            c->task);
    p = (hs_placement){.task = e->g->tasks[c->task].origin, .part = (int)ls->nparts,
                       .nparts = 0, .fraction = (double)(c->end - c->begin) / (double)ls->items,
                       .device = c->device, .start_us = c->start_us, .end_us = c->end_us};
    if (ls->nparts == ls->capparts) {
        size_t cap = ls->capparts ? 2 * ls->capparts : 16;
        long *n = realloc(ls->parts, cap * sizeof *n);
        if (!n)
            return hs_error_set(err, HS_ENOMEM, "out of memory");
        ls->parts = n;
        ls->capparts = cap;
    }
    if ((pi = hs_schedule_add_placement(e->s, &p, err)) < 0)
        return HS_ENOMEM;
    ls->parts[ls->nparts++] = pi;
    e->chunks++;
    e->busy_us += c->end_us - c->start_us;
    if (!e->splitter->finished(ls->state, c->device, c->begin, c->end,
                               c->end_us - c->start_us, e->now))
        return hs_error_set(err, HS_EINTERNAL, "splitter '%s' refused a chunk it may not take "
                            "back", e->splitter->name);
    if ((ls->done += c->end - c->begin) < ls->items)
        return 1;
    for (size_t i = 0; i < ls->nparts; i++) /* every part of n, in completion order */
        e->s->placements[ls->parts[i]].nparts = (int)ls->nparts;
    if (e->placement_of)
        e->placement_of[c->task] = ls->parts[ls->nparts - 1];
    c->device = ls->owner;
    c->start_us = ls->opened;
    *at = ls->next;
    e->splitter->fini(ls->state);
    live_free(ls);
    return 0;
}

/* ------------------------------------------------------ failed devices
 * A device that failed (its completions say so) runs nothing more.  What it
 * held, and whatever the policy still gives it (a static plan does), the
 * engine runs elsewhere itself: each such "orphan" goes to the live device
 * where it is predicted to finish first, which runs its orphans before
 * asking the policy.  The policy is told of an orphan only when it ends
 * (done, on the device it ran on); no policy needs to know about failures,
 * and one that picks by predicted finish times avoids a failed device,
 * whose availability is infinite. */

/* Queues ready task t on the live device of earliest predicted finish. */
static int orphan(hs_engine *e, size_t t, hs_error *err)
{
    int best = -1;
    double best_f = HUGE_VAL;
    for (int d = 0; d < e->pf->ndevices; d++) {
        double f;
        if (e->dead[d])
            continue;
        f = hs_engine_finish_time(e, t, d);
        if (best < 0 || f < best_f) {
            best = d;
            best_f = f;
        }
    }
    if (best < 0)
        return hs_error_set(err, HS_EIO, "every device failed with %zu of %zu tasks left",
                            e->g->ntasks - e->ndone, e->g->ntasks);
    if (e->assigned[t] >= 0)
        unqueue(e, t);
    hs_engine_assign(e, t, best); /* counted in its availability until it starts */
    e->orphan_next[t] = -1;
    if (e->orphan_tail[best] >= 0)
        e->orphan_next[e->orphan_tail[best]] = (long)t;
    else
        e->orphan_head[best] = (long)t;
    e->orphan_tail[best] = (long)t;
    return HS_OK;
}

/* Takes what the policy gives failed device d and queues it elsewhere. */
static int drain_dead(hs_engine *e, int d, hs_error *err)
{
    long t;
    int rc;
    while ((t = e->policy->pick(e->pstate, e, d)) != HS_NO_TASK) {
        e->events++;
        if (e->bug[0])
            return policy_bug(e, err);
        if (t < 0 || (size_t)t >= e->g->ntasks || e->state[t] != T_READY)
            return hs_error_set(err, HS_EINTERNAL,
                                "policy '%s' gave task %ld to device '%s', but that task is "
                                "not ready or was given before",
                                e->policy->name, t, e->pf->devices[d].name);
        if ((rc = orphan(e, (size_t)t, err)) != 0)
            return rc;
    }
    return HS_OK;
}

static int pick_round(hs_engine *e, hs_error *err)
{
    const hs_graph *g = e->g;
    int more = 1, rc;
    memset(e->declined, 0, (size_t)e->pf->ndevices);
    for (int d = 0; d < e->pf->ndevices && e->failed_devices; d++)
        if (e->dead[d] && (rc = drain_dead(e, d, err)) != 0)
            return rc;
    while (more) {
        more = 0;
        for (int d = 0; d < e->pf->ndevices; d++) {
            long t;
            if (e->dead[d])
                continue;
            if (e->held[d] == 0 && e->open) { /* an idle device joins a split */
                int got = 0;
                for (live *ls = e->open; ls && !got; ls = ls->next)
                    if ((got = ask_split(e, ls, d, err)) < 0)
                        return got;
                if (got)
                    continue;
            }
            if (!may_ask(e, d))
                continue;
            if (e->orphan_head[d] >= 0) { /* what a failed device left, first */
                t = e->orphan_head[d];
                if ((e->orphan_head[d] = e->orphan_next[t]) < 0)
                    e->orphan_tail[d] = -1;
            } else {
                t = e->policy->pick(e->pstate, e, d);
                e->events++;
                if (e->bug[0])
                    return policy_bug(e, err);
            }
            if (t == HS_NO_TASK) {
                e->declined[d] = 1;
                continue;
            }
            if (t < 0 || (size_t)t >= g->ntasks || e->state[t] != T_READY)
                return hs_error_set(err, HS_EINTERNAL,
                                    "policy '%s' gave task %ld to device '%s', but that task is "
                                    "not ready or was given before",
                                    e->policy->name, t, e->pf->devices[d].name);
            if (splittable(e, (size_t)t)) {
                if (e->assigned[t] >= 0)
                    unqueue(e, (size_t)t);
                if ((rc = open_split(e, (size_t)t, d, err)) != 0)
                    return rc;
                more = 1; /* every idle device may join it, d's turn included */
                continue;
            }
            if ((rc = start(e, (size_t)t, d, err)) != 0)
                return rc;
            more |= may_ask(e, d);
        }
    }
    for (int d = 0; d < e->pf->ndevices && e->policy->ahead; d++) {
        if (e->dead[d] || memory_of(e, d) == HS_HOST_MEMORY)
            continue;
        e->policy->ahead(e->pstate, e, d);
        e->events++;
        if (e->bug[0])
            return policy_bug(e, err);
    }
    return HS_OK;
}

/* Waits for the next completion and takes the others of the same instant. */
static int collect(hs_engine *e, size_t *n, hs_error *err)
{
    const hs_backend_ops *ops = e->b->ops;
    int rc = ops->wait(e->b, &e->batch[0], err);
    if (rc < 0)
        return rc;
    if (rc == 1)
        return hs_error_set(err, HS_EINTERNAL, "backend '%s' has nothing running, but the "
                            "engine started tasks", ops->name);
    *n = 1;
    while (ops->poll && *n < e->batch_cap &&
           (rc = ops->poll(e->b, &e->batch[*n], err)) == 0)
        (*n)++;
    if (rc < 0)
        return rc;
    e->now = ops->now(e->b);
    return HS_OK;
}

/* Takes task t out of device d's held tasks: its oldest, except where a
 * task ran ahead of another (order_of) in the model and not in the run, or
 * the other way round.  -1: d does not hold t. */
static int unhold(hs_engine *e, size_t t, int d)
{
    size_t i = 0;
    while (i < e->held[d] && e->fifo[held_slot(e, d, i)] != (long)t)
        i++;
    if (i == e->held[d])
        return -1;
    for (; i > 0; i--) /* the older ones move up by one */
        shift_held(e, d, i - 1);
    e->fifo_head[d] = (e->fifo_head[d] + 1) % HS_BACKEND_MAX_DEPTH;
    e->held[d]--;
    return 0;
}

/* Books completion c: its placement (against the workload's graph, through
 * hs_task.origin), its output's copy, and its successors' counts; the ones it
 * makes ready are appended to newly_ready[*nready].  A chunk of a split task
 * is booked by book_chunk; the one that completes the task becomes the
 * task's completion (on its owner, from the split's opening), and the
 * others are quiet: the policy hears nothing of them. */
static int book(hs_engine *e, hs_completion *c, unsigned char *quiet, size_t *nready,
                hs_error *err)
{
    const hs_graph *g = e->g;
    const hs_task *task;
    hs_placement p;
    edge_walk w;
    size_t t = c->task, v;
    double bytes;
    int d = c->device, m = memory_of(e, d), rc;
    *quiet = 0;
    if (t >= g->ntasks || d < 0 || d >= e->pf->ndevices || e->state[t] != T_RUNNING ||
        unhold(e, t, d) != 0)
        return hs_error_set(err, HS_EINTERNAL,
                            "backend '%s' reported task %zu done on device %d, which the engine "
                            "did not start there",
                            e->b->ops->name, t, d);
    if (c->failed && c->chunk)
        return hs_error_set(err, HS_EIO, "device '%s' failed while it ran a chunk of a split "
                            "kernel (a split at run time does not survive a device's loss)",
                            e->pf->devices[d].name);
    if (c->failed) { /* t did not run: the device is dead, t goes elsewhere */
        e->state[t] = T_READY;
        e->device[t] = -1;
        if (!e->dead[d]) {
            e->dead[d] = 1;
            e->failed_devices++;
        }
        e->rerun++;
        return orphan(e, t, err);
    }
    if (c->chunk) {
        if ((rc = book_chunk(e, c, err)) != 0) {
            *quiet = rc == 1;
            return rc == 1 ? HS_OK : rc;
        }
        m = HS_HOST_MEMORY; /* the chunks' result is stored on host */
    } else {
        long pi;
        task = &g->tasks[t];
        p = (hs_placement){.task = task->origin, .part = task->part, .nparts = task->nparts,
                           .fraction = task->fraction, .device = d, .start_us = c->start_us,
                           .end_us = c->end_us};
        if ((pi = hs_schedule_add_placement(e->s, &p, err)) < 0)
            return HS_ENOMEM;
        if (e->placement_of)
            e->placement_of[t] = pi;
        e->busy_us += c->end_us - c->start_us;
    }
    if (e->exec_model)
        executor_done(e, t, m, c->end_us);
    e->state[t] = T_DONE;
    e->end[t] = c->end_us;
    e->ndone++;
    if (!part_via_host(e, t, m))
        set_copy(e, t, m);
    WALK_OUT(w, g, t, v, bytes)
    {
        if (--e->waiting[v] == 0) {
            e->state[v] = T_READY;
            e->newly_ready[(*nready)++] = v;
        }
    }
    return HS_OK;
}

/* Tells the policy about n booked completions: done(t), then ready() of the
 * successors t made ready. */
static int tell(hs_engine *e, size_t n)
{
    const hs_policy *pol = e->policy;
    for (size_t i = 0; i < n; i++) {
        const hs_completion *c = &e->batch[i];
        if (c->failed || e->quiet[i])
            continue; /* it did not run (its successors were not made ready),
                         or it is a chunk of a task not yet complete */
        if (pol->done) {
            pol->done(e->pstate, e, c->task, c->device, c->end_us - c->start_us);
            e->events++;
        }
        for (size_t r = e->ready_off[i]; r < e->ready_off[i + 1]; r++) {
            pol->ready(e->pstate, e, e->newly_ready[r]);
            e->events++;
        }
        if (e->bug[0])
            return -1;
    }
    return 0;
}

/* Announces the graph's sources to the policy.  They are ready at the
 * run's start: the clock is read again here, since a real backend starts
 * its clock after the engine's set-up read it (before, the first decisions
 * of a run on the cuda backend saw every idle device 3 ms late, and
 * app-level's choices at time 0 differed from its prediction's). */
static void announce(hs_engine *e)
{
    e->now = e->b->ops->now(e->b);
    for (size_t t = 0; t < e->g->ntasks; t++) {
        if (e->waiting[t] == 0) {
            e->state[t] = T_READY;
            e->policy->ready(e->pstate, e, t);
            e->events++;
        }
    }
}

/* Books the n completions of the batch, noting which successors each made
 * ready (ready_off). */
static int book_batch(hs_engine *e, size_t n, hs_error *err)
{
    size_t nready = 0;
    int rc;
    for (size_t i = 0; i < n; i++) {
        e->ready_off[i] = nready;
        if ((rc = book(e, &e->batch[i], &e->quiet[i], &nready, err)) != 0)
            return rc;
    }
    e->ready_off[n] = nready;
    return HS_OK;
}

/* After a pick round: 0 while some device holds a task, 1 once every task
 * finished, or HS_EINTERNAL when tasks remain but the policy gave none. */
static int settled(hs_engine *e, hs_error *err)
{
    for (int d = 0; d < e->pf->ndevices; d++)
        if (e->held[d] > 0)
            return 0;
    if (e->ndone == e->g->ntasks)
        return 1;
    return hs_error_set(err, HS_EINTERNAL,
                        "policy '%s' left %zu of %zu tasks unscheduled: every device is idle "
                        "and none was given a task",
                        e->policy->name, e->g->ntasks - e->ndone, e->g->ntasks);
}

/* The event loop, from the sources' announcement to the last completion:
 * the engine's thread waits for completions (backend wait). */
static int loop(hs_engine *e, hs_error *err)
{
    size_t n = 0;
    int rc;
    double t0 = seconds();
    announce(e);
    for (;;) {
        /* hooks of the previous batch, then the pick round: timed together */
        if (tell(e, n) != 0)
            return policy_bug(e, err);
        rc = pick_round(e, err);
        e->hook_seconds += seconds() - t0;
        if (rc != 0)
            return rc;
        if ((rc = settled(e, err)) != 0)
            return rc < 0 ? rc : HS_OK;
        if ((rc = collect(e, &n, err)) != 0)
            return rc;
        if ((rc = book_batch(e, n, err)) != 0)
            return rc;
        t0 = seconds();
    }
}

/* One step of a run that the backend drives (backend.h, drive): the first
 * announces the sources; each later one takes every completion posted so
 * far (poll), books them and tells the policy; then the pick round.  The
 * same batches as loop(), only on whichever thread the backend calls it. */
static int step(void *ctx, hs_error *err)
{
    hs_engine *e = ctx;
    const hs_backend_ops *ops = e->b->ops;
    size_t n = 0;
    int rc = 1;
    double t0;
    if (e->stepped) {
        while (n < e->batch_cap && (rc = ops->poll(e->b, &e->batch[n], err)) == 0)
            n++;
        if (rc < 0)
            return rc;
        e->now = ops->now(e->b);
        if ((rc = book_batch(e, n, err)) != 0)
            return rc;
    }
    t0 = seconds();
    if (!e->stepped) {
        announce(e);
        e->stepped = 1;
    } else if (tell(e, n) != 0) {
        return policy_bug(e, err);
    }
    rc = pick_round(e, err);
    e->hook_seconds += seconds() - t0;
    return rc != 0 ? rc : settled(e, err);
}

/* Checks a graph built by a policy's transform against the workload's:
 * same devices, every part names a task of w with its app/instance/kernel,
 * parts k of n are all there and their fractions sum to 1, costs are
 * numbers, no cycle.  Builds the adjacency when the transform did not.
 * A graph whose edges are implied by w's (hetsched/graph.h) has no cycle
 * as w's has none, once each task's parts are where part_base says. */
static int check_transformed(const hs_workload *w, const hs_policy *pol, hs_graph *g,
                             hs_error *err)
{
    const hs_graph *wg = &w->graph;
    double *sum = NULL;
    size_t *count = NULL, *order = NULL;
    int rc = HS_OK;
    if (g->ndevices != w->platform.ndevices)
        return hs_error_set(err, HS_EINTERNAL, "policy '%s' built a graph for %d devices, not %d",
                            pol->name, g->ndevices, w->platform.ndevices);
    if (g->whole && (g->whole != wg || !g->part_base))
        return hs_error_set(err, HS_EINTERNAL, "policy '%s' built a graph whose edges are "
                            "implied by another graph than the workload's", pol->name);
    if (!g->whole && !g->succ_off && (rc = hs_graph_build_adjacency(g, err)) != 0)
        return rc;
    sum = calloc(wg->ntasks + 1, sizeof *sum);
    count = calloc(wg->ntasks + 1, sizeof *count);
    order = malloc((g->ntasks + 1) * sizeof *order);
    if (!sum || !count || !order) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t t = 0; t < g->ntasks && rc == HS_OK; t++) {
        const hs_task *p = &g->tasks[t], *o;
        int bad_cost = 0;
        for (int d = 0; d < g->ndevices; d++)
            bad_cost |= !(p->cost_us[d] >= 0 && isfinite(p->cost_us[d]));
        if (p->origin >= wg->ntasks) {
            rc = hs_error_set(err, HS_EINTERNAL, "policy '%s': task %zu of its graph names "
                              "task %zu, beyond the workload's %zu", pol->name, t, p->origin,
                              wg->ntasks);
            break;
        }
        o = &wg->tasks[p->origin];
        if (p->app != o->app || p->instance != o->instance || p->kernel != o->kernel ||
            p->nparts < 1 || p->part < 0 || p->part >= p->nparts || !(p->fraction > 0) ||
            p->fraction > 1 || (p->nparts == 1 && p->fraction != 1) || bad_cost)
            rc = hs_error_set(err, HS_EINTERNAL, "policy '%s': task %zu of its graph is not a "
                              "well-formed part of task %zu", pol->name, t, p->origin);
        sum[p->origin] += p->fraction;
        count[p->origin]++;
        if (rc == HS_OK && count[p->origin] > (size_t)p->nparts)
            rc = hs_error_set(err, HS_EINTERNAL, "policy '%s': task %zu has more than %d parts",
                              pol->name, p->origin, p->nparts);
    }
    for (size_t t = 0; t < wg->ntasks && rc == HS_OK; t++)
        if (count[t] == 0 || fabs(sum[t] - 1.0) > 1e-9)
            rc = hs_error_set(err, HS_EINTERNAL, "policy '%s': the parts of task %zu have "
                              "fractions summing to %g, not 1", pol->name, t, sum[t]);
    /* implied edges: part_base numbers every task of g once, in order */
    for (size_t t = 0, k = 0; g->whole && t < wg->ntasks && rc == HS_OK; t++) {
        if (g->part_base[t] != k || g->part_base[t + 1] < k || g->part_base[t + 1] > g->ntasks)
            rc = hs_error_set(err, HS_EINTERNAL, "policy '%s': part_base of task %zu is not "
                              "where its parts are", pol->name, t);
        for (; rc == HS_OK && k < g->part_base[t + 1]; k++)
            if (g->tasks[k].origin != t)
                rc = hs_error_set(err, HS_EINTERNAL, "policy '%s': task %zu of its graph is "
                                  "not a part of task %zu", pol->name, k, t);
    }
    if (rc == HS_OK && g->whole && g->part_base[wg->ntasks] != g->ntasks)
        rc = hs_error_set(err, HS_EINTERNAL, "policy '%s': the parts of its graph's tasks are "
                          "not all where part_base says", pol->name);
    if (rc == HS_OK && !g->whole && hs_graph_topo_order(g, order, err) != HS_OK)
        rc = hs_error_set(err, HS_EINTERNAL, "policy '%s' built a graph with a cycle",
                          pol->name);
out:
    free(sum);
    free(count);
    free(order);
    return rc;
}

static void engine_free(hs_engine *e)
{
    free(e->waiting);
    free(e->state);
    free(e->device);
    free(e->assigned);
    free(e->end);
    free(e->valid);
    free(e->ready_memory);
    free(e->ready_at);
    free(e->depth);
    free(e->held);
    free(e->fifo);
    free(e->fifo_head);
    free(e->declined);
    free(e->run_end);
    free(e->reorders);
    free(e->held_begin);
    free(e->held_waits);
    free(e->tail);
    free(e->queued);
    free(e->nqueued);
    free(e->batch);
    free(e->newly_ready);
    free(e->ready_off);
    free(e->link_free);
    free(e->arrive);
    free(e->input_at);
    free(e->input_mem);
    free(e->input_moved);
    free(e->part_in);
    free(e->part_out);
    free(e->placement_of);
    free(e->copies);
    free(e->dead);
    free(e->orphan_next);
    free(e->orphan_head);
    free(e->orphan_tail);
    free(e->quiet);
    while (e->open) {
        live *ls = e->open;
        e->open = ls->next;
        e->splitter->fini(ls->state);
        live_free(ls);
    }
}

/* How many edges of g enter task t, listed or implied. */
static size_t in_degree(const hs_graph *g, size_t t)
{
    edge_walk w;
    size_t n = 0, u;
    double bytes;
    WALK_IN(w, g, t, u, bytes)
    {
        n++;
    }
    return n;
}

/* Allocates the per-task and per-device state for graph g. */
static int engine_alloc(hs_engine *e, hs_error *err)
{
    size_t n = e->g->ntasks ? e->g->ntasks : 1;
    size_t nd = (size_t)e->pf->ndevices;
    e->words = ((size_t)e->pf->nmemories + 63) / 64;
    e->waiting = malloc(n * sizeof *e->waiting);
    e->state = calloc(n, sizeof *e->state);
    e->device = malloc(n * sizeof *e->device);
    e->assigned = malloc(n * sizeof *e->assigned);
    e->end = calloc(n, sizeof *e->end);
    e->valid = calloc(n * e->words, sizeof *e->valid);
    e->ready_memory = malloc(n * sizeof *e->ready_memory);
    e->ready_at = malloc(n * sizeof *e->ready_at);
    e->depth = malloc(nd * sizeof *e->depth);
    e->held = calloc(nd, sizeof *e->held);
    e->fifo = malloc(nd * HS_BACKEND_MAX_DEPTH * sizeof *e->fifo);
    e->fifo_head = calloc(nd, sizeof *e->fifo_head);
    e->declined = calloc(nd, 1);
    e->run_end = calloc(nd, sizeof *e->run_end);
    e->reorders = calloc(nd, 1);
    e->held_begin = calloc(nd * HS_BACKEND_MAX_DEPTH, sizeof *e->held_begin);
    e->held_waits = calloc(nd * HS_BACKEND_MAX_DEPTH, 1);
    e->tail = calloc(nd, sizeof *e->tail);
    e->queued = calloc(nd, sizeof *e->queued);
    e->nqueued = calloc(nd, sizeof *e->nqueued);
    e->batch = calloc(nd * HS_BACKEND_MAX_DEPTH, sizeof *e->batch);
    e->newly_ready = malloc(n * sizeof *e->newly_ready);
    e->ready_off = calloc(nd * HS_BACKEND_MAX_DEPTH + 1, sizeof *e->ready_off);
    e->dead = calloc(nd, 1);
    e->orphan_next = malloc(n * sizeof *e->orphan_next);
    e->orphan_head = malloc(nd * sizeof *e->orphan_head);
    e->orphan_tail = malloc(nd * sizeof *e->orphan_tail);
    e->quiet = calloc(nd * HS_BACKEND_MAX_DEPTH, 1);
    if (e->exec_model) {
        size_t nm = (size_t)e->pf->nmemories;
        e->link_free = calloc(nm * nm, sizeof *e->link_free);
        e->arrive = calloc(n * nm, sizeof *e->arrive);
        e->input_at = malloc(n * sizeof *e->input_at);
        e->input_mem = malloc(n * sizeof *e->input_mem);
        e->input_moved = malloc(n * sizeof *e->input_moved);
    }
    if (e->exec_depth)
        e->placement_of = malloc(n * sizeof *e->placement_of);
    if (!e->waiting || !e->state || !e->device || !e->assigned || !e->end || !e->valid ||
        !e->ready_memory || !e->ready_at || !e->depth || !e->held || !e->fifo ||
        !e->fifo_head || !e->declined || !e->run_end || !e->reorders || !e->held_begin ||
        !e->held_waits || !e->tail || !e->queued ||
        !e->nqueued || !e->batch || !e->newly_ready ||
        !e->ready_off ||
        (e->exec_model && (!e->link_free || !e->arrive || !e->input_at || !e->input_mem ||
                           !e->input_moved)) ||
        (e->exec_depth && !e->placement_of) ||
        !e->dead || !e->orphan_next || !e->orphan_head || !e->orphan_tail || !e->quiet)
        return hs_error_set(err, HS_ENOMEM, "out of memory for an engine of %zu tasks", n);
    for (size_t d = 0; d < nd; d++)
        e->orphan_head[d] = e->orphan_tail[d] = -1;
    for (size_t t = 0; t < e->g->ntasks; t++) {
        e->waiting[t] = in_degree(e->g, t);
        e->device[t] = e->assigned[t] = e->ready_memory[t] = -1;
        if (e->input_mem)
            e->input_mem[t] = -1;
    }
    return HS_OK;
}

/* The executor's model of typed parts (part_via_host): each one's bytes,
 * the spans it reads (every byte of a buffer its type reads whole, such as
 * gemm's B, and its fraction of the others) and its fraction of those it
 * writes; a kernel that cannot be split runs whole in part 0, and its other
 * parts move nothing.  A part of a type whose buffers cannot be cut runs on
 * host (exec/data.c) and keeps the general rule (-1). */
static int part_bytes(hs_engine *e, hs_error *err)
{
    const hs_graph *g = e->g;
    int any = 0;
    for (size_t t = 0; t < g->ntasks && !any; t++)
        any = g->tasks[t].nparts > 1 &&
              e->w->apps[g->tasks[t].app].kernels[g->tasks[t].kernel].type != NULL;
    if (!any)
        return HS_OK;
    e->part_in = malloc(g->ntasks * sizeof *e->part_in);
    e->part_out = malloc(g->ntasks * sizeof *e->part_out);
    if (!e->part_in || !e->part_out)
        return hs_error_set(err, HS_ENOMEM, "out of memory for an engine of %zu tasks",
                            g->ntasks);
    for (size_t t = 0; t < g->ntasks; t++) {
        const hs_task *task = &g->tasks[t];
        const hs_kernel *k = &e->w->apps[task->app].kernels[task->kernel];
        hs_kconf c;
        double f, in = 0, out = 0;
        int rc;
        e->part_in[t] = e->part_out[t] = -1;
        if (task->nparts <= 1 || !k->type)
            continue;
        if ((rc = hs_kconf_init(&c, k->type, k->params, k->nparams, err)) != 0)
            return rc;
        if (c.splittable && !hs_kconf_cuttable(&c))
            continue;
        f = c.splittable ? task->fraction : task->part == 0;
        for (int i = 0; i < c.nbufs; i++) {
            double b = (double)c.bufs[i].bytes;
            if (c.bufs[i].mode & HS_KREAD)
                in += (c.type->whole_bufs & (1u << i)) && f > 0 ? b : f * b;
            if (c.bufs[i].mode & HS_KWRITE)
                out += f * b;
        }
        e->part_in[t] = in;
        e->part_out[t] = out;
    }
    return HS_OK;
}

/* Asks the backend, once it is up, how many tasks each device may hold. */
static int backend_depths(hs_engine *e, hs_error *err)
{
    const hs_backend_ops *ops = e->b->ops;
    e->batch_cap = 0;
    for (int d = 0; d < e->pf->ndevices; d++) {
        e->depth[d] = e->exec_depth ? e->exec_depth[d] : ops->depth ? ops->depth(e->b, d) : 1;
        if (e->depth[d] < 1 || e->depth[d] > HS_BACKEND_MAX_DEPTH)
            return hs_error_set(err, HS_EINTERNAL, "backend '%s' gives device %d a depth of "
                                "%d, not 1..%d", ops->name, d, e->depth[d],
                                HS_BACKEND_MAX_DEPTH);
        e->batch_cap += (size_t)e->depth[d];
        /* the executor's model of a GPU that holds more than one task: its
         * worker holds a waiting kernel back (order_of) */
        e->reorders[d] = e->exec_model && e->depth[d] > 1 &&
                         e->pf->devices[d].kind == HS_DEVICE_GPU &&
                         memory_of(e, d) != HS_HOST_MEMORY;
    }
    return HS_OK;
}

int hs_engine_run(hs_workload *w, const hs_policy *policy, const hs_map_options *opt,
                  hs_backend *backend, hs_schedule **out, hs_map_stats *stats, hs_error *err)
{
    static const hs_map_options defaults = {0};
    hs_engine e = {0};
    hs_graph own = {0};
    int rc, inited = 0, backend_up = 0;
    double t0;
    if (!w || !w->finalized)
        return hs_error_set(err, HS_EUSAGE, "the workload is not finalized");
    if (!policy || !policy->ready || !policy->pick)
        return hs_error_set(err, HS_EUSAGE, "a policy needs ready and pick hooks");
    if (!opt)
        opt = &defaults;
    e.w = w;
    e.pf = &w->platform;
    e.g = &w->graph;
    e.policy = policy;
    e.b = backend;
    e.exec_depth = opt->executor_depth;
    e.exec_model = e.exec_depth || opt->executor_estimates;
    if ((e.splitter = opt->live_split) != NULL) {
        if (!backend->ops->start_chunk)
            return hs_error_set(err, HS_EUSAGE, "backend '%s' cannot split kernels at run time",
                                backend->ops->name);
        if ((rc = hs_split_options_check(opt->live_split_options, e.splitter, err)) != HS_OK)
            return rc;
        if (opt->live_split_options)
            e.split_opt = *opt->live_split_options;
        e.split_opt.no_takeback = 1;
    }
    t0 = seconds();
    if (policy->transform) {
        rc = policy->transform(w, opt, &own, err);
        if (rc < 0)
            goto fail;
        if (rc == 1) {
            if ((rc = check_transformed(w, policy, &own, err)) != 0)
                goto fail;
            if ((e.exec_model || !backend->ops->implied_edges) &&
                (rc = hs__part_edges_list(&own, err)) != 0)
                goto fail;
            e.g = &own;
        }
    }
    e.hook_seconds += seconds() - t0;
    if ((rc = engine_alloc(&e, err)) != 0 || (e.exec_model && (rc = part_bytes(&e, err)) != 0))
        goto fail;
    if (!(e.s = hs_schedule_new(w->path, policy->name))) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
        goto fail;
    }
    if ((rc = backend->ops->init(backend, w, e.g, err)) != 0)
        goto fail;
    backend_up = 1;
    if ((rc = backend_depths(&e, err)) != 0)
        goto fail;
    e.now = backend->ops->now(backend);
    t0 = seconds();
    rc = policy->init ? policy->init(&e, opt, &e.pstate, err) : HS_OK;
    e.hook_seconds += seconds() - t0;
    if (rc != 0)
        goto fail;
    inited = 1;
    if (backend->ops->drive && backend->ops->poll)
        rc = backend->ops->drive(backend, step, &e, err);
    else
        rc = loop(&e, err);
    if (rc == 0 && backend->ops->finish)
        rc = backend->ops->finish(backend, err);
    if (rc != 0)
        goto fail;
    if (e.bug[0]) {
        rc = policy_bug(&e, err);
        goto fail;
    }
    if (e.exec_depth && (rc = executor_schedule(&e, err)) != 0)
        goto fail;
fail:
    if (inited && policy->fini) {
        t0 = seconds();
        policy->fini(e.pstate);
        e.hook_seconds += seconds() - t0;
    }
    if (backend_up && backend->ops->fini)
        backend->ops->fini(backend);
    if (stats) {
        stats->mapping_seconds = e.hook_seconds;
        stats->busy_us_total = e.busy_us;
        stats->events = e.events;
        stats->failed_devices = e.failed_devices;
        stats->rerun = e.rerun;
        stats->live_splits = e.live_splits;
        stats->chunks = e.chunks;
    }
    engine_free(&e);
    hs_graph_free(&own);
    /* The delay model's transfers follow from the placements and the
     * workload alone: the schedule leaves them implied, and its readers
     * compute them where they read them (hs_schedule_each_transfer). */
    if (rc == 0 && !e.exec_depth) {
        e.s->transfers_implied = 1;
        e.s->makespan_us = hs_schedule_makespan(w, e.s);
    }
    if (rc != 0) {
        hs_schedule_free(e.s);
        return rc;
    }
    *out = e.s;
    return HS_OK;
}
