/* hetsched — schedules as the JSON of DESIGN.md §4, written with jansson and
 * read with yajl
 * (include/hetsched/schedule.h).
 *
 * Writing streams one task or transfer per line (each line dumped by
 * jansson), so that a schedule of a million tasks needs no JSON tree in
 * memory and stays readable.  Numbers round-trip exactly: each line is dumped
 * with the fewest digits (15, 16 or 17) that give back every double on it,
 * and byte counts that are whole numbers are written as integers.
 *
 * Reading streams too: yajl's events (graph/json_stream.h) fill the schedule
 * in one pass without a document tree, in less than half the memory the
 * text takes on disk.  It is strict: every key known, present and given once,
 * every value of the right type and range, every task id and device known to
 * the workload.  Errors read `FILE:LINE:COL: error: PATH: WHAT` with the JSON
 * path of the bad item, located at its value, or `FILE:LINE:COL: error:
 * invalid JSON: WHAT` for JSON syntax. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "hetsched/schedule.h"
#include "graph/json_stream.h"
#include "graph/numfmt.h"
#include "graph/schedule_int.h"
#include "graph/strmap.h"
#include "hetsched/output.h"

/* ----------------------------------------------------------------- writing */

/* Does %.{prec}g give back x exactly (as jansson writes and strtod reads)? */
static int round_trips(double x, int prec)
{
    char buf[64];
    if (x == floor(x) && fabs(x) < 1e15) /* whole numbers: the common case */
        return 1;
    snprintf(buf, sizeof buf, "%.*g", prec, x);
    return strtod(buf, NULL) == x;
}

/* The jansson flags for a line holding these numbers: the smallest precision
 * of 15, 16, 17 at which all of them round-trip (17 always does). */
static size_t line_flags(const double *x, int n)
{
    int prec = 15;
    for (int i = 0; i < n && prec < 17; i++)
        while (prec < 17 && !round_trips(x[i], prec))
            prec++;
    return JSON_REAL_PRECISION(prec) | JSON_ENCODE_ANY;
}

/* A byte count: an integer when it is a whole number jansson can hold
 * exactly, else a real. */
static json_t *bytes_value(double b)
{
    if (b == floor(b) && fabs(b) < 9007199254740992.0)
        return json_integer((json_int_t)b);
    return json_real(b);
}

/* A growable buffer for task ids, which have no length limit. */
typedef struct idbuf {
    char small[256];
    char *big;
    size_t cap;
} idbuf;

static const char *placement_id(const hs_workload *w, const hs_placement *p, idbuf *b)
{
    int n = hs__placement_id(w, p, b->small, sizeof b->small);
    char *grown;
    if (n < (int)sizeof b->small)
        return b->small;
    if ((size_t)n >= b->cap) {
        if (!(grown = realloc(b->big, (size_t)n + 1)))
            return NULL;
        b->big = grown;
        b->cap = (size_t)n + 1;
    }
    hs__placement_id(w, p, b->big, b->cap);
    return b->big;
}

/* Writes `v` after `indent`, then `tail`: one line, one fwrite; 0 or -1.
 * The line goes through a buffer that grows to the longest line. */
static int dump_line(FILE *f, const char *indent, const json_t *v, size_t flags, const char *tail,
                     char **buf, size_t *cap)
{
    size_t head = strlen(indent), n;
    if (!v)
        return -1;
    for (;;) {
        n = json_dumpb(v, *buf ? *buf + head : NULL, *buf ? *cap - head : 0, flags);
        if (n == 0)
            return -1;
        if (*buf && head + n + strlen(tail) <= *cap)
            break;
        free(*buf);
        *cap = 2 * (head + n + strlen(tail)) + 64;
        if (!(*buf = malloc(*cap)))
            return -1;
    }
    memcpy(*buf, indent, head);
    memcpy(*buf + head + n, tail, strlen(tail));
    n += head + strlen(tail);
    return fwrite(*buf, 1, n, f) == n ? 0 : -1;
}

static json_t *string_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

/* Fills `o` with one task's line.  The object is reused line after line:
 * replacing a key's value keeps its place, so the key order stays that of
 * DESIGN.md §4 and no key is allocated again. */
static int task_line(json_t *o, const hs_workload *w, const hs_placement *p, idbuf *ids,
                     size_t *flags)
{
    const char *id = placement_id(w, p, ids);
    double nums[] = {p->start_us, p->end_us, p->fraction};
    if (!id || json_object_set_new(o, "id", json_string(id)) != 0 ||
        json_object_set_new(o, "device", json_string(w->platform.devices[p->device].name)) ||
        json_object_set_new(o, "start_us", json_real(p->start_us)) != 0 ||
        json_object_set_new(o, "end_us", json_real(p->end_us)) != 0 ||
        json_object_set_new(o, "fraction", json_real(p->fraction)) != 0)
        return -1;
    *flags = line_flags(nums, 3);
    return 0;
}

static json_t *transfer_end(const hs_workload *w, const hs_schedule *s, long placement, idbuf *ids)
{
    const char *id;
    if (placement == HS_NONE)
        return json_null();
    id = placement_id(w, &s->placements[placement], ids);
    return id ? json_string(id) : NULL;
}

static const char *device_name(const hs_workload *w, int d)
{
    return d == HS_HOST_DEVICE ? "host" : w->platform.devices[d].name;
}

/* Fills `o` with one transfer's line (reused like task_line's). */
static int transfer_line(json_t *o, const hs_workload *w, const hs_schedule *s,
                         const hs_transfer *t, idbuf *ids, size_t *flags)
{
    double nums[] = {t->bytes, t->start_us, t->end_us};
    if (json_object_set_new(o, "from_task", transfer_end(w, s, t->from_placement, ids)) ||
        json_object_set_new(o, "to_task", transfer_end(w, s, t->to_placement, ids)) != 0 ||
        json_object_set_new(o, "from_device", json_string(device_name(w, t->from_device))) ||
        json_object_set_new(o, "to_device", json_string(device_name(w, t->to_device))) != 0 ||
        json_object_set_new(o, "bytes", bytes_value(t->bytes)) != 0 ||
        json_object_set_new(o, "start_us", json_real(t->start_us)) != 0 ||
        json_object_set_new(o, "end_us", json_real(t->end_us)) != 0)
        return -1;
    *flags = line_flags(nums, 3);
    return 0;
}

/* ------------------------------------- the common lines, without jansson */

/* Most lines hold plain names and times that are sums of costs given in
 * thousandths of a microsecond.  Such a line is written here as jansson
 * would write it, byte for byte, without its per-number snprintf and the
 * round-trip test's strtod; any other line goes through jansson. */

typedef struct fastline {
    char text[1024];
    size_t n;
    int ok; /* 0 once something did not fit the fast form */
} fastline;

/* (text is not zeroed: a kilobyte a line, 3 GB for a million tasks) */
#define FL_START(l) ((l)->n = 0, (l)->ok = 1)

static void fl_put(fastline *l, const char *s, size_t n)
{
    if (!l->ok || l->n + n >= sizeof l->text) {
        l->ok = 0;
        return;
    }
    memcpy(l->text + l->n, s, n);
    l->n += n;
}

#define FL_LIT(l, s) fl_put(l, s, sizeof s - 1)

/* A JSON string that needs no escape (no '"', '\\' or control character;
 * names are valid UTF-8, which jansson writes as is). */
static void fl_string(fastline *l, const char *s)
{
    size_t n = 0;
    for (; s[n]; n++)
        if (s[n] == '"' || s[n] == '\\' || (unsigned char)s[n] < 0x20)
            l->ok = 0;
    FL_LIT(l, "\"");
    fl_put(l, s, n);
    FL_LIT(l, "\"");
}

/* The numbers of one line as jansson writes them (line_flags, then
 * %.{prec}g and ".0" after a whole number), each formatted once: prec is
 * the least of 15, 16, 17 at which every number reads back.  Returns 0
 * when hs__format_g cannot tell for one.  +0 reads back at any precision. */
typedef struct fl_numbers {
    char text[3][36];
    int len[3];
} fl_numbers;

static int fl_format(const double *x, int n, fl_numbers *out)
{
    int prec = 15, back = 0;
    for (int i = 0; i < n; i++) {
        int was = prec;
        if (x[i] == 0 && !signbit(x[i])) {
            memcpy(out->text[i], "0.0", 4);
            out->len[i] = 3;
            continue;
        }
        out->len[i] = hs__format_g_least(x[i], &prec, 17, out->text[i], &back);
        if (!back || out->len[i] == 0)
            return 0;
        if (prec > was) /* the line's precision went up: the numbers before at it too */
            for (int j = 0; j < i; j++)
                if (!(x[j] == 0 && !signbit(x[j])) &&
                    (out->len[j] = hs__format_g(x[j], prec, out->text[j], &back)) == 0)
                    return 0;
    }
    for (int i = 0; i < n; i++)
        if (!memchr(out->text[i], '.', (size_t)out->len[i])) {
            memcpy(out->text[i] + out->len[i], ".0", 3);
            out->len[i] += 2;
        }
    return prec;
}

/* A byte count jansson writes as an integer (bytes_value) and which leaves
 * the line's precision at 15 (round_trips): whole, 0 <= b < 1e15. */
static void fl_bytes(fastline *l, double b)
{
    if (!(b >= 0 && b < 1e15 && b == floor(b)) || signbit(b)) {
        l->ok = 0;
        return;
    }
    char text[21];
    fl_put(l, text, (size_t)hs__format_u64((unsigned long long)b, text));
}

/* Writes one task's line as task_line and dump_line would; 1 when written
 * (0 or -1 as fwrite went), 0 when the line needs jansson. */
static int fast_task_line(FILE *f, const hs_workload *w, const hs_placement *p, idbuf *ids,
                          const char *tail, int *rc)
{
    fastline l;
    double nums[] = {p->start_us, p->end_us, p->fraction};
    fl_numbers t;
    const char *id = fl_format(nums, 3, &t) ? placement_id(w, p, ids) : NULL;
    if (!id)
        return 0;
    FL_START(&l);
    FL_LIT(&l, "    {\"id\": ");
    fl_string(&l, id);
    FL_LIT(&l, ", \"device\": ");
    fl_string(&l, w->platform.devices[p->device].name);
    FL_LIT(&l, ", \"start_us\": ");
    fl_put(&l, t.text[0], (size_t)t.len[0]);
    FL_LIT(&l, ", \"end_us\": ");
    fl_put(&l, t.text[1], (size_t)t.len[1]);
    FL_LIT(&l, ", \"fraction\": ");
    fl_put(&l, t.text[2], (size_t)t.len[2]);
    FL_LIT(&l, "}");
    fl_put(&l, tail, strlen(tail));
    if (!l.ok)
        return 0;
    *rc = fwrite(l.text, 1, l.n, f) == l.n ? 0 : -1;
    return 1;
}

static const char *device_name(const hs_workload *w, int d);

/* The id of the last transfer's source, kept: a task's transfers come one
 * after another, and each id is a look-up that misses the cache at a
 * million tasks (its task, its kernel's name). */
typedef struct last_id {
    long placement; /* -1: none */
    char text[256];
} last_id;

static void fl_task_or_null(fastline *l, const hs_workload *w, const hs_schedule *s,
                            long placement, idbuf *ids, last_id *last)
{
    const char *id;
    if (placement == HS_NONE) {
        FL_LIT(l, "null");
    } else if (last && placement == last->placement) {
        fl_string(l, last->text);
    } else if ((id = placement_id(w, &s->placements[placement], ids)) != NULL) {
        fl_string(l, id);
        if (last && strlen(id) < sizeof last->text) {
            strcpy(last->text, id);
            last->placement = placement;
        }
    } else {
        l->ok = 0;
    }
}

/* The same for one transfer's line (transfer_line). */
static int fast_transfer_line(FILE *f, const hs_workload *w, const hs_schedule *s,
                              const hs_transfer *t, idbuf *ids, last_id *last, const char *tail,
                              int *rc)
{
    fastline l;
    double nums[] = {t->start_us, t->end_us};
    fl_numbers x;
    if (!fl_format(nums, 2, &x))
        return 0;
    FL_START(&l);
    FL_LIT(&l, "    {\"from_task\": ");
    fl_task_or_null(&l, w, s, t->from_placement, ids, last);
    FL_LIT(&l, ", \"to_task\": ");
    fl_task_or_null(&l, w, s, t->to_placement, ids, NULL);
    FL_LIT(&l, ", \"from_device\": ");
    fl_string(&l, device_name(w, t->from_device));
    FL_LIT(&l, ", \"to_device\": ");
    fl_string(&l, device_name(w, t->to_device));
    FL_LIT(&l, ", \"bytes\": ");
    fl_bytes(&l, t->bytes);
    FL_LIT(&l, ", \"start_us\": ");
    fl_put(&l, x.text[0], (size_t)x.len[0]);
    FL_LIT(&l, ", \"end_us\": ");
    fl_put(&l, x.text[1], (size_t)x.len[1]);
    FL_LIT(&l, "}");
    fl_put(&l, tail, strlen(tail));
    if (!l.ok)
        return 0;
    *rc = fwrite(l.text, 1, l.n, f) == l.n ? 0 : -1;
    return 1;
}

/* Every index the JSON needs must point into w and s, and every number must
 * be finite (JSON has no NaN): a schedule built for another workload, or
 * broken, is refused before a byte is written. */
static int check_refs(const hs_workload *w, const hs_schedule *s, hs_error *err)
{
    long np = (long)s->nplacements;
    int nd = w->platform.ndevices;
    if (!w->finalized)
        return hs_error_set(err, HS_EUSAGE, "the workload is not finalized");
    if (!isfinite(s->makespan_us))
        return hs_error_set(err, HS_EUSAGE, "the makespan is not finite (JSON cannot hold it)");
    for (size_t i = 0; i < s->nplacements; i++)
        if (s->placements[i].task >= w->graph.ntasks || s->placements[i].device < 0 ||
            s->placements[i].device >= nd)
            return hs_error_set(err, HS_EUSAGE,
                                "placement %zu names task %zu on device %d; the workload has "
                                "%zu tasks and %d devices",
                                i, s->placements[i].task, s->placements[i].device, w->graph.ntasks,
                                nd);
    for (size_t i = 0; i < s->nplacements; i++)
        if (!isfinite(s->placements[i].start_us) || !isfinite(s->placements[i].end_us) ||
            !isfinite(s->placements[i].fraction))
            return hs_error_set(err, HS_EUSAGE,
                                "placement %zu has a time or fraction that is not finite (JSON "
                                "cannot hold it)",
                                i);
    /* (an implied schedule lists none: its transfers follow from the
     * placements checked above and the workload's finite sizes and links) */
    for (size_t k = 0; k < s->ntransfers; k++) {
        const hs_transfer *t = &s->transfers[k];
        if (!isfinite(t->bytes) || !isfinite(t->start_us) || !isfinite(t->end_us))
            return hs_error_set(err, HS_EUSAGE,
                                "transfer %zu has a size or time that is not finite (JSON "
                                "cannot hold it)",
                                k);
        if (t->from_placement < HS_NONE || t->from_placement >= np || t->to_placement < HS_NONE ||
            t->to_placement >= np || t->from_device < -1 || t->from_device >= nd ||
            t->to_device < -1 || t->to_device >= nd)
            return hs_error_set(err, HS_EUSAGE,
                                "transfer %zu names a placement or device that does not exist", k);
    }
    return HS_OK;
}

/* One scalar line of the header: "  KEY": VALUE, */
static int head_line(FILE *f, const char *indent, json_t *v, size_t flags, char **buf, size_t *cap)
{
    int rc = dump_line(f, indent, v, flags, ",\n", buf, cap);
    json_decref(v);
    return rc;
}

/* An id is a chain of look-ups that each miss the cache at a million tasks,
 * in the schedule's order: the placement (a transfer's target), its task,
 * the task's kernel, the kernel's name.  The lines ahead of the one being
 * written load them a stage at a time, AHEAD lines apart, so that each
 * stage reads what the one before loaded: stage 0 the placement, 1 its
 * task, 2 the kernel, 3 the name. */
#define AHEAD 4

/* (always inlined: GCC 12 deems a function that only prefetches free of
 * effects, and drops the calls) */
#define PREFETCHING static inline __attribute__((always_inline)) void

PREFETCHING prefetch_id(const hs_workload *w, const hs_schedule *s, long placement, int stage)
{
    const hs_placement *p;
    const hs_task *t;
    const hs_kernel *k;
    if (placement == HS_NONE)
        return;
    p = &s->placements[placement];
    if (stage == 0) {
        __builtin_prefetch(p);
        return;
    }
    t = &w->graph.tasks[p->task];
    if (stage == 1) {
        __builtin_prefetch(t);
        return;
    }
    k = &w->apps[t->app].kernels[t->kernel];
    if (stage == 2)
        __builtin_prefetch(k);
    else
        __builtin_prefetch(k->name);
}

/* The stages for line `i` of n: of the placements (transfers NULL), or of
 * the transfers' two ends. */
PREFETCHING prefetch_stage(const hs_workload *w, const hs_schedule *s, size_t i, size_t n,
                           const hs_transfer *transfers, int stage)
{
    if (i >= n)
        return;
    if (!transfers) {
        prefetch_id(w, s, (long)i, stage);
        return;
    }
    prefetch_id(w, s, transfers[i].from_placement, stage);
    prefetch_id(w, s, transfers[i].to_placement, stage);
}

PREFETCHING prefetch_ahead(const hs_workload *w, const hs_schedule *s, size_t i, size_t n,
                           const hs_transfer *transfers)
{
    if (transfers)
        prefetch_stage(w, s, i + 4 * AHEAD, n, transfers, 0);
    prefetch_stage(w, s, i + 3 * AHEAD, n, transfers, 1);
    prefetch_stage(w, s, i + 2 * AHEAD, n, transfers, 2);
    prefetch_stage(w, s, i + AHEAD, n, transfers, 3);
}

/* The transfers' lines, written a batch at a time as
 * hs_schedule_each_transfer gives the transfers one by one (an implied
 * schedule's are computed as they come, never all held): a batch keeps the
 * prefetching of the lines ahead.  The last transfer of a batch waits for
 * the next, which tells whether its line ends the array. */
#define BATCH 1024

typedef struct writer {
    FILE *f;
    const hs_workload *w;
    const hs_schedule *s;
    json_t *o;
    idbuf ids;
    last_id last;
    size_t flags, cap, n, written;
    char *buf;
    hs_transfer batch[BATCH];
} writer;

/* Writes the batch's lines, all of them when `final`, else all but the
 * last, which becomes the first of the next batch.  0 or -1. */
static int write_batch(writer *wr, int final)
{
    size_t upto = final ? wr->n : wr->n - 1;
    int rc = 0;
    if (!wr->written && upto && fputs("  \"transfers\": [\n", wr->f) < 0)
        return -1;
    for (size_t k = 0; k < upto && rc == 0; k++) {
        const char *tail = final && k + 1 == upto ? "\n  ]\n" : ",\n";
        prefetch_ahead(wr->w, wr->s, k, upto, wr->batch);
        if (!fast_transfer_line(wr->f, wr->w, wr->s, &wr->batch[k], &wr->ids, &wr->last, tail,
                                &rc) &&
            (rc = transfer_line(wr->o, wr->w, wr->s, &wr->batch[k], &wr->ids, &wr->flags)) == 0)
            rc = dump_line(wr->f, "    ", wr->o, wr->flags, tail, &wr->buf, &wr->cap);
    }
    wr->written += upto;
    if (!final)
        wr->batch[0] = wr->batch[wr->n - 1];
    wr->n -= upto;
    return rc;
}

static int write_transfer(void *ctx, const hs_transfer *t)
{
    writer *wr = ctx;
    if (wr->n == BATCH && write_batch(wr, 0) != 0)
        return -1;
    wr->batch[wr->n++] = *t;
    return 0;
}

static int write_all(const hs_workload *w, const hs_schedule *s, FILE *f, hs_error *err)
{
    writer *wr = calloc(1, sizeof *wr);
    double m = s->makespan_us;
    int rc = 0;
    if (!wr)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    *wr = (writer){.f = f, .w = w, .s = s, .o = json_object(), .last = {.placement = -1}};
    if (!wr->o || fputs("{\n", f) < 0 ||
        head_line(f, "  \"workload\": ", string_or_null(s->workload), JSON_ENCODE_ANY, &wr->buf,
                  &wr->cap) ||
        head_line(f, "  \"algorithm\": ", string_or_null(s->algorithm), JSON_ENCODE_ANY,
                  &wr->buf, &wr->cap) ||
        head_line(f, "  \"model\": ", string_or_null(s->model), JSON_ENCODE_ANY, &wr->buf,
                  &wr->cap) ||
        head_line(f, "  \"makespan_us\": ", json_real(m), line_flags(&m, 1), &wr->buf,
                  &wr->cap) ||
        fputs(s->nplacements ? "  \"tasks\": [\n" : "  \"tasks\": [],\n", f) < 0)
        rc = -1;
    for (size_t i = 0; i < s->nplacements && rc == 0; i++) {
        const char *tail = i + 1 < s->nplacements ? ",\n" : "\n  ],\n";
        prefetch_ahead(w, s, i, s->nplacements, NULL);
        if (!fast_task_line(f, w, &s->placements[i], &wr->ids, tail, &rc) &&
            (rc = task_line(wr->o, w, &s->placements[i], &wr->ids, &wr->flags)) == 0)
            rc = dump_line(f, "    ", wr->o, wr->flags, tail, &wr->buf, &wr->cap);
    }
    /* (a new object: the tasks' keys are not the transfers') */
    json_decref(wr->o);
    if (rc == 0 && !(wr->o = json_object()))
        rc = -1;
    else if (rc != 0)
        wr->o = NULL;
    if (rc == 0)
        rc = hs_schedule_each_transfer(w, s, write_transfer, wr, err);
    if (rc == 0)
        rc = write_batch(wr, 1);
    if (rc == 0 && !wr->written && fputs("  \"transfers\": []\n", f) < 0)
        rc = -1;
    if (rc == 0 && fputs("}\n", f) < 0)
        rc = -1;
    json_decref(wr->o);
    free(wr->ids.big);
    free(wr->buf);
    free(wr);
    return rc;
}

#define WRITE_BUFFER ((size_t)1 << 20)

/* Writes the JSON of DESIGN.md §4 to `path` (hetsched/output.h: "-" is
 * stdout).  HS_EUSAGE when s refers to tasks or devices w does not have,
 * HS_EIO when the file cannot be written. */
int hs_schedule_write_json(const hs_workload *w, const hs_schedule *s, const char *path,
                           hs_error *err)
{
    hs_output o;
    char *buf = NULL;
    int rc;
    if ((rc = check_refs(w, s, err)) != 0 || (rc = hs_output_open(&o, path, err)) != 0)
        return rc;
    /* a file is written WRITE_BUFFER bytes a call, not a page (stdout, which
     * may have been written to, keeps its buffer) */
    if (o.f != stdout && (buf = malloc(WRITE_BUFFER)) != NULL)
        setvbuf(o.f, buf, _IOFBF, WRITE_BUFFER);
    /* -1: the file failed; an hs_errcode: computing the transfers did */
    if ((rc = write_all(w, s, o.f, err)) == -1)
        rc = hs_output_error(&o, err);
    rc = hs_output_close(&o, rc, err);
    free(buf);
    return rc;
}

/* ----------------------------------------------------------------- reading */

/* The reader follows the events of graph/json_stream.h through the only
 * shape a schedule has: an object of scalars and two arrays of flat
 * objects.  A value of the wrong type is refused at once, so nothing is
 * ever skipped and the nesting never goes deeper than an item's object. */

enum { TOP_WORKLOAD, TOP_ALGORITHM, TOP_MODEL, TOP_MAKESPAN, TOP_TASKS, TOP_TRANSFERS };
enum { TASK_ID, TASK_DEVICE, TASK_START, TASK_END, TASK_FRACTION };
enum { XFER_FROM_TASK, XFER_TO_TASK, XFER_FROM_DEVICE, XFER_TO_DEVICE, XFER_BYTES, XFER_START,
       XFER_END };

static const char *const top_keys[] = {"workload", "algorithm", "model", "makespan_us",
                                       "tasks",    "transfers", NULL};
static const char *const task_keys[] = {"id", "device", "start_us", "end_us", "fraction", NULL};
static const char *const transfer_keys[] = {"from_task", "to_task",  "from_device", "to_device",
                                            "bytes",     "start_us", "end_us",      NULL};

/* One object being read: its keys, those seen, the key whose value comes
 * next (-1: none; -2: a key to refuse at its value). */
typedef struct object {
    const char *const *keys;
    const char *what; /* "a task", for messages */
    long long at;     /* offset of its '{' */
    unsigned seen;    /* bit k: keys[k] was read */
    int key;
    int next;         /* the key after the last one found: tried first */
} object;

/* A place a transfer's task id names, while the tasks are not all read
 * (the transfers came first): found when they are. */
typedef struct pending_end {
    size_t transfer;
    int to; /* 0: from_task, 1: to_task */
    hs_placement want;
    long long at;
} pending_end;

/* A task id whose look-up waits for the batch it is in (resolve_ids): the
 * id of placement `item` (ID_TASK) or an end of transfer `item`. */
enum { ID_TASK, ID_FROM, ID_TO };
typedef struct id_wait {
    size_t text;   /* the id, NUL-terminated, at reader.idtext + text */
    size_t item;
    int what;      /* ID_TASK, ID_FROM or ID_TO */
    long long end; /* offset just past its string, for a message */
    size_t len;    /* the id's length */
    const hs__strmap *index; /* the kernel names its look-up reads, or NULL */
    uint64_t hash; /* of the kernel's name, in index */
    hs_placement want; /* its task and part, once parsed */
} id_wait;

/* Ids wait in batches of this many: each look-up misses the cache some
 * five times at a million tasks (the name index's slot, entry and key,
 * then the placements' index), and a batch has those misses overlap. */
#define ID_BATCH 256

/* A placement by task and part, to find the one a transfer's id names. */
typedef struct part_key {
    size_t task;
    int nparts, part;
    long i;
} part_key;

typedef struct reader {
    hs_workload *w;
    hs_schedule *s;
    int depth;         /* 0: before the top object; 1: in it; 2: in tasks or transfers;
                          3: in one of their objects */
    object top, item;
    int list;          /* TOP_TASKS or TOP_TRANSFERS, from depth 2 */
    size_t count[2];   /* tasks and transfers read */
    hs_placement p;    /* the task being read */
    hs_transfer t;     /* the transfer being read */
    part_key *keys;    /* every placement, sorted, once the tasks are read; else NULL */
    size_t *task_off;  /* where each task's placements start in keys (graph.ntasks + 1) */
    pending_end *pending;
    size_t npending, pending_cap;
    char bad_key[208]; /* the key to refuse (object.key == -2), cut short */
    int bad_dup;       /* 1: it is a duplicate, 0: unknown */
    char *text;        /* the current string or number, NUL-terminated */
    size_t text_cap;
    id_wait wait[ID_BATCH]; /* the ids read and not yet looked up */
    int nwait;
    char *idtext;      /* their texts */
    size_t idtext_len, idtext_cap;
} reader;

static const char *type_name(enum hs__jtype t)
{
    switch (t) {
    case HS__J_MAP: return "an object";
    case HS__J_ARRAY: return "an array";
    case HS__J_STRING: return "a string";
    case HS__J_NUMBER: return "a number";
    case HS__J_BOOL: return "a boolean";
    default: return "null";
    }
}

/* The path of the item being read, with `key` (NULL: none) after it:
 * "tasks[3].device", "makespan_us", "transfers[0]". */
static const char *item_path(const reader *r, const char *key, char *buf, size_t size)
{
    if (r->depth <= 1)
        snprintf(buf, size, "%s", key ? key : "");
    else
        snprintf(buf, size, "%s[%zu]%s%s", top_keys[r->list], r->count[r->list == TOP_TRANSFERS],
                 key ? "." : "", key ? key : "");
    return buf;
}

/* Refuses the value `e` of the current key: "PATH.KEY: must be ...". */
static int bad_value(reader *r, hs__jstream *js, const hs__jevent *e, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int bad_value(reader *r, hs__jstream *js, const hs__jevent *e, const char *fmt, ...)
{
    const object *o = r->depth == 1 ? &r->top : &r->item;
    char path[256], what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return hs__jstream_error(js, hs__jstream_offset(js, e), item_path(r, o->keys[o->key], path,
                             sizeof path), "%s", what);
}

/* The text of a string or number, NUL-terminated in r->text; a string
 * holding a NUL byte (\u0000) is refused. */
static int take_text(reader *r, hs__jstream *js, const hs__jevent *e)
{
    if (e->len >= r->text_cap) {
        size_t cap = 2 * e->len + 64;
        char *grown = realloc(r->text, cap);
        if (!grown)
            return hs_error_set(hs__jstream_err(js), HS_ENOMEM, "out of memory");
        r->text = grown;
        r->text_cap = cap;
    }
    memcpy(r->text, e->text, e->len);
    r->text[e->len] = '\0';
    if (e->type == HS__J_STRING && memchr(e->text, '\0', e->len))
        return bad_value(r, js, e, "must not hold a NUL character (\\u0000)");
    return HS_OK;
}

static int want_string(reader *r, hs__jstream *js, const hs__jevent *e, int nullable)
{
    if (e->type == HS__J_STRING || (nullable && e->type == HS__J_NULL))
        return e->type == HS__J_NULL ? HS_OK : take_text(r, js, e);
    return bad_value(r, js, e, "must be a string%s, not %s", nullable ? " or null" : "",
                     type_name(e->type));
}

enum range { FINITE_NONNEG, FRACTION };

/* A number in range into *out. */
static int want_number(reader *r, hs__jstream *js, const hs__jevent *e, enum range range,
                       double *out)
{
    double x;
    int rc;
    if (e->type != HS__J_NUMBER)
        return bad_value(r, js, e, "must be a number, not %s", type_name(e->type));
    if ((rc = take_text(r, js, e)) != HS_OK)
        return rc;
    if (!hs__parse_decimal(r->text, &x))
        x = strtod(r->text, NULL);
    if (range == FINITE_NONNEG ? !(isfinite(x) && x >= 0) : !(x > 0 && x <= 1))
        return bad_value(r, js, e, "must be %s, not %.64s",
                         range == FINITE_NONNEG ? "a finite number >= 0" : "a number in (0, 1]",
                         r->text);
    *out = x;
    return HS_OK;
}

static int set_string(reader *r, hs__jstream *js, const hs__jevent *e, char **field)
{
    free(*field);
    *field = NULL;
    if (e->type == HS__J_STRING && !(*field = strdup(r->text)))
        return hs_error_set(hs__jstream_err(js), HS_ENOMEM, "out of memory");
    return HS_OK;
}

/* The device the current string names (host_ok: or "host"). */
static int want_device(reader *r, hs__jstream *js, const hs__jevent *e, int host_ok, int *out)
{
    int rc = want_string(r, js, e, 0);
    if (rc != HS_OK)
        return rc;
    if (host_ok && strcmp(r->text, "host") == 0) {
        *out = HS_HOST_DEVICE;
        return HS_OK;
    }
    if ((*out = hs_platform_find_device(&r->w->platform, r->text)) < 0)
        return bad_value(r, js, e, "no device '%.200s' in the workload%s", r->text,
                         host_ok ? " (nor 'host')" : "");
    return HS_OK;
}

static const char *const id_keys[] = {"id", "from_task", "to_task"};

/* Offset of the string of id `wt`, found only for a message. */
static long long id_offset(const hs__jstream *js, const id_wait *wt)
{
    return hs__jstream_start(js, &(hs__jevent){.type = HS__J_STRING, .len = wt->len}, wt->end);
}

/* The task (and part) id `wt` names into wt->want; the message, when
 * there is none, says when the schedule is of another workload file. */
static int parse_id(reader *r, hs__jstream *js, id_wait *wt)
{
    const char *sw = r->s->workload, *ww = r->w->path, *id = r->idtext + wt->text;
    hs_placement *p = &wt->want;
    hs_error perr; /* filled on failure only: not zeroed (1.3 KB) for every id */
    char path[256];
    if (hs_task_parse_id(r->w, id, &p->task, &p->part, &p->nparts, &perr) == HS_OK)
        return HS_OK;
    if (perr.code != HS_EINPUT)
        return hs_error_set(hs__jstream_err(js), perr.code, "%s", perr.msg);
    snprintf(path, sizeof path, "%s[%zu].%s", wt->what == ID_TASK ? "tasks" : "transfers",
             wt->item, id_keys[wt->what]);
    if (sw && ww && !hs__same_file(sw, ww))
        return hs__jstream_error(js, id_offset(js, wt), path,
                                 "%s (the schedule is of workload %.300s, not %.300s)", perr.msg,
                                 sw, ww);
    return hs__jstream_error(js, id_offset(js, wt), path, "%s", perr.msg);
}

static int by_part_key(const void *a, const void *b)
{
    const part_key *x = a, *y = b;
    if (x->task != y->task)
        return x->task < y->task ? -1 : 1;
    if (x->nparts != y->nparts)
        return x->nparts < y->nparts ? -1 : 1;
    if (x->part != y->part)
        return x->part < y->part ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* Sorts every placement into r->keys by task (a counting sort: r->task_off[t]
 * is where task t's placements start), each task's by part, once the tasks
 * are read. */
static int index_placements(reader *r, hs__jstream *js)
{
    size_t n = r->s->nplacements, ntasks = r->w->graph.ntasks, *next;
    r->keys = malloc((n ? n : 1) * sizeof *r->keys);
    r->task_off = calloc(ntasks + 1, sizeof *r->task_off);
    next = malloc((ntasks + 1) * sizeof *next);
    if (!r->keys || !r->task_off || !next) {
        free(next);
        return hs_error_set(hs__jstream_err(js), HS_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++) /* the reader took only tasks of the graph */
        r->task_off[r->s->placements[i].task + 1]++;
    for (size_t t = 0; t < ntasks; t++)
        r->task_off[t + 1] += r->task_off[t];
    memcpy(next, r->task_off, (ntasks + 1) * sizeof *next);
    for (size_t i = 0; i < n; i++) {
        const hs_placement *p = &r->s->placements[i];
        r->keys[next[p->task]++] =
            (part_key){.task = p->task, .nparts = p->nparts, .part = p->part, .i = (long)i};
    }
    for (size_t t = 0; t < ntasks; t++) /* a task in parts, or placed more than once */
        if (r->task_off[t + 1] - r->task_off[t] > 1)
            qsort(r->keys + r->task_off[t], r->task_off[t + 1] - r->task_off[t],
                  sizeof *r->keys, by_part_key);
    free(next);
    return HS_OK;
}

/* The first placement of want's task and part (the validator complains
 * about duplicates), by binary search among the task's in r->keys; -1 when
 * there is none. */
static long find_placement(const reader *r, const hs_placement *want)
{
    part_key key = {.task = want->task, .nparts = want->nparts, .part = want->part, .i = -1};
    size_t lo = r->task_off[want->task], hi = r->task_off[want->task + 1], end = hi;
    while (lo < hi) { /* the first key not below `key` (i = -1 sorts first) */
        size_t mid = lo + (hi - lo) / 2;
        if (by_part_key(&r->keys[mid], &key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < end && r->keys[lo].nparts == key.nparts && r->keys[lo].part == key.part)
        return r->keys[lo].i;
    return -1;
}

/* Refuses a transfer's end at `at`: no placement of task `id`. */
static int not_placed(hs__jstream *js, long long at, const char *path, const char *id)
{
    return hs__jstream_error(js, at, path, "task '%.200s' is not in this schedule's tasks", id);
}

static int pending_end_add(reader *r, hs__jstream *js, const id_wait *wt)
{
    if (r->npending == r->pending_cap) {
        size_t cap = r->pending_cap ? 2 * r->pending_cap : 64;
        pending_end *grown = realloc(r->pending, cap * sizeof *grown);
        if (!grown)
            return hs_error_set(hs__jstream_err(js), HS_ENOMEM, "out of memory");
        r->pending = grown;
        r->pending_cap = cap;
    }
    r->pending[r->npending++] = (pending_end){
        .transfer = wt->item, .to = wt->what == ID_TO, .want = wt->want, .at = id_offset(js, wt)};
    return HS_OK;
}

/* Looks up the ids that wait, in document order as far as what each finds
 * goes (the first that names no task, or no placement, is the error), in
 * stages over the whole batch, each loading what the next reads: the name
 * index's slots, entries and keys, the placements' index for a transfer's
 * end.  A transfer's end found before the tasks are read waits for them in
 * r->pending. */
static int resolve_ids(reader *r, hs__jstream *js)
{
    int n = r->nwait, bad = n, rc = HS_OK;
    r->nwait = 0;
    r->idtext_len = 0;
    for (int j = 0; j < n; j++) {
        id_wait *wt = &r->wait[j];
        const char *kernel;
        if ((wt->index = hs__task_id_kernel(r->w, r->idtext + wt->text, &kernel))) {
            wt->hash = hs__strmap_hash(kernel);
            hs__strmap_prefetch_stage(wt->index, wt->hash, 1);
        }
    }
    for (int stage = 2; stage <= 3; stage++)
        for (int j = 0; j < n; j++)
            if (r->wait[j].index)
                hs__strmap_prefetch_stage(r->wait[j].index, r->wait[j].hash, stage);
    for (int j = 0; j < n; j++) { /* parsed, up to the first that names no task */
        id_wait *wt = &r->wait[j];
        if ((rc = parse_id(r, js, wt)) != HS_OK) {
            bad = j;
            break;
        }
        if (wt->what != ID_TASK && r->keys)
            __builtin_prefetch(&r->task_off[wt->want.task]);
    }
    for (int j = 0; j < bad; j++)
        if (r->wait[j].what != ID_TASK && r->keys)
            __builtin_prefetch(&r->keys[r->task_off[r->wait[j].want.task]]);
    for (int j = 0; j < bad; j++) {
        id_wait *wt = &r->wait[j];
        /* the item, or the one being read (not added yet) */
        hs_transfer *t = wt->item < r->s->ntransfers ? &r->s->transfers[wt->item] : &r->t;
        long i;
        char path[64];
        if (wt->what == ID_TASK) {
            hs_placement *p = wt->item < r->s->nplacements ? &r->s->placements[wt->item] : &r->p;
            p->task = wt->want.task;
            p->part = wt->want.part;
            p->nparts = wt->want.nparts;
            continue;
        }
        if (!r->keys) {
            int added = pending_end_add(r, js, wt);
            if (added != HS_OK)
                return added;
            continue;
        }
        if ((i = find_placement(r, &wt->want)) < 0) {
            snprintf(path, sizeof path, "transfers[%zu].%s", wt->item, id_keys[wt->what]);
            return not_placed(js, id_offset(js, wt), path, r->idtext + wt->text);
        }
        *(wt->what == ID_TO ? &t->to_placement : &t->from_placement) = i;
    }
    return rc;
}

/* The current string, an id of item `item`, waits for its batch. */
static int wait_id(reader *r, hs__jstream *js, int what, size_t item)
{
    size_t len = strlen(r->text) + 1;
    if (r->idtext_len + len > r->idtext_cap) {
        size_t cap = 2 * (r->idtext_len + len) + 4096;
        char *grown = realloc(r->idtext, cap);
        if (!grown)
            return hs_error_set(hs__jstream_err(js), HS_ENOMEM, "out of memory");
        r->idtext = grown;
        r->idtext_cap = cap;
    }
    memcpy(r->idtext + r->idtext_len, r->text, len);
    r->wait[r->nwait++] = (id_wait){.text = r->idtext_len, .item = item, .what = what,
                                    .end = hs__jstream_end(js), .len = len - 1};
    r->idtext_len += len;
    return HS_OK;
}

/* A transfer's end: null, or a task id, looked up with its batch. */
static int want_end(reader *r, hs__jstream *js, const hs__jevent *e, int what, long *out)
{
    int rc;
    *out = HS_NONE;
    if ((rc = want_string(r, js, e, 1)) != HS_OK || e->type == HS__J_NULL)
        return rc;
    return wait_id(r, js, what, r->count[1]);
}

/* The value of a top-level key. */
static int top_value(reader *r, hs__jstream *js, const hs__jevent *e)
{
    int rc;
    switch (r->top.key) {
    case TOP_WORKLOAD:
    case TOP_ALGORITHM:
        if ((rc = want_string(r, js, e, 1)) != HS_OK)
            return rc;
        return set_string(r, js, e, r->top.key == TOP_WORKLOAD ? &r->s->workload : &r->s->algorithm);
    case TOP_MODEL:
        if ((rc = want_string(r, js, e, 0)) != HS_OK)
            return rc;
        return set_string(r, js, e, &r->s->model);
    case TOP_MAKESPAN: return want_number(r, js, e, FINITE_NONNEG, &r->s->makespan_us);
    default:
        if (e->type != HS__J_ARRAY)
            return bad_value(r, js, e, "must be an array, not %s", type_name(e->type));
        r->list = r->top.key;
        r->depth = 2;
        return HS_OK;
    }
}

/* The value of a key of a task or transfer. */
static int item_value(reader *r, hs__jstream *js, const hs__jevent *e)
{
    hs_placement *p = &r->p;
    hs_transfer *t = &r->t;
    int rc;
    if (r->list == TOP_TASKS) {
        switch (r->item.key) {
        case TASK_ID:
            if ((rc = want_string(r, js, e, 0)) != HS_OK)
                return rc;
            return wait_id(r, js, ID_TASK, r->count[0]);
        case TASK_DEVICE: return want_device(r, js, e, 0, &p->device);
        case TASK_START: return want_number(r, js, e, FINITE_NONNEG, &p->start_us);
        case TASK_END: return want_number(r, js, e, FINITE_NONNEG, &p->end_us);
        default: return want_number(r, js, e, FRACTION, &p->fraction);
        }
    }
    switch (r->item.key) {
    case XFER_FROM_TASK: return want_end(r, js, e, ID_FROM, &t->from_placement);
    case XFER_TO_TASK: return want_end(r, js, e, ID_TO, &t->to_placement);
    case XFER_FROM_DEVICE: return want_device(r, js, e, 1, &t->from_device);
    case XFER_TO_DEVICE: return want_device(r, js, e, 1, &t->to_device);
    case XFER_BYTES: return want_number(r, js, e, FINITE_NONNEG, &t->bytes);
    case XFER_START: return want_number(r, js, e, FINITE_NONNEG, &t->start_us);
    default: return want_number(r, js, e, FINITE_NONNEG, &t->end_us);
    }
}

static int key_is(const char *key, const hs__jevent *e)
{
    return strlen(key) == e->len && memcmp(key, e->text, e->len) == 0;
}

/* A key of object o: known and new, else refused at its value.  The key
 * after the last found is tried first: the order map --json writes matches
 * there (the keys are distinct, so the order they are tried in changes
 * nothing else). */
static void take_key(reader *r, object *o, const hs__jevent *e)
{
    int k = o->keys[o->next] ? o->next : 0;
    if (!key_is(o->keys[k], e))
        for (k = 0; o->keys[k] && !key_is(o->keys[k], e); k++)
            ;
    if (o->keys[k]) {
        r->bad_dup = (o->seen >> k) & 1;
        o->seen |= 1u << k;
        o->next = k + 1;
        o->key = r->bad_dup ? -2 : k;
        if (r->bad_dup)
            snprintf(r->bad_key, sizeof r->bad_key, "%s", o->keys[k]);
        return;
    }
    snprintf(r->bad_key, sizeof r->bad_key, "%.*s",
             (int)(e->len < sizeof r->bad_key ? e->len : sizeof r->bad_key - 1), e->text);
    r->bad_dup = 0;
    o->key = -2;
}

/* o's keys, "id, device, ...", for messages. */
static const char *key_list(const object *o, char *list, size_t size)
{
    list[0] = '\0';
    for (int k = 0; o->keys[k]; k++)
        snprintf(list + strlen(list), size - strlen(list), "%s%s", k ? ", " : "", o->keys[k]);
    return list;
}

/* Refuses the key r->bad_key of o at its value e. */
static int bad_key(reader *r, hs__jstream *js, const object *o, const hs__jevent *e)
{
    char list[256], path[512];
    item_path(r, r->bad_key, path, sizeof path);
    if (r->bad_dup)
        return hs__jstream_error(js, hs__jstream_offset(js, e), path,
                                 "duplicate key (a key is given once)");
    return hs__jstream_error(js, hs__jstream_offset(js, e), path, "unknown key (%s has %s)",
                             o->what, key_list(o, list, sizeof list));
}

/* The end of object o: every key there. */
static int all_keys(reader *r, hs__jstream *js, const object *o)
{
    char list[256], path[256];
    int missing = -1;
    for (int k = 0; o->keys[k] && missing < 0; k++)
        if (!((o->seen >> k) & 1))
            missing = k;
    if (missing < 0)
        return HS_OK;
    return hs__jstream_error(js, o->at, item_path(r, NULL, path, sizeof path),
                             "missing key '%s' (%s has %s)", o->keys[missing], o->what,
                             key_list(o, list, sizeof list));
}

/* The end of a task's or transfer's object. */
static int item_end(reader *r, hs__jstream *js)
{
    int rc = all_keys(r, js, &r->item);
    hs_error *err = hs__jstream_err(js);
    if (rc != HS_OK)
        return rc;
    if (r->list == TOP_TASKS ? hs_schedule_add_placement(r->s, &r->p, err) < 0
                             : hs_schedule_add_transfer(r->s, &r->t, err) < 0)
        return HS_ENOMEM;
    r->count[r->list == TOP_TRANSFERS]++;
    r->depth = 2;
    /* room for the next item's ids (two at most) */
    return r->nwait > ID_BATCH - 2 ? resolve_ids(r, js) : HS_OK;
}

static int read_event(reader *r, hs__jstream *js, const hs__jevent *e)
{
    object *o = r->depth == 1 ? &r->top : &r->item;
    int rc;
    switch (r->depth) {
    case 0:
        if (e->type != HS__J_MAP)
            return hs__jstream_error(js, hs__jstream_offset(js, e), "",
                                     "a schedule is a JSON object, not %s", type_name(e->type));
        r->top = (object){.keys = top_keys, .what = "the top level", .key = -1,
                          .at = hs__jstream_offset(js, e)};
        r->depth = 1;
        return HS_OK;
    case 2:
        if (e->type == HS__J_ARRAY_END) {
            r->depth = 1;
            if ((rc = resolve_ids(r, js)) != HS_OK)
                return rc;
            return r->list == TOP_TASKS ? index_placements(r, js) : HS_OK;
        }
        if (e->type != HS__J_MAP) {
            char path[64];
            return hs__jstream_error(js, hs__jstream_offset(js, e),
                                     item_path(r, NULL, path, sizeof path),
                                     "must be an object (%s), not %s",
                                     r->list == TOP_TASKS ? "a task" : "a transfer",
                                     type_name(e->type));
        }
        r->item = (object){.keys = r->list == TOP_TASKS ? task_keys : transfer_keys,
                           .what = r->list == TOP_TASKS ? "a task" : "a transfer", .key = -1,
                           .at = hs__jstream_offset(js, e)};
        r->p = (hs_placement){0};
        r->t = (hs_transfer){0};
        r->depth = 3;
        return HS_OK;
    default:
        break;
    }
    if (e->type == HS__J_KEY) {
        take_key(r, o, e);
        return HS_OK;
    }
    if (e->type == HS__J_MAP_END)
        return r->depth == 3 ? item_end(r, js) : all_keys(r, js, o);
    if (o->key == -2)
        return bad_key(r, js, o, e);
    rc = r->depth == 1 ? top_value(r, js, e) : item_value(r, js, e);
    o->key = -1;
    return rc;
}

/* An event; an error in it comes after those of the ids before it. */
static int on_event(void *ctx, hs__jstream *js, const hs__jevent *e)
{
    reader *r = ctx;
    int rc = read_event(r, js, e), first;
    if (rc != HS_OK && r->nwait > 0 && (first = resolve_ids(r, js)) != HS_OK)
        return first;
    return rc;
}

static int on_pause(void *ctx, hs__jstream *js)
{
    return resolve_ids(ctx, js);
}

/* Once the text is read: the transfers' ends that came before the tasks. */
static int on_finish(void *ctx, hs__jstream *js)
{
    reader *r = ctx;
    for (size_t k = 0; k < r->npending; k++) {
        const pending_end *pe = &r->pending[k];
        hs_transfer *t = &r->s->transfers[pe->transfer];
        long i = find_placement(r, &pe->want);
        char path[64], id[256];
        if (i < 0) {
            snprintf(path, sizeof path, "transfers[%zu].%s", pe->transfer,
                     pe->to ? "to_task" : "from_task");
            hs__placement_id(r->w, &pe->want, id, sizeof id);
            return not_placed(js, pe->at, path, id);
        }
        *(pe->to ? &t->to_placement : &t->from_placement) = i;
    }
    return HS_OK;
}

/* Reads the schedule at `path` or in `data` (path NULL) into a new
 * schedule of w's tasks. */
static int read_schedule(hs_workload *w, const char *path, const char *name, const char *data,
                         size_t len, hs_schedule **out, hs_error *err)
{
    reader r = {.w = w};
    hs__jhandler h = {.event = on_event, .finish = on_finish, .pause = on_pause, .ctx = &r};
    int rc;
    if (!w->finalized)
        return hs_error_set(err, HS_EUSAGE, "the workload is not finalized");
    if (!(r.s = hs_schedule_new(NULL, NULL)))
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    rc = path ? hs__jstream_read_file(path, &h, err)
              : hs__jstream_read_buffer(name, data, len, &h, err);
    free(r.keys);
    free(r.task_off);
    free(r.pending);
    free(r.text);
    free(r.idtext);
    if (rc != HS_OK) {
        hs_schedule_free(r.s);
        return rc;
    }
    *out = r.s;
    return HS_OK;
}

int hs_schedule_read_json(hs_workload *w, const char *path, hs_schedule **out, hs_error *err)
{
    return read_schedule(w, path, NULL, NULL, 0, out, err);
}

int hs_schedule_read_json_buffer(hs_workload *w, const char *name, const char *data, size_t len,
                                 hs_schedule **out, hs_error *err)
{
    return read_schedule(w, NULL, name, data, len, out, err);
}
