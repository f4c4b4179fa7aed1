/* hetsched — schedules as the JSON of DESIGN.md §4, with jansson
 * (include/hetsched/schedule.h).
 *
 * Writing streams one task or transfer per line (each line dumped by
 * jansson), so that a schedule of a million tasks needs no JSON tree in
 * memory and stays readable.  Numbers round-trip exactly: each line is dumped
 * with the fewest digits (15, 16 or 17) that give back every double on it,
 * and byte counts that are whole numbers are written as integers.
 *
 * Reading is strict: every key known and present, every value of the right
 * type and range, every task id and device known to the workload.  Errors
 * read `FILE:LINE:COL: error: PATH: WHAT` with the JSON path of the bad item,
 * or `FILE:LINE:COL: error: WHAT` for JSON syntax (graph/json_read.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "hetsched/schedule.h"
#include "graph/json_read.h"
#include "graph/numfmt.h"
#include "graph/output.h"
#include "graph/schedule_int.h"

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

/* The precision jansson's line gets (line_flags): the least of 15, 16, 17
 * at which every number reads back; 0 when hs__format_g cannot tell for
 * one.  +0 reads back at any precision. */
static int fl_precision(const double *x, int n)
{
    int prec = 15;
    for (int i = 0; i < n; i++) {
        char text[32];
        int back = 0;
        if (x[i] == 0 && !signbit(x[i]))
            continue;
        while (hs__format_g(x[i], prec, text, &back) > 0 && !back && prec < 17)
            prec++;
        if (!back)
            return 0;
    }
    return prec;
}

/* x as jansson writes it at `prec` (fl_precision's): %.{prec}g, and ".0"
 * after a whole number. */
static void fl_real(fastline *l, double x, int prec)
{
    char text[32];
    int back, n = x == 0 ? 0 : hs__format_g(x, prec, text, &back);
    if (x == 0) {
        FL_LIT(l, "0.0");
        return;
    }
    fl_put(l, text, (size_t)n);
    if (!memchr(text, '.', (size_t)n))
        FL_LIT(l, ".0");
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
    fastline l = {.ok = 1};
    double nums[] = {p->start_us, p->end_us, p->fraction};
    int prec = fl_precision(nums, 3);
    const char *id = prec ? placement_id(w, p, ids) : NULL;
    if (!id)
        return 0;
    FL_LIT(&l, "    {\"id\": ");
    fl_string(&l, id);
    FL_LIT(&l, ", \"device\": ");
    fl_string(&l, w->platform.devices[p->device].name);
    FL_LIT(&l, ", \"start_us\": ");
    fl_real(&l, p->start_us, prec);
    FL_LIT(&l, ", \"end_us\": ");
    fl_real(&l, p->end_us, prec);
    FL_LIT(&l, ", \"fraction\": ");
    fl_real(&l, p->fraction, prec);
    FL_LIT(&l, "}");
    fl_put(&l, tail, strlen(tail));
    if (!l.ok)
        return 0;
    *rc = fwrite(l.text, 1, l.n, f) == l.n ? 0 : -1;
    return 1;
}

static const char *device_name(const hs_workload *w, int d);

static void fl_task_or_null(fastline *l, const hs_workload *w, const hs_schedule *s,
                            long placement, idbuf *ids)
{
    const char *id;
    if (placement == HS_NONE) {
        FL_LIT(l, "null");
    } else if ((id = placement_id(w, &s->placements[placement], ids)) != NULL) {
        fl_string(l, id);
    } else {
        l->ok = 0;
    }
}

/* The same for one transfer's line (transfer_line). */
static int fast_transfer_line(FILE *f, const hs_workload *w, const hs_schedule *s,
                              const hs_transfer *t, idbuf *ids, const char *tail, int *rc)
{
    fastline l = {.ok = 1};
    double nums[] = {t->start_us, t->end_us};
    int prec = fl_precision(nums, 2);
    if (!prec)
        return 0;
    FL_LIT(&l, "    {\"from_task\": ");
    fl_task_or_null(&l, w, s, t->from_placement, ids);
    FL_LIT(&l, ", \"to_task\": ");
    fl_task_or_null(&l, w, s, t->to_placement, ids);
    FL_LIT(&l, ", \"from_device\": ");
    fl_string(&l, device_name(w, t->from_device));
    FL_LIT(&l, ", \"to_device\": ");
    fl_string(&l, device_name(w, t->to_device));
    FL_LIT(&l, ", \"bytes\": ");
    fl_bytes(&l, t->bytes);
    FL_LIT(&l, ", \"start_us\": ");
    fl_real(&l, t->start_us, prec);
    FL_LIT(&l, ", \"end_us\": ");
    fl_real(&l, t->end_us, prec);
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

static int write_all(const hs_workload *w, const hs_schedule *s, FILE *f)
{
    idbuf ids = {.big = NULL};
    json_t *o = json_object();
    char *buf = NULL;
    size_t flags = 0, cap = 0;
    double m = s->makespan_us;
    int rc = 0;
    if (!o || fputs("{\n", f) < 0 ||
        head_line(f, "  \"workload\": ", string_or_null(s->workload), JSON_ENCODE_ANY, &buf,
                  &cap) ||
        head_line(f, "  \"algorithm\": ", string_or_null(s->algorithm), JSON_ENCODE_ANY, &buf,
                  &cap) ||
        head_line(f, "  \"model\": ", string_or_null(s->model), JSON_ENCODE_ANY, &buf, &cap) ||
        head_line(f, "  \"makespan_us\": ", json_real(m), line_flags(&m, 1), &buf, &cap) ||
        fputs(s->nplacements ? "  \"tasks\": [\n" : "  \"tasks\": [],\n", f) < 0)
        rc = -1;
    for (size_t i = 0; i < s->nplacements && rc == 0; i++) {
        const char *tail = i + 1 < s->nplacements ? ",\n" : "\n  ],\n";
        if (!fast_task_line(f, w, &s->placements[i], &ids, tail, &rc) &&
            (rc = task_line(o, w, &s->placements[i], &ids, &flags)) == 0)
            rc = dump_line(f, "    ", o, flags, tail, &buf, &cap);
    }
    json_decref(o);
    if (rc == 0 && (!(o = json_object()) ||
                    fputs(s->ntransfers ? "  \"transfers\": [\n" : "  \"transfers\": []\n", f) < 0))
        rc = -1;
    for (size_t k = 0; k < s->ntransfers && rc == 0; k++) {
        const char *tail = k + 1 < s->ntransfers ? ",\n" : "\n  ]\n";
        if (!fast_transfer_line(f, w, s, &s->transfers[k], &ids, tail, &rc) &&
            (rc = transfer_line(o, w, s, &s->transfers[k], &ids, &flags)) == 0)
            rc = dump_line(f, "    ", o, flags, tail, &buf, &cap);
    }
    json_decref(o);
    free(ids.big);
    free(buf);
    if (rc == 0 && fputs("}\n", f) < 0)
        rc = -1;
    return rc;
}

/* Writes the JSON of DESIGN.md §4 to `path` (graph/output.h: "-" is
 * stdout).  HS_EUSAGE when s refers to tasks or devices w does not have,
 * HS_EIO when the file cannot be written. */
int hs_schedule_write_json(const hs_workload *w, const hs_schedule *s, const char *path,
                           hs_error *err)
{
    hs__output o;
    int rc;
    if ((rc = check_refs(w, s, err)) != 0 || (rc = hs__output_open(&o, path, err)) != 0)
        return rc;
    rc = write_all(w, s, o.f) == 0 ? HS_OK : hs__output_error(&o, err);
    return hs__output_close(&o, rc, err);
}

/* ----------------------------------------------------------------- reading */

typedef struct reader {
    const hs__json_doc *doc; /* the text, for located messages */
    hs_workload *w;
    hs_schedule *s;
    hs_error *err;
} reader;

#define PATH_MAX_LEN 256

static int get_device(reader *r, const json_t *obj, const char *key, const char *path, int host_ok,
                      int *out)
{
    const char *name;
    char sub[PATH_MAX_LEN];
    int rc = hs__json_string(r->doc, r->err, obj, key, path, 0, &name);
    if (rc != HS_OK)
        return rc;
    if (host_ok && strcmp(name, "host") == 0) {
        *out = HS_HOST_DEVICE;
        return HS_OK;
    }
    if ((*out = hs_platform_find_device(&r->w->platform, name)) < 0) {
        snprintf(sub, sizeof sub, "%s.%s", path, key);
        return hs__json_error(r->doc, r->err, sub, "no device '%.200s' in the workload%s", name,
                              host_ok ? " (nor 'host')" : "");
    }
    return HS_OK;
}

static const char *const top_keys[] = {"workload", "algorithm", "model", "makespan_us",
                                       "tasks",    "transfers", NULL};
static const char *const task_keys[] = {"id", "device", "start_us", "end_us", "fraction", NULL};
static const char *const transfer_keys[] = {"from_task", "to_task",  "from_device", "to_device",
                                            "bytes",     "start_us", "end_us",      NULL};

/* The task (and part) an id names, located at `path` when there is none;
 * the message then says when the schedule is of another workload file. */
static int parse_id(reader *r, const char *id, const char *path, size_t *task, int *part,
                    int *nparts)
{
    const char *sw = r->s->workload, *ww = r->w->path;
    hs_error perr = {0};
    if (hs_task_parse_id(r->w, id, task, part, nparts, &perr) == HS_OK)
        return HS_OK;
    if (perr.code != HS_EINPUT)
        return hs_error_set(r->err, perr.code, "%s", perr.msg);
    if (sw && ww && !hs__same_file(sw, ww))
        return hs__json_error(r->doc, r->err, path, "%s (the schedule is of workload %.300s, "
                              "not %.300s)", perr.msg, sw, ww);
    return hs__json_error(r->doc, r->err, path, "%s", perr.msg);
}

static int read_task(reader *r, const json_t *v, size_t i)
{
    hs_placement p = {0};
    const char *id;
    char path[64], sub[72];
    int rc;
    snprintf(path, sizeof path, "tasks[%zu]", i);
    snprintf(sub, sizeof sub, "%s.id", path);
    if ((rc = hs__json_keys(r->doc, r->err, v, path, task_keys, "a task")) != HS_OK ||
        (rc = hs__json_string(r->doc, r->err, v, "id", path, 0, &id)) != HS_OK ||
        (rc = parse_id(r, id, sub, &p.task, &p.part, &p.nparts)) != HS_OK ||
        (rc = get_device(r, v, "device", path, 0, &p.device)) != HS_OK ||
        (rc = hs__json_number(r->doc, r->err, v, "start_us", path, HS__JSON_NONNEG,
                              &p.start_us)) != HS_OK ||
        (rc = hs__json_number(r->doc, r->err, v, "end_us", path, HS__JSON_NONNEG,
                              &p.end_us)) != HS_OK ||
        (rc = hs__json_number(r->doc, r->err, v, "fraction", path, HS__JSON_FRACTION,
                              &p.fraction)) != HS_OK)
        return rc;
    return hs_schedule_add_placement(r->s, &p, r->err) < 0 ? HS_ENOMEM : HS_OK;
}

/* A placement by task and part, to find the one a transfer's id names. */
typedef struct part_key {
    size_t task;
    int nparts, part;
    long i;
} part_key;

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

/* The placement a transfer's task id names: the first placement of that
 * task with the same part (the validator complains about duplicates),
 * found by binary search in `keys` (every placement, sorted by part_key). */
static int find_placement(reader *r, const part_key *keys, const json_t *v, const char *key,
                          const char *path, long *out)
{
    const char *id;
    part_key want = {.i = -1};
    size_t lo = 0, hi = r->s->nplacements;
    char sub[72];
    int rc = hs__json_string(r->doc, r->err, v, key, path, 1, &id);
    if (rc != HS_OK)
        return rc;
    *out = HS_NONE;
    if (!id)
        return HS_OK;
    snprintf(sub, sizeof sub, "%s.%s", path, key);
    if ((rc = parse_id(r, id, sub, &want.task, &want.part, &want.nparts)) != HS_OK)
        return rc;
    while (lo < hi) { /* the first key not below `want` (i = -1 sorts first) */
        size_t mid = lo + (hi - lo) / 2;
        if (by_part_key(&keys[mid], &want) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < r->s->nplacements && keys[lo].task == want.task &&
        keys[lo].nparts == want.nparts && keys[lo].part == want.part) {
        *out = keys[lo].i;
        return HS_OK;
    }
    return hs__json_error(r->doc, r->err, sub, "task '%.200s' is not in this schedule's tasks",
                          id);
}

static int read_transfer(reader *r, const part_key *keys, const json_t *v, size_t k)
{
    hs_transfer t = {0};
    char path[64];
    int rc;
    snprintf(path, sizeof path, "transfers[%zu]", k);
    if ((rc = hs__json_keys(r->doc, r->err, v, path, transfer_keys, "a transfer")) != HS_OK ||
        (rc = find_placement(r, keys, v, "from_task", path, &t.from_placement)) != HS_OK ||
        (rc = find_placement(r, keys, v, "to_task", path, &t.to_placement)) != HS_OK ||
        (rc = get_device(r, v, "from_device", path, 1, &t.from_device)) != HS_OK ||
        (rc = get_device(r, v, "to_device", path, 1, &t.to_device)) != HS_OK ||
        (rc = hs__json_number(r->doc, r->err, v, "bytes", path, HS__JSON_NONNEG, &t.bytes)) !=
            HS_OK ||
        (rc = hs__json_number(r->doc, r->err, v, "start_us", path, HS__JSON_NONNEG,
                              &t.start_us)) != HS_OK ||
        (rc = hs__json_number(r->doc, r->err, v, "end_us", path, HS__JSON_NONNEG, &t.end_us)) !=
            HS_OK)
        return rc;
    return hs_schedule_add_transfer(r->s, &t, r->err) < 0 ? HS_ENOMEM : HS_OK;
}

static int set_string(reader *r, char **field, const char *value)
{
    free(*field);
    *field = NULL;
    if (value && !(*field = strdup(value)))
        return hs_error_set(r->err, HS_ENOMEM, "out of memory");
    return HS_OK;
}

/* Fills r->s from the parsed document. */
static int read_doc(reader *r, const json_t *root)
{
    const json_t *tasks, *transfers;
    const char *workload, *algorithm, *model;
    part_key *keys;
    int rc;
    if (!json_is_object(root))
        return hs__json_error(r->doc, r->err, "", "a schedule is a JSON object, not %s",
                              hs__json_type_name(root));
    if ((rc = hs__json_keys(r->doc, r->err, root, "", top_keys, "the top level")) != HS_OK ||
        (rc = hs__json_string(r->doc, r->err, root, "workload", "", 1, &workload)) != HS_OK ||
        (rc = hs__json_string(r->doc, r->err, root, "algorithm", "", 1, &algorithm)) != HS_OK ||
        (rc = hs__json_string(r->doc, r->err, root, "model", "", 0, &model)) != HS_OK ||
        (rc = hs__json_number(r->doc, r->err, root, "makespan_us", "", HS__JSON_NONNEG,
                              &r->s->makespan_us)) != HS_OK ||
        (rc = hs__json_array(r->doc, r->err, root, "tasks", "", &tasks)) != HS_OK ||
        (rc = hs__json_array(r->doc, r->err, root, "transfers", "", &transfers)) != HS_OK)
        return rc;
    if ((rc = set_string(r, &r->s->workload, workload)) != HS_OK ||
        (rc = set_string(r, &r->s->algorithm, algorithm)) != HS_OK ||
        (rc = set_string(r, &r->s->model, model)) != HS_OK)
        return rc;
    for (size_t i = 0; i < json_array_size(tasks); i++)
        if ((rc = read_task(r, json_array_get(tasks, i), i)) != HS_OK)
            return rc;
    if (!(keys = malloc((r->s->nplacements ? r->s->nplacements : 1) * sizeof *keys)))
        return hs_error_set(r->err, HS_ENOMEM, "out of memory");
    for (size_t i = 0; i < r->s->nplacements; i++) {
        const hs_placement *p = &r->s->placements[i];
        keys[i] = (part_key){.task = p->task, .nparts = p->nparts, .part = p->part, .i = (long)i};
    }
    qsort(keys, r->s->nplacements, sizeof *keys, by_part_key);
    for (size_t k = 0; k < json_array_size(transfers) && rc == HS_OK; k++)
        rc = read_transfer(r, keys, json_array_get(transfers, k), k);
    free(keys);
    return rc;
}

/* Reads the parsed document into a new schedule of w's tasks. */
static int read_schedule(hs_workload *w, const hs__json_doc *doc, hs_schedule **out,
                         hs_error *err)
{
    reader r = {.doc = doc, .w = w, .err = err};
    int rc;
    if (!(r.s = hs_schedule_new(NULL, NULL)))
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    if ((rc = read_doc(&r, doc->root)) != HS_OK) {
        hs_schedule_free(r.s);
        return rc;
    }
    *out = r.s;
    return HS_OK;
}

int hs_schedule_read_json(hs_workload *w, const char *path, hs_schedule **out, hs_error *err)
{
    hs__json_doc doc;
    int rc;
    if (!w->finalized)
        return hs_error_set(err, HS_EUSAGE, "the workload is not finalized");
    if ((rc = hs__json_read_file(path, &doc, err)) != HS_OK)
        return rc;
    rc = read_schedule(w, &doc, out, err);
    hs__json_doc_free(&doc);
    return rc;
}

int hs_schedule_read_json_buffer(hs_workload *w, const char *name, const char *data, size_t len,
                                 hs_schedule **out, hs_error *err)
{
    hs__json_doc doc;
    int rc;
    if (!w->finalized)
        return hs_error_set(err, HS_EUSAGE, "the workload is not finalized");
    if ((rc = hs__json_read_buffer(name, data, len, &doc, err)) != HS_OK)
        return rc;
    rc = read_schedule(w, &doc, out, err);
    hs__json_doc_free(&doc);
    return rc;
}
