/* hetsched — the `cpu` backend (exec/data.h): one worker thread per device;
 * start_task hands a task to its device's worker, which runs it through the
 * data manager (exec/data.c) and posts its completion to a queue that wait()
 * blocks on.  Times are µs on the monotonic clock since init.  The `emu`
 * backend (exec/emu.c) is this one with a memory space per memory. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "exec/data.h"
#include "exec/real.h"

typedef struct worker {
    struct real *rb;
    int device;
    long task;              /* handed over and not yet taken, or -1 */
    pthread_t tid;
    int started;
    pthread_cond_t cv;
} worker;

typedef struct real {
    hs__data *dm;
    hs_run_report *report;  /* the caller's, or NULL */
    struct timespec t0;
    pthread_mutex_t mu;     /* everything below */
    pthread_cond_t done_cv;
    hs_completion *q;       /* each task completes once: ntasks slots */
    size_t head, tail;
    size_t outstanding;     /* started, not yet returned by wait/poll */
    int stop, failed;
    hs_error ferr;          /* the first worker error */
    int nworkers;
    worker *workers;
} real;

/* Waits for tasks handed to this device, runs them one at a time and posts
 * each completion; a failure is posted too, and kept for wait(). */
static void *work(void *arg)
{
    worker *wk = arg;
    real *rb = wk->rb;
    pthread_mutex_lock(&rb->mu);
    for (;;) {
        hs_completion c = {.device = wk->device};
        hs_error err = {0};
        int rc;
        while (wk->task < 0 && !rb->stop)
            pthread_cond_wait(&wk->cv, &rb->mu);
        if (wk->task < 0)
            break;
        c.task = (size_t)wk->task;
        pthread_mutex_unlock(&rb->mu);
        rc = hs__data_run(rb->dm, c.task, wk->device, &rb->t0, &c.start_us, &c.end_us, &err);
        pthread_mutex_lock(&rb->mu);
        if (rc != 0 && !rb->failed) {
            rb->failed = 1;
            rb->ferr = err;
        }
        wk->task = -1;
        rb->q[rb->tail++] = c;
        pthread_cond_signal(&rb->done_cv);
    }
    pthread_mutex_unlock(&rb->mu);
    return NULL;
}

static void stop_workers(real *rb)
{
    pthread_mutex_lock(&rb->mu);
    rb->stop = 1;
    for (int i = 0; i < rb->nworkers; i++)
        pthread_cond_signal(&rb->workers[i].cv);
    pthread_mutex_unlock(&rb->mu);
    for (int i = 0; i < rb->nworkers; i++)
        if (rb->workers[i].started)
            pthread_join(rb->workers[i].tid, NULL);
}

static void real_free(real *rb)
{
    stop_workers(rb);
    for (int i = 0; i < rb->nworkers; i++)
        pthread_cond_destroy(&rb->workers[i].cv);
    pthread_cond_destroy(&rb->done_cv);
    pthread_mutex_destroy(&rb->mu);
    hs__data_free(rb->dm);
    free(rb->workers);
    free(rb->q);
    free(rb);
}

int hs__real_init(hs_backend *b, const hs_workload *w, const hs_graph *g, hs__real_mode mode,
                  hs_error *err)
{
    const hs_platform *pf = &w->platform;
    real *rb;
    int rc;
    if (mode == HS__REAL_CPU)
        for (int d = 0; d < pf->ndevices; d++)
            if (pf->devices[d].kind != HS_DEVICE_CPU)
                return hs_error_set(err, HS_EINPUT, "backend cpu runs cpu devices only, and "
                                    "'%s' is a gpu (use --backend emu)",
                                    pf->devices[d].name);
    if (!(rb = calloc(1, sizeof *rb)))
        return hs_error_set(err, HS_ENOMEM, "out of memory for the backend");
    rb->report = b->state; /* the caller's report, see exec/data.h */
    pthread_mutex_init(&rb->mu, NULL);
    pthread_cond_init(&rb->done_cv, NULL);
    rb->q = calloc(g->ntasks ? g->ntasks : 1, sizeof *rb->q);
    rb->workers = calloc((size_t)pf->ndevices, sizeof *rb->workers);
    if (!rb->q || !rb->workers) {
        real_free(rb);
        return hs_error_set(err, HS_ENOMEM, "out of memory for the backend");
    }
    rb->nworkers = pf->ndevices;
    for (int d = 0; d < pf->ndevices; d++) {
        rb->workers[d].rb = rb;
        rb->workers[d].device = d;
        rb->workers[d].task = -1;
        pthread_cond_init(&rb->workers[d].cv, NULL);
    }
    if ((rc = hs__data_new(w, g, mode, &rb->dm, err)) != 0) {
        real_free(rb);
        return rc;
    }
    clock_gettime(CLOCK_MONOTONIC, &rb->t0);
    for (int d = 0; d < pf->ndevices; d++) {
        if (pthread_create(&rb->workers[d].tid, NULL, work, &rb->workers[d]) != 0) {
            real_free(rb);
            return hs_error_set(err, HS_EIO, "cannot start a worker thread");
        }
        rb->workers[d].started = 1;
    }
    b->state = rb;
    return HS_OK;
}

int hs__real_start_task(hs_backend *b, size_t t, int d, double earliest_us, hs_error *err)
{
    real *rb = b->state;
    (void)earliest_us; /* the worker moves the data itself */
    pthread_mutex_lock(&rb->mu);
    if (rb->workers[d].task >= 0) {
        pthread_mutex_unlock(&rb->mu);
        return hs_error_set(err, HS_EINTERNAL, "device %d got a task while it has one", d);
    }
    rb->workers[d].task = (long)t;
    rb->outstanding++;
    pthread_cond_signal(&rb->workers[d].cv);
    pthread_mutex_unlock(&rb->mu);
    return HS_OK;
}

/* Pops one completion (mu held): 0, 1 when the queue is empty, or the first
 * worker error. */
static int pop(real *rb, hs_completion *c, hs_error *err)
{
    if (rb->head == rb->tail)
        return 1;
    *c = rb->q[rb->head++];
    rb->outstanding--;
    if (rb->failed) {
        if (err)
            *err = rb->ferr;
        return rb->ferr.code ? rb->ferr.code : HS_EINTERNAL;
    }
    return 0;
}

int hs__real_wait(hs_backend *b, hs_completion *c, hs_error *err)
{
    real *rb = b->state;
    int rc;
    pthread_mutex_lock(&rb->mu);
    if (rb->outstanding == 0) {
        pthread_mutex_unlock(&rb->mu);
        return 1;
    }
    while (rb->head == rb->tail)
        pthread_cond_wait(&rb->done_cv, &rb->mu);
    rc = pop(rb, c, err);
    pthread_mutex_unlock(&rb->mu);
    return rc;
}

int hs__real_poll(hs_backend *b, hs_completion *c, hs_error *err)
{
    real *rb = b->state;
    int rc;
    pthread_mutex_lock(&rb->mu);
    rc = pop(rb, c, err);
    pthread_mutex_unlock(&rb->mu);
    return rc;
}

double hs__real_now(const hs_backend *b)
{
    return hs__since_us(&((const real *)b->state)->t0);
}

/* Stops the workers (waiting for a task still running), hands the counters
 * and outputs to the caller's report, frees everything. */
void hs__real_fini(hs_backend *b)
{
    real *rb = b->state;
    if (!rb)
        return;
    stop_workers(rb);
    if (rb->report) {
        hs_run_report_free(rb->report);
        if (hs__data_report(rb->dm, rb->report, NULL) != 0)
            hs_run_report_free(rb->report);
    }
    b->state = rb->report;
    real_free(rb);
}

static int cpu_init(hs_backend *b, const hs_workload *w, const hs_graph *g, hs_error *err)
{
    return hs__real_init(b, w, g, HS__REAL_CPU, err);
}

const hs_backend_ops hs_backend_cpu = {
    .name = "cpu",
    .init = cpu_init,
    .start_task = hs__real_start_task,
    .wait = hs__real_wait,
    .poll = hs__real_poll,
    .now = hs__real_now,
    .fini = hs__real_fini,
};

const hs_backend_ops *hs_backend_find(const char *name)
{
    static const hs_backend_ops *const all[] = {&hs_backend_sim, &hs_backend_cpu,
                                                &hs_backend_emu};
    for (size_t i = 0; name && i < sizeof all / sizeof all[0]; i++)
        if (strcmp(all[i]->name, name) == 0)
            return all[i];
    return NULL;
}
