/* hetsched — a run across the nodes of a cluster platform with Open MPI
 * (exec/mpi.h, include/hetsched/run.h: hs_mpi_*; DESIGN.md, "Running across
 * nodes").
 *
 * Rank k owns node k.  Every rank runs the whole graph through one engine
 * with the mapping every rank computed; the devices of other nodes are
 * proxies (exec/remote.h): a task there completes here when its owner's
 * message has come, or at once when no task of this node follows it.  A
 * local task's result goes, once per node, to every node where a task
 * follows it (StarPU-MPI's owner computes, with one receive per datum and
 * node): a message tagged with the task's index holding the time it was
 * sent (double, µs on the run's clock) and the result's bytes.
 *
 * One progress thread per rank makes every MPI call during the run
 * (MPI_THREAD_SERIALIZED: the main thread calls MPI only before it starts
 * and after it ended): it posts the sends the workers queued (MPI_Isend of
 * a copy of the bytes), receives what comes (MPI_Improbe, then MPI_Imrecv
 * into a buffer of the probed size) and tests them (MPI_Testsome); a proxy
 * waiting for a task sleeps on a condition variable until its message is
 * here.  With nothing to do, the thread waits between polls until a worker
 * queues a send or a proxy starts waiting, PROGRESS_IDLE_US at most while a
 * proxy waits or a message is in flight, else PROGRESS_QUIET_US (on a
 * loaded machine a thread that polls all the time takes a core's share
 * from the kernels).
 *
 * Errors: the communicator returns errors (MPI_ERRORS_RETURN); a failed call
 * fails the run on this rank (HS_EIO naming the call and the task).  A rank
 * that fails once the ranks agreed ends the job (hs_mpi_abort), and a rank
 * that dies is seen by mpirun, which ends the others: no rank waits
 * forever for a message that will not come.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "exec/data.h"
#include "exec/mpi.h"
#include "hetsched/run.h"

/* How long the progress thread waits between polls when nothing moved (a
 * queued send wakes it at once): while a proxy waits for a message or a
 * message is in flight, and else (no one here needs a message yet; each
 * poll costs a wake-up, a core's time on a loaded machine). */
#define PROGRESS_IDLE_US 20
#define PROGRESS_QUIET_US 1000

static struct {
    int up;          /* MPI_Init_thread done, MPI_Finalize not yet */
    int rank, size;
    int started;     /* the ranks of the run agreed (hs_mpi_started) */
} world = {.size = 1};

/* Whether Open MPI's mpirun (or another PMIx launcher) started us. */
static int launched_by_mpirun(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK");
}

int hs_mpi_init(hs_error *err)
{
    int provided, rc;
    if (world.up || !launched_by_mpirun())
        return HS_OK;
    if ((rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided)) != MPI_SUCCESS)
        return hs_error_set(err, HS_EIO, "MPI_Init_thread failed (error %d)", rc);
    world.up = 1;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &world.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world.size);
    if (provided < MPI_THREAD_SERIALIZED)
        return hs_error_set(err, HS_EIO, "the MPI library gives thread level %d, less than "
                            "MPI_THREAD_SERIALIZED (%d), which the progress thread needs",
                            provided, MPI_THREAD_SERIALIZED);
    return HS_OK;
}

int hs_mpi_rank(void)
{
    return world.rank;
}

int hs_mpi_size(void)
{
    return world.size;
}

int hs_mpi_started(void)
{
    return world.started;
}

void hs_mpi_finalize(void)
{
    if (world.up)
        MPI_Finalize();
    world.up = 0;
}

void hs_mpi_abort(int status)
{
    if (world.up)
        MPI_Abort(MPI_COMM_WORLD, status);
}

int hs__mpi_active(void)
{
    return world.up;
}

/* An MPI call's failure as HS_EIO: "what: MPI's message". */
static int mpi_error(hs_error *err, int code, const char *what)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(code, msg, &len) != MPI_SUCCESS)
        snprintf(msg, sizeof msg, "error %d", code);
    return hs_error_set(err, HS_EIO, "rank %d: %s: %s", world.rank, what, msg);
}

int hs__mpi_agree(const hs_workload *w, hs_schedule *mapping, const char *policy,
                  hs_error *err)
{
    int nodes = w->platform.nnodes ? w->platform.nnodes : 1, rc, whole, all;
    size_t n = mapping->nplacements;
    double *v;
    if (nodes != world.size)
        return hs_error_set(err, HS_EUSAGE, "mpirun started %d processes for a platform of %d "
                            "node%s: run one process per node (mpirun -np %d)", world.size,
                            nodes, nodes == 1 ? "" : "s", nodes);
    /* whole tasks on every rank (one placement per task), or all refuse */
    whole = n == w->graph.ntasks;
    for (size_t i = 0; i < n && whole; i++)
        whole = mapping->placements[i].nparts == 1;
    if ((rc = MPI_Allreduce(&whole, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD)) != MPI_SUCCESS)
        return mpi_error(err, rc, "MPI_Allreduce of the mappings' shapes");
    if (!all)
        return hs_error_set(err, HS_EUSAGE, "policy %s splits kernels into parts, which a run "
                            "across nodes (mpirun) does not run: it runs whole tasks",
                            policy ? policy : "of the schedule");
    if (!(v = malloc(4 * (n ? n : 1) * sizeof *v)))
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const hs_placement *p = &mapping->placements[i];
        v[4 * i] = (double)p->task;
        v[4 * i + 1] = p->device;
        v[4 * i + 2] = p->start_us;
        v[4 * i + 3] = p->end_us;
    }
    if ((rc = MPI_Bcast(v, (int)(4 * n), MPI_DOUBLE, 0, MPI_COMM_WORLD)) != MPI_SUCCESS) {
        free(v);
        return mpi_error(err, rc, "MPI_Bcast of the mapping");
    }
    for (size_t i = 0; i < n; i++)
        mapping->placements[i] = (hs_placement){.task = (size_t)v[4 * i], .nparts = 1,
                                                .fraction = 1, .device = (int)v[4 * i + 1],
                                                .start_us = v[4 * i + 2],
                                                .end_us = v[4 * i + 3]};
    free(v);
    world.started = 1;
    return HS_OK;
}

/* A message in flight: a send of `buf`, or a receive into it. */
typedef struct flight {
    MPI_Request req;
    char *buf;
    int recv;
    size_t task;
} flight;

/* A send a worker queued: task, destination rank, the message. */
typedef struct outgoing {
    size_t task;
    int to;
    char *buf;
    size_t len;
} outgoing;

/* A message that came: its bytes after the header. */
typedef struct arrival {
    char *buf;
    size_t len;
} arrival;

typedef struct mpi_remote {
    hs__remote hook;
    const hs_workload *w;
    int *owner;                 /* [ntasks]: the node (rank) that runs it */
    unsigned char *expected;    /* [ntasks]: a task of this node follows it */
    arrival *arrived;           /* [ntasks]: its message, once here (mu) */
    unsigned char *seen;        /* [nnodes]: scratch of send (mu) */
    pthread_mutex_t mu;
    pthread_cond_t came;        /* a message came, or message passing failed */
    pthread_cond_t queued;      /* a send was queued, or a proxy waits: the
                                   progress thread wakes */
    int waiting;                /* proxies waiting for a message (mu) */
    outgoing *queue;            /* sends queued by the workers (mu) */
    size_t nqueue, capqueue;
    flight *fl;                 /* the progress thread's */
    MPI_Request *reqs;
    int *done_idx;
    size_t nfl, capfl;
    pthread_t progress;
    int running;
    atomic_int stop;            /* the run ended here: finish the sends, end */
    atomic_int quit;            /* it failed here: end at once */
    int failed;                 /* message passing failed (mu): ferr */
    hs_error ferr;
    size_t messages;            /* sent by this rank, and their payload */
    double bytes;
} mpi_remote;

static int node_of_device(const mpi_remote *mr, int d)
{
    return mr->w->platform.devices[d].node;
}

static int remote_local(void *ctx, int d)
{
    return node_of_device(ctx, d) == world.rank;
}

static int remote_owns(void *ctx, size_t t)
{
    const mpi_remote *mr = ctx;
    return mr->owner[t] == world.rank;
}

static int remote_home(void *ctx)
{
    const mpi_remote *mr = ctx;
    return mr->w->platform.nnodes ? mr->w->platform.nodes[world.rank].host : HS_HOST_MEMORY;
}

static int remote_origin(void *ctx, size_t t)
{
    const mpi_remote *mr = ctx;
    return mr->w->platform.nnodes ? mr->w->platform.nodes[mr->owner[t]].host : HS_HOST_MEMORY;
}

/* Fails message passing (mu held): every proxy wakes with the error. */
static void fail_locked(mpi_remote *mr, const hs_error *err)
{
    if (!mr->failed) {
        mr->failed = 1;
        mr->ferr = *err;
    }
    pthread_cond_broadcast(&mr->came);
}

static void fail(mpi_remote *mr, const hs_error *err)
{
    pthread_mutex_lock(&mr->mu);
    fail_locked(mr, err);
    pthread_mutex_unlock(&mr->mu);
}

static int push_flight(mpi_remote *mr, const flight *f)
{
    if (mr->nfl == mr->capfl) {
        size_t cap = mr->capfl ? 2 * mr->capfl : 64;
        flight *nf = realloc(mr->fl, cap * sizeof *nf);
        MPI_Request *nr;
        int *ni;
        if (nf)
            mr->fl = nf;
        nr = nf ? realloc(mr->reqs, cap * sizeof *nr) : NULL;
        if (nr)
            mr->reqs = nr;
        ni = nr ? realloc(mr->done_idx, cap * sizeof *ni) : NULL;
        if (!ni)
            return -1;
        mr->done_idx = ni;
        mr->capfl = cap;
    }
    mr->fl[mr->nfl] = *f;
    mr->reqs[mr->nfl++] = f->req;
    return 0;
}

/* One turn of the progress thread: posts the queued sends, receives what
 * came, tests what is in flight.  Returns how many things moved, or -1
 * with *err set. */
static int progress_turn(mpi_remote *mr, hs_error *err)
{
    outgoing *q;
    size_t nq;
    int moved = 0, rc, flag, ndone;
    pthread_mutex_lock(&mr->mu);
    q = mr->queue;
    nq = mr->nqueue;
    mr->queue = NULL;
    mr->nqueue = mr->capqueue = 0;
    pthread_mutex_unlock(&mr->mu);
    for (size_t i = 0; i < nq; i++) {
        flight f = {.buf = q[i].buf, .task = q[i].task};
        if ((rc = MPI_Isend(q[i].buf, (int)q[i].len, MPI_BYTE, q[i].to, (int)q[i].task,
                            MPI_COMM_WORLD, &f.req)) != MPI_SUCCESS) {
            for (size_t k = i; k < nq; k++)
                free(q[k].buf);
            free(q);
            return mpi_error(err, rc, "MPI_Isend of a task's result"), -1;
        }
        if (push_flight(mr, &f) != 0) {
            for (size_t k = i + 1; k < nq; k++)
                free(q[k].buf);
            free(q);
            return hs_error_set(err, HS_ENOMEM, "out of memory"), -1;
        }
        moved++;
    }
    free(q);
    for (;;) {
        MPI_Message msg;
        MPI_Status st;
        int count;
        flight f = {.recv = 1};
        if ((rc = MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st)) !=
            MPI_SUCCESS)
            return mpi_error(err, rc, "MPI_Improbe"), -1;
        if (!flag)
            break;
        MPI_Get_count(&st, MPI_BYTE, &count);
        f.task = (size_t)st.MPI_TAG;
        if (count < (int)sizeof(double) || f.task >= mr->w->graph.ntasks ||
            mr->owner[f.task] != st.MPI_SOURCE || !mr->expected[f.task])
            return hs_error_set(err, HS_EIO, "rank %d: a message of %d bytes from rank %d "
                                "for task %d, which it does not expect from there",
                                world.rank, count, st.MPI_SOURCE, st.MPI_TAG), -1;
        if (!(f.buf = malloc((size_t)count)))
            return hs_error_set(err, HS_ENOMEM, "out of memory for a message"), -1;
        if ((rc = MPI_Imrecv(f.buf, count, MPI_BYTE, &msg, &f.req)) != MPI_SUCCESS) {
            free(f.buf);
            return mpi_error(err, rc, "MPI_Imrecv"), -1;
        }
        /* read by the proxy once the buffer is there (mu orders the two) */
        mr->arrived[f.task].len = (size_t)count;
        if (push_flight(mr, &f) != 0) {
            free(f.buf);
            return hs_error_set(err, HS_ENOMEM, "out of memory"), -1;
        }
        moved++;
    }
    if (mr->nfl == 0)
        return moved;
    if ((rc = MPI_Testsome((int)mr->nfl, mr->reqs, &ndone, mr->done_idx, MPI_STATUSES_IGNORE)) !=
        MPI_SUCCESS)
        return mpi_error(err, rc, "MPI_Testsome"), -1;
    if (ndone == MPI_UNDEFINED || ndone == 0)
        return moved;
    pthread_mutex_lock(&mr->mu);
    for (int k = 0; k < ndone; k++) {
        flight *f = &mr->fl[mr->done_idx[k]];
        if (f->recv) {
            mr->arrived[f->task].buf = f->buf;
        } else {
            free(f->buf);
        }
        f->buf = NULL;
        f->req = MPI_REQUEST_NULL;
    }
    pthread_cond_broadcast(&mr->came);
    pthread_mutex_unlock(&mr->mu);
    {
        size_t keep = 0;
        for (size_t i = 0; i < mr->nfl; i++)
            if (mr->reqs[i] != MPI_REQUEST_NULL) {
                mr->fl[keep] = mr->fl[i];
                mr->fl[keep].req = mr->reqs[i];
                mr->reqs[keep++] = mr->reqs[i];
            }
        mr->nfl = keep;
    }
    return moved + ndone;
}

/* The progress thread: turns until the run ended here and every send was
 * received, or message passing failed. */
static void *progress_main(void *arg)
{
    mpi_remote *mr = arg;
#ifdef PR_SET_TIMERSLACK
    /* the idle sleep as asked, not Linux's default 50 us later: each
     * message waits for a turn on both sides */
    prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
#endif
    for (;;) {
        hs_error err = {0};
        int stop = atomic_load(&mr->stop), moved, empty;
        if (atomic_load(&mr->quit))
            return NULL;
        moved = progress_turn(mr, &err);
        if (moved < 0) {
            fail(mr, &err);
            return NULL;
        }
        pthread_mutex_lock(&mr->mu);
        empty = mr->nqueue == 0;
        if (moved == 0 && empty && !(stop && mr->nfl == 0)) {
            /* nothing moved: sleep until a send is queued or the next poll */
            struct timespec until;
            hs__monotonic_in(&until, mr->waiting || mr->nfl ? PROGRESS_IDLE_US : PROGRESS_QUIET_US);
            pthread_cond_timedwait(&mr->queued, &mr->mu, &until);
        }
        pthread_mutex_unlock(&mr->mu);
        if (stop && empty && mr->nfl == 0)
            return NULL;
    }
}

static double mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e6 * (double)ts.tv_sec + 1e-3 * (double)ts.tv_nsec;
}

/* How far rank 0's monotonic clock is ahead of this rank's, µs (0 on rank
 * 0): rank 0 answers SYNC_ROUNDS requests of each rank in turn with its
 * clock, and the rank keeps the answer of the shortest round trip, taken
 * at its middle (Cristian's algorithm). */
#define SYNC_ROUNDS 8
static int clock_offset(double *offset, hs_error *err)
{
    double best = -1, t;
    int rc = MPI_SUCCESS;
    *offset = 0;
    if (world.rank == 0) {
        for (int r = 1; r < world.size && rc == MPI_SUCCESS; r++)
            for (int k = 0; k < SYNC_ROUNDS && rc == MPI_SUCCESS; k++) {
                char ask;
                if ((rc = MPI_Recv(&ask, 1, MPI_CHAR, r, 0, MPI_COMM_WORLD,
                                   MPI_STATUS_IGNORE)) == MPI_SUCCESS) {
                    t = mono_us();
                    rc = MPI_Send(&t, 1, MPI_DOUBLE, r, 0, MPI_COMM_WORLD);
                }
            }
    } else {
        for (int k = 0; k < SYNC_ROUNDS && rc == MPI_SUCCESS; k++) {
            char ask = 0;
            double a = mono_us(), b;
            if ((rc = MPI_Send(&ask, 1, MPI_CHAR, 0, 0, MPI_COMM_WORLD)) == MPI_SUCCESS &&
                (rc = MPI_Recv(&t, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)) ==
                    MPI_SUCCESS) {
                b = mono_us();
                if (best < 0 || b - a < best) {
                    best = b - a;
                    *offset = t - (a + b) / 2;
                }
            }
        }
    }
    return rc == MPI_SUCCESS ? HS_OK : mpi_error(err, rc, "the clocks' synchronisation");
}

/* The ranks' clocks start together: once every rank is here, rank 0 names
 * an instant START_AHEAD_US ahead on its clock; each rank's clock starts at
 * that instant on its own clock (clock_offset), whenever it gets there: a
 * rank that wakes late (a loaded machine) starts its work late, not its
 * clock.  Then message passing starts. */
#define START_AHEAD_US 2000.0
static int remote_start(void *ctx, struct timespec *t0, hs_error *err)
{
    mpi_remote *mr = ctx;
    double offset, start = 0;
    int rc;
    if ((rc = MPI_Barrier(MPI_COMM_WORLD)) != MPI_SUCCESS)
        return mpi_error(err, rc, "MPI_Barrier before the run");
    if ((rc = clock_offset(&offset, err)) != HS_OK)
        return rc;
    if (world.rank == 0)
        start = mono_us() + START_AHEAD_US;
    if ((rc = MPI_Bcast(&start, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD)) != MPI_SUCCESS)
        return mpi_error(err, rc, "MPI_Bcast of the start");
    start -= offset;
    t0->tv_sec = (time_t)(start / 1e6);
    t0->tv_nsec = (long)((start - 1e6 * (double)t0->tv_sec) * 1e3);
    if (t0->tv_nsec >= 1000000000L) {
        t0->tv_sec++;
        t0->tv_nsec -= 1000000000L;
    }
    while (start > mono_us() &&
           clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, t0, NULL) != 0)
        ;
    if (pthread_create(&mr->progress, NULL, progress_main, mr) != 0)
        return hs_error_set(err, HS_EIO, "cannot start the MPI progress thread");
    mr->running = 1;
    return HS_OK;
}

static int remote_await(void *ctx, size_t t, const void **data, size_t *bytes, double *sent_us,
                        hs_error *err)
{
    mpi_remote *mr = ctx;
    int rc = HS_OK;
    *data = NULL;
    *bytes = 0;
    *sent_us = -1;
    if (!mr->expected[t])
        return HS_OK;
    pthread_mutex_lock(&mr->mu);
    if (!mr->arrived[t].buf && !mr->failed) {
        mr->waiting++;
        pthread_cond_signal(&mr->queued); /* poll often from now on */
        while (!mr->arrived[t].buf && !mr->failed)
            pthread_cond_wait(&mr->came, &mr->mu);
        mr->waiting--;
    }
    if (mr->arrived[t].buf) {
        memcpy(sent_us, mr->arrived[t].buf, sizeof *sent_us);
        *bytes = mr->arrived[t].len - sizeof(double);
        *data = *bytes ? mr->arrived[t].buf + sizeof(double) : NULL;
    } else {
        char id[HS_TASK_ID_MAX];
        hs_task_id(mr->w, &mr->w->graph.tasks[t], id, sizeof id);
        rc = hs_error_set(err, mr->ferr.code ? mr->ferr.code : HS_EIO, "%s (waiting for %s from "
                          "rank %d)", mr->ferr.msg, id, mr->owner[t]);
    }
    pthread_mutex_unlock(&mr->mu);
    return rc;
}

static int remote_send(void *ctx, size_t t, const void *data, size_t bytes, double now_us,
                       hs_error *err)
{
    mpi_remote *mr = ctx;
    const hs_graph *g = &mr->w->graph;
    const hs_edge *ed;
    int rc = HS_OK;
    if (data && bytes > (size_t)INT32_MAX - sizeof(double)) {
        char id[HS_TASK_ID_MAX];
        hs_task_id(mr->w, &g->tasks[t], id, sizeof id);
        return hs_error_set(err, HS_EINPUT, "the result of %s (%zu bytes) exceeds what one MPI "
                            "message carries (2 GiB)", id, bytes);
    }
    pthread_mutex_lock(&mr->mu);
    memset(mr->seen, 0, (size_t)world.size);
    HS_GRAPH_SUCC_FOREACH(g, t, ed)
    {
        int to = mr->owner[ed->to];
        outgoing o = {.task = t, .to = to, .len = sizeof(double) + (data ? bytes : 0)};
        if (to == world.rank || mr->seen[to] || rc != HS_OK)
            continue;
        mr->seen[to] = 1;
        if (mr->nqueue == mr->capqueue) {
            size_t cap = mr->capqueue ? 2 * mr->capqueue : 16;
            outgoing *nq = realloc(mr->queue, cap * sizeof *nq);
            if (!nq) {
                rc = hs_error_set(err, HS_ENOMEM, "out of memory for a message");
                break;
            }
            mr->queue = nq;
            mr->capqueue = cap;
        }
        if (!(o.buf = malloc(o.len))) {
            rc = hs_error_set(err, HS_ENOMEM, "out of memory for a message");
            break;
        }
        memcpy(o.buf, &now_us, sizeof now_us);
        if (data && bytes)
            memcpy(o.buf + sizeof(double), data, bytes);
        mr->queue[mr->nqueue++] = o;
        pthread_cond_signal(&mr->queued);
        mr->messages++;
        mr->bytes += (double)(o.len - sizeof(double));
    }
    if (rc == HS_OK && mr->failed)
        rc = hs_error_set(err, mr->ferr.code ? mr->ferr.code : HS_EIO, "%s", mr->ferr.msg);
    pthread_mutex_unlock(&mr->mu);
    return rc;
}

static const hs__remote_ops mpi_remote_ops = {
    .local = remote_local,
    .owns = remote_owns,
    .home = remote_home,
    .origin = remote_origin,
    .start = remote_start,
    .await = remote_await,
    .send = remote_send,
};

int hs__mpi_remote_new(const hs_workload *w, const hs_schedule *mapping, hs__remote **out,
                       hs_error *err)
{
    const hs_graph *g = &w->graph;
    size_t n = g->ntasks ? g->ntasks : 1;
    mpi_remote *mr = calloc(1, sizeof *mr);
    if (!mr || !(mr->owner = malloc(n * sizeof *mr->owner)) ||
        !(mr->expected = calloc(n, 1)) || !(mr->arrived = calloc(n, sizeof *mr->arrived)) ||
        !(mr->seen = calloc((size_t)world.size, 1))) {
        if (mr) {
            free(mr->owner);
            free(mr->expected);
            free(mr->arrived);
        }
        free(mr);
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    }
    mr->w = w;
    mr->hook = (hs__remote){.ops = &mpi_remote_ops, .ctx = mr};
    for (size_t i = 0; i < mapping->nplacements; i++)
        mr->owner[mapping->placements[i].task] =
            node_of_device(mr, mapping->placements[i].device);
    for (size_t u = 0; u < g->ntasks; u++) {
        const hs_edge *ed;
        HS_GRAPH_SUCC_FOREACH(g, u, ed)
        {
            if (mr->owner[u] != world.rank && mr->owner[ed->to] == world.rank)
                mr->expected[u] = 1;
        }
    }
    pthread_mutex_init(&mr->mu, NULL);
    pthread_cond_init(&mr->came, NULL);
    {
        pthread_condattr_t ca; /* the idle wait's deadline on the monotonic clock */
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&mr->queued, &ca);
        pthread_condattr_destroy(&ca);
    }
    atomic_init(&mr->stop, 0);
    atomic_init(&mr->quit, 0);
    *out = &mr->hook;
    return HS_OK;
}

int hs__mpi_remote_end(hs__remote *r, int drain, hs_error *err)
{
    mpi_remote *mr = r->ctx;
    int rc = HS_OK;
    if (mr->running) {
        atomic_store(drain ? &mr->stop : &mr->quit, 1);
        pthread_join(mr->progress, NULL);
        mr->running = 0;
    }
    pthread_mutex_lock(&mr->mu);
    if (mr->failed)
        rc = hs_error_set(err, mr->ferr.code ? mr->ferr.code : HS_EIO, "%s", mr->ferr.msg);
    pthread_mutex_unlock(&mr->mu);
    return rc;
}

void hs__mpi_remote_free(hs__remote *r)
{
    mpi_remote *mr;
    if (!r)
        return;
    mr = r->ctx;
    if (mr->running) {
        hs_error ignored;
        hs__mpi_remote_end(r, 0, &ignored);
    }
    for (size_t t = 0; t < mr->w->graph.ntasks; t++)
        free(mr->arrived[t].buf);
    for (size_t i = 0; i < mr->nfl; i++)
        free(mr->fl[i].buf);
    for (size_t i = 0; i < mr->nqueue; i++)
        free(mr->queue[i].buf);
    pthread_mutex_destroy(&mr->mu);
    pthread_cond_destroy(&mr->came);
    pthread_cond_destroy(&mr->queued);
    free(mr->queue);
    free(mr->fl);
    free(mr->reqs);
    free(mr->done_idx);
    free(mr->owner);
    free(mr->expected);
    free(mr->arrived);
    free(mr->seen);
    free(mr);
}

/* ------------------------------------------------------------ the gather */

/* What one rank sends rank 0 after the run: this header, then the arrays
 * link_bytes, link_us (double) and link_copies (size_t), [nmemories^2]
 * each; its placements (timed); its copies; its events; its outputs. */
typedef struct part_header {
    size_t nplacements, ncopies, nevents, noutputs;
    size_t typed, checked, untyped, prefetched, evictions, writebacks;
    size_t pool_hits, pool_misses, pool_reserved, messages;
    double check_us, message_bytes;
    int threads, processors;
    char host[MPI_MAX_PROCESSOR_NAME];
} part_header;

typedef struct timed {
    size_t task;
    double start_us, end_us;
} timed;

/* Appends n bytes at p to the buffer *buf of *len (capacity *cap). */
static int put(char **buf, size_t *len, size_t *cap, const void *p, size_t n)
{
    if (*len + n > *cap) {
        size_t c = *cap ? *cap : 4096;
        char *nb;
        while (c < *len + n)
            c *= 2;
        if (!(nb = realloc(*buf, c)))
            return -1;
        *buf = nb;
        *cap = c;
    }
    if (n)
        memcpy(*buf + *len, p, n);
    *len += n;
    return 0;
}

/* This rank's part: its placements (on its devices), copies, events (of
 * its devices, and the checker's), outputs and counters. */
static int pack(const mpi_remote *mr, const hs_schedule *s,
                const hs_run_report *r, const hs__output_sum *sums, size_t nsums, char **out,
                size_t *outlen, hs_error *err)
{
    size_t nm = (size_t)r->nmemories * (size_t)r->nmemories, len = 0, cap = 0;
    char *buf = NULL;
    part_header h = {.ncopies = r->ncopies, .noutputs = nsums, .typed = r->typed,
                     .checked = r->checked, .untyped = r->untyped, .prefetched = r->prefetched,
                     .evictions = r->evictions, .writebacks = r->writebacks,
                     .pool_hits = r->pool_hits, .pool_misses = r->pool_misses,
                     .pool_reserved = r->pool_reserved, .messages = mr->messages,
                     .check_us = r->check_us, .message_bytes = mr->bytes,
                     .threads = r->threads, .processors = r->processors};
    int ok = 1, hl = 0;
    MPI_Get_processor_name(h.host, &hl);
    for (size_t i = 0; i < s->nplacements; i++)
        h.nplacements += node_of_device(mr, s->placements[i].device) == world.rank;
    for (size_t i = 0; i < r->nevents; i++)
        h.nevents += r->events[i].device < 0 ||
                     node_of_device(mr, r->events[i].device) == world.rank;
    ok = put(&buf, &len, &cap, &h, sizeof h) == 0 &&
         put(&buf, &len, &cap, r->link_bytes, nm * sizeof *r->link_bytes) == 0 &&
         put(&buf, &len, &cap, r->link_us, nm * sizeof *r->link_us) == 0 &&
         put(&buf, &len, &cap, r->link_copies, nm * sizeof *r->link_copies) == 0;
    for (size_t i = 0; ok && i < s->nplacements; i++) {
        const hs_placement *p = &s->placements[i];
        timed tm = {p->task, p->start_us, p->end_us};
        if (node_of_device(mr, p->device) == world.rank)
            ok = put(&buf, &len, &cap, &tm, sizeof tm) == 0;
    }
    ok = ok && put(&buf, &len, &cap, r->copies, r->ncopies * sizeof *r->copies) == 0;
    for (size_t i = 0; ok && i < r->nevents; i++)
        if (r->events[i].device < 0 || node_of_device(mr, r->events[i].device) == world.rank)
            ok = put(&buf, &len, &cap, &r->events[i], sizeof r->events[i]) == 0;
    ok = ok && put(&buf, &len, &cap, sums, nsums * sizeof *sums) == 0;
    if (!ok) {
        free(buf);
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    }
    *out = buf;
    *outlen = len;
    return HS_OK;
}

static int by_task(const void *a, const void *b)
{
    const hs__output_sum *x = a, *y = b;
    return (x->task > y->task) - (x->task < y->task);
}

/* Rank 0: adds rank k's part at p to s, r and the outputs. */
static int merge(const mpi_remote *mr, const char *p, const size_t *place_of, hs_schedule *s,
                 hs_run_report *r, hs__output_sum **sums, size_t *nsums, size_t *messages,
                 double *message_bytes, char (*hosts)[MPI_MAX_PROCESSOR_NAME], int k,
                 hs_error *err)
{
    part_header h;
    size_t nm = (size_t)r->nmemories * (size_t)r->nmemories;
    const double *lb, *lu;
    const size_t *lc;
    hs_run_copy *nc;
    hs_run_event *ne;
    hs__output_sum *no;
    int new_host = 1;
    memcpy(&h, p, sizeof h);
    p += sizeof h;
    lb = (const double *)(const void *)p;
    lu = lb + nm;
    lc = (const size_t *)(const void *)(lu + nm);
    for (size_t i = 0; i < nm; i++) {
        double b, u;
        size_t c;
        memcpy(&b, lb + i, sizeof b);
        memcpy(&u, lu + i, sizeof u);
        memcpy(&c, lc + i, sizeof c);
        r->link_bytes[i] += b;
        r->link_us[i] += u;
        r->link_copies[i] += c;
    }
    p += nm * (2 * sizeof(double) + sizeof(size_t));
    for (size_t i = 0; i < h.nplacements; i++, p += sizeof(timed)) {
        timed tm;
        memcpy(&tm, p, sizeof tm);
        if (tm.task < mr->w->graph.ntasks && place_of[tm.task] < s->nplacements) {
            s->placements[place_of[tm.task]].start_us = tm.start_us;
            s->placements[place_of[tm.task]].end_us = tm.end_us;
        }
    }
    nc = realloc(r->copies, (r->ncopies + h.ncopies + 1) * sizeof *nc);
    ne = nc ? realloc(r->events, (r->nevents + h.nevents + 1) * sizeof *ne) : NULL;
    if (nc)
        r->copies = nc;
    if (ne)
        r->events = ne;
    no = ne ? realloc(*sums, (*nsums + h.noutputs + 1) * sizeof *no) : NULL;
    if (!no)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    *sums = no;
    memcpy(r->copies + r->ncopies, p, h.ncopies * sizeof *nc);
    r->ncopies += h.ncopies;
    p += h.ncopies * sizeof *nc;
    memcpy(r->events + r->nevents, p, h.nevents * sizeof *ne);
    r->nevents += h.nevents;
    p += h.nevents * sizeof *ne;
    memcpy(*sums + *nsums, p, h.noutputs * sizeof *no);
    *nsums += h.noutputs;
    r->typed += h.typed;
    r->checked += h.checked;
    r->untyped += h.untyped;
    r->prefetched += h.prefetched;
    r->evictions += h.evictions;
    r->writebacks += h.writebacks;
    r->pool_hits += h.pool_hits;
    r->pool_misses += h.pool_misses;
    r->pool_reserved += h.pool_reserved;
    if (h.check_us > r->check_us)
        r->check_us = h.check_us; /* the ranks check at once */
    r->threads += h.threads;
    /* ranks on one machine share its processors */
    for (int j = 0; j < k; j++)
        new_host &= strncmp(hosts[j], h.host, MPI_MAX_PROCESSOR_NAME) != 0;
    memcpy(hosts[k], h.host, MPI_MAX_PROCESSOR_NAME);
    if (new_host)
        r->processors += h.processors;
    *messages += h.messages;
    *message_bytes += h.message_bytes;
    return HS_OK;
}

int hs__mpi_gather(const hs_workload *w, hs__remote *rm, hs_schedule *s, hs_run_report *report,
                   hs__output_sum **sums, size_t *nsums, size_t *messages,
                   double *message_bytes, hs_error *err)
{
    mpi_remote *mr = rm->ctx;
    char *mine = NULL, *all = NULL;
    size_t len = 0, *place_of = NULL;
    long long mylen, *lens = NULL;
    int *counts = NULL, *displs = NULL, rc, k;
    char (*hosts)[MPI_MAX_PROCESSOR_NAME] = NULL;
    *messages = mr->messages;
    *message_bytes = mr->bytes;
    if ((rc = pack(mr, s, report, *sums, *nsums, &mine, &len, err)) != HS_OK)
        return rc;
    mylen = (long long)len;
    if (world.rank == 0 && (!(lens = calloc((size_t)world.size, sizeof *lens)) ||
                            !(counts = calloc((size_t)world.size, sizeof *counts)) ||
                            !(displs = calloc((size_t)world.size, sizeof *displs)))) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
        goto out;
    }
    /* a rank that fails here, before or between the collectives, ends the
     * job (hs_mpi_abort): the others do not wait for it */
    if ((rc = MPI_Gather(&mylen, 1, MPI_LONG_LONG, lens, 1, MPI_LONG_LONG, 0,
                         MPI_COMM_WORLD)) != MPI_SUCCESS) {
        rc = mpi_error(err, rc, "MPI_Gather of the parts' sizes");
        goto out;
    }
    if (world.rank == 0) {
        long long total = 0;
        for (k = 0; k < world.size; k++) {
            if (lens[k] > INT32_MAX || total + lens[k] > INT32_MAX) {
                rc = hs_error_set(err, HS_EIO, "the ranks' measurements exceed 2 GiB");
                goto out;
            }
            counts[k] = (int)lens[k];
            displs[k] = (int)total;
            total += lens[k];
        }
        if (!(all = malloc((size_t)total + 1))) {
            rc = hs_error_set(err, HS_ENOMEM, "out of memory");
            goto out;
        }
    }
    if ((rc = MPI_Gatherv(mine, (int)len, MPI_BYTE, all, counts, displs, MPI_BYTE, 0,
                          MPI_COMM_WORLD)) != MPI_SUCCESS) {
        rc = mpi_error(err, rc, "MPI_Gatherv of the ranks' measurements");
        goto out;
    }
    rc = HS_OK;
    if (world.rank != 0)
        goto out;
    if (!(place_of = malloc((w->graph.ntasks + 1) * sizeof *place_of)) ||
        !(hosts = calloc((size_t)world.size, sizeof *hosts))) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t t = 0; t < w->graph.ntasks; t++)
        place_of[t] = SIZE_MAX;
    for (size_t i = 0; i < s->nplacements; i++)
        place_of[s->placements[i].task] = i;
    {
        /* rank 0's own counters are in the report already, but for its
         * proxies' events */
        part_header h0;
        size_t keep = 0;
        memcpy(&h0, all, sizeof h0);
        memcpy(hosts[0], h0.host, MPI_MAX_PROCESSOR_NAME);
        *messages = h0.messages;
        *message_bytes = h0.message_bytes;
        for (size_t i = 0; i < report->nevents; i++)
            if (report->events[i].device < 0 ||
                node_of_device(mr, report->events[i].device) == 0)
                report->events[keep++] = report->events[i];
        report->nevents = keep;
    }
    for (k = 1; k < world.size && rc == HS_OK; k++)
        rc = merge(mr, all + displs[k], place_of, s, report, sums, nsums, messages,
                   message_bytes, hosts, k, err);
    if (rc == HS_OK && *nsums > 1)
        qsort(*sums, *nsums, sizeof **sums, by_task);
out:
    free(mine);
    free(all);
    free(lens);
    free(counts);
    free(displs);
    free(place_of);
    free(hosts);
    return rc;
}
