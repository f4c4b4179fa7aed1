/* hetsched — internal: the readers of workload formats
 * (include/hetsched/load.h).
 *
 * Each format is one file, graph/read_FORMAT.c, ending in one hs__reader;
 * graph/read.c holds the registry (the order `--format help` lists them)
 * and what every reader of a task-graph set shares: the platform copied
 * into the workload, the set's one cost per task turned into a cost per
 * device (speeds, Topcuoglu's beta), and the builder's messages put in the
 * reader's words and places.
 *
 * A set reader's read():
 *   - adds one or more applications with hs__set_app, kernels and edges with
 *     the builder of graph.h (names, numbers, bounds are checked there),
 *     each task's cost with hs__set_cost (one cost) or hs_kernel_set_cost
 *     (per device);
 *   - refuses what its format does not allow with hs__set_fail, and hands a
 *     builder's error to hs__set_failed with where it read the item;
 *   - sets s->where so that finalize's errors about a kernel or an edge
 *     (cycles, links missing for an edge, limits) name where it came from,
 *     and ends with hs__set_finalize while where() can still answer.
 */
#ifndef HS_GRAPH_READ_H
#define HS_GRAPH_READ_H

#include <stddef.h>

#include "hetsched/load.h"

/* A set's files, and platform files, are refused beyond this size; a YAML
 * workload's beyond it is read in one pass (graph/load.c). */
#define HS__MAX_FILE_BYTES (64u << 20)

/* Where an item was read: a line and column (from 1; 0: the format has
 * none for it) and its name in the reader's words ("task 3", "node 'a'",
 * "workflow.specification.tasks[2]"; "" for none). */
typedef struct hs__where {
    size_t line, col;
    char item[320];
} hs__where;

typedef struct hs__set hs__set;

typedef struct hs__reader {
    const char *name;        /* --format */
    const char *extensions;  /* space-separated, with their dots: ".yaml .yml" */
    const char *description; /* one line */
    /* Reads s->data into s->w (platform declared, no application yet);
     * returns HS_OK or the error, filled through hs__set_fail(ed).  NULL:
     * the format is YAML, whose loader (graph/load.c) reads a whole
     * workload. */
    int (*read)(hs__set *s);
} hs__reader;

struct hs__set {
    const char *name;        /* for messages: the file's path, or the buffer's name */
    const char *data;        /* the text, len bytes (not NUL-terminated) */
    size_t len;
    hs_workload *w;
    hs_error *err;
    /* Where kernel `index` (is_edge 0) or edge `index` (1) of application
     * `app` came from, or the application itself (index -1); may be NULL
     * (then finalize's errors keep the builder's item path). */
    void (*where)(const hs__set *s, int app, int is_edge, int index, hs__where *out);
    void *ctx;               /* the reader's, for where() */
    /* read.c's: per-device costs of single costs */
    double *speed;           /* [ndevices] */
    double beta;
    void *rng;               /* gsl_rng, when beta > 0 */
    size_t single_costs;     /* tasks given one cost */
    int derive;              /* speeds or beta were given, and must apply */
};

/* Adds an application named `name` (any text: what a name may not hold
 * becomes '_', cut to HS_NAME_MAX bytes; "" gives the file's base name
 * without extension) with `instances`; returns its index or the error. */
int hs__set_app(hs__set *s, const char *name, int instances);
/* Gives kernel k of application a its cost on every device from the set's
 * one cost `us` (load.h): the builder's bounds apply to each.  On error the
 * message names the item at `at`. */
int hs__set_cost(hs__set *s, int a, int k, double us, const hs__where *at);
/* Finalizes s->w, putting its errors where s->where says; refuses speeds
 * and beta (HS_EUSAGE) when no task had one cost to derive from. */
int hs__set_finalize(hs__set *s);
/* Bytes per microsecond of communication time: the platform's mean link
 * bandwidth (1000 bytes/us = 1 GB/s when it has no link). */
double hs__set_bytes_per_us(const hs__set *s);
/* Fills s->err with HS_EINPUT and "NAME:LINE:COL: error: ITEM: WHAT" (the
 * parts `at` has; `at` may be NULL); returns HS_EINPUT. */
int hs__set_fail(hs__set *s, const hs__where *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Puts the builder's error rc (in s->err, naming its item by a YAML path)
 * at `at`: "NAME:LINE:COL: error: ITEM[.FIELD]: WHAT", FIELD what the path
 * said past the kernel or edge (cost_us.gpu0, input_bytes).  Returns rc. */
int hs__set_failed(hs__set *s, int rc, const hs__where *at);
/* 1 with *out set when `text` is, whole, a finite number in decimal
 * (strtod's form without hexadecimal, inf or nan, which no set means); 0
 * otherwise. */
int hs__decimal(const char *text, double *out);

/* Sets w's cost and link providers from opt (both called with cost_ctx). */
void hs__set_providers(hs_workload *w, const hs_load_options *opt);

/* The environment variable `name` as a whole number from 1 to `limit`: 0
 * when it is not set, 1 with *out set when it is one, -1 when it is
 * anything else (a sign, a space, nothing, too large); the caller's message
 * quotes getenv(name).  The readers' caps and the task limit use it. */
int hs__env_whole(const char *name, unsigned long long limit, unsigned long long *out);
/* Copies at most `max` bytes of text[0..n) into buf (size bytes) for a
 * message: bytes that start no UTF-8 character become '?', "..." marks a
 * cut.  Returns buf. */
char *hs__quote(char *buf, size_t size, const char *text, size_t n, size_t max);

/* graph/load.c: the workload loader (a whole workload in YAML, or in its
 * JSON form with json 1; or with platform_only a platform file, in YAML),
 * and reading a file whole under HS__MAX_FILE_BYTES. */
int hs__yaml_load(const char *name, const char *data, size_t len, const hs_load_options *opt,
                  int json, int platform_only, hs_workload **out, hs_error *err);
int hs__read_file(const char *path, char **data, size_t *len, hs_error *err);
/* graph/read.c: refuses (HS_EUSAGE) the options of a set (a platform,
 * speeds, beta) for a YAML workload named `name`; HS_OK otherwise. */
int hs__yaml_options_check(const char *name, const hs_load_options *opt, hs_error *err);

extern const hs__reader hs__reader_stg;
extern const hs__reader hs__reader_wfformat;
extern const hs__reader hs__reader_dot;

#endif
