/* hetsched — the registry of workload formats and what the readers of
 * task-graph sets share (graph/read.h, include/hetsched/load.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "graph/read.h"
#include "graph/utf8.h"

/* YAML is read by graph/load.c: a whole workload, platform included. */
static const hs__reader reader_yaml = {
    .name = "yaml",
    .extensions = ".yaml .yml",
    .description = "a platform and applications of kernels (the README's workload format)",
    .read = NULL,
};

/* The same workload written as JSON, read by graph/load.c too.  Its
 * extension is WfFormat's: a `.json` file is a workload when its first key
 * is "platform" (see format_by_text). */
static const hs__reader reader_json = {
    .name = "json",
    .extensions = ".json",
    .description = "the workload format written as JSON, the platform first",
    .read = NULL,
};

/* The registry, in the order `--format help` lists the formats. */
static const hs__reader *const readers[] = {
    &reader_yaml,
    &reader_json,
    &hs__reader_stg,
    &hs__reader_wfformat,
    &hs__reader_dot,
    NULL,
};

static const hs__reader *find_reader(const char *format)
{
    for (size_t i = 0; readers[i]; i++)
        if (strcmp(readers[i]->name, format) == 0)
            return readers[i];
    return NULL;
}

const char *const *hs_workload_formats(void)
{
    static const char *names[sizeof readers / sizeof *readers];
    for (size_t i = 0; readers[i]; i++)
        names[i] = readers[i]->name;
    return names;
}

const char *hs_workload_format_describe(const char *format)
{
    static char text[8][160];
    for (size_t i = 0; readers[i] && i < 8; i++)
        if (strcmp(readers[i]->name, format) == 0) {
            snprintf(text[i], sizeof text[i], "%s (%s)", readers[i]->description,
                     readers[i]->extensions);
            return text[i];
        }
    return NULL;
}

int hs_workload_format_is_set(const char *format)
{
    const hs__reader *r = format ? find_reader(format) : NULL;
    return r ? r->read != NULL : -1;
}

/* Does `path` end with one of the space-separated extensions? */
static int has_extension(const char *path, const char *extensions)
{
    size_t n = strlen(path);
    for (const char *e = extensions; *e;) {
        size_t len = strcspn(e, " ");
        if (len > 0 && n > len && strncmp(path + n - len, e, len) == 0)
            return 1;
        e += len + (e[len] == ' ');
    }
    return 0;
}

/* JSON's white space. */
static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* The format of a file named `path` that starts with the `n` bytes at
 * `head` (head NULL: not known, the first format of its extension).  A
 * `.json` file whose first key is "platform" is a workload, any other a
 * WfFormat instance (whose keys come in no such order). */
static const char *format_by_text(const char *path, const char *head, size_t n)
{
    static const char key[] = "\"platform\"";
    size_t i = 0;
    for (size_t r = 0; path && readers[r]; r++) {
        if (!has_extension(path, readers[r]->extensions))
            continue;
        if (readers[r] != &reader_json || !head)
            return readers[r]->name;
        while (i < n && is_blank(head[i]))
            i++;
        if (i == n || head[i] != '{')
            return hs__reader_wfformat.name;
        for (i++; i < n && is_blank(head[i]);)
            i++;
        return n - i >= sizeof key - 1 && memcmp(head + i, key, sizeof key - 1) == 0
                   ? reader_json.name
                   : hs__reader_wfformat.name;
    }
    return NULL;
}

const char *hs_workload_format_of(const char *path)
{
    char head[256];
    size_t n = 0;
    FILE *f;
    const char *format = format_by_text(path, NULL, 0);
    if (!format || strcmp(format, reader_json.name) != 0)
        return format;
    if ((f = fopen(path, "rb"))) {
        n = fread(head, 1, sizeof head, f);
        fclose(f);
    }
    return format_by_text(path, head, n);
}

/* ---------------------------------------------------------------- speeds */

#define MIN_SPEED 1e-6
#define MAX_SPEED 1e6

/* Calls `each` for every KEY=S entry of a speeds string, after checking it;
 * returns HS_EUSAGE naming the first bad entry. */
static int each_speed(const char *speeds, hs_error *err,
                      int (*each)(void *ctx, const char *key, double speed, hs_error *err),
                      void *ctx)
{
    const char *p = speeds;
    for (;;) {
        size_t len = strcspn(p, ","), klen = strcspn(p, "=,");
        char key[HS_NAME_MAX + 1], num[64], shown[96];
        double v;
        int rc;
        hs__quote(shown, sizeof shown, p, len, 64);
        if (klen == 0 || klen >= len || klen > HS_NAME_MAX || len - klen - 1 >= sizeof num)
            return hs_error_set(err, HS_EUSAGE, "speed '%s': expected DEVICE=SPEED or "
                                "KIND=SPEED (e.g. gpu=4)", shown);
        memcpy(key, p, klen);
        key[klen] = '\0';
        memcpy(num, p + klen + 1, len - klen - 1);
        num[len - klen - 1] = '\0';
        if (!hs__decimal(num, &v) || !(v >= MIN_SPEED && v <= MAX_SPEED))
            return hs_error_set(err, HS_EUSAGE, "speed '%s': the speed must be a number from "
                                "%g to %g", shown, MIN_SPEED, MAX_SPEED);
        for (const char *q = speeds; q < p; q += strcspn(q, ",") + 1)
            if (strncmp(q, key, klen) == 0 && q[klen] == '=')
                return hs_error_set(err, HS_EUSAGE, "speed '%s': a second speed for '%s'",
                                    shown, key);
        if (each && (rc = each(ctx, key, v, err)) != HS_OK)
            return rc;
        if (!p[len])
            return HS_OK;
        p += len + 1;
    }
}

int hs_load_speeds_check(const char *speeds, hs_error *err)
{
    return speeds ? each_speed(speeds, err, NULL, NULL) : HS_OK;
}

/* Sets the speed of the devices `key` names: by name, else by kind; a
 * name's speed wins over its kind's whatever their order (speeds given by
 * name are applied after, see set_speeds). */
typedef struct speed_pass {
    hs__set *s;
    int by_name;
} speed_pass;

static int apply_speed(void *ctx, const char *key, double speed, hs_error *err)
{
    speed_pass *sp = ctx;
    const hs_platform *p = &sp->s->w->platform;
    int d = hs_platform_find_device(p, key), any = 0;
    if (sp->by_name) {
        if (d >= 0)
            sp->s->speed[d] = speed;
        return HS_OK;
    }
    if (d >= 0)
        return HS_OK;
    for (int i = 0; i < p->ndevices; i++)
        if (strcmp(hs_device_kind_name(p->devices[i].kind), key) == 0) {
            sp->s->speed[i] = speed;
            any = 1;
        }
    if (!any) {
        char devices[256];
        size_t n = 0;
        devices[0] = '\0';
        for (int i = 0; i < p->ndevices && n < sizeof devices; i++)
            n += (size_t)snprintf(devices + n, sizeof devices - n, "%s%s", i ? ", " : "",
                                  p->devices[i].name);
        return hs_error_set(err, HS_EUSAGE, "speed for '%s': the platform has no device or "
                            "kind '%s' (devices %s; kinds cpu, gpu)", key, key, devices);
    }
    return HS_OK;
}

static int set_speeds(hs__set *s, const char *speeds)
{
    speed_pass kinds = {s, 0}, names = {s, 1};
    int rc;
    for (int d = 0; d < s->w->platform.ndevices; d++)
        s->speed[d] = 1;
    if (!speeds)
        return HS_OK;
    if ((rc = each_speed(speeds, s->err, apply_speed, &kinds)) != HS_OK)
        return rc;
    return each_speed(speeds, s->err, apply_speed, &names);
}

int hs__decimal(const char *text, double *out)
{
    char *end;
    double x = strtod(text, &end);
    if (end == text || *end || strspn(text, "0123456789.eE+-") != strlen(text) || !isfinite(x))
        return 0;
    *out = x;
    return 1;
}

/* ------------------------------------------------------------- messages */

char *hs__quote(char *buf, size_t size, const char *text, size_t n, size_t max)
{
    char tmp[512];
    size_t take = n < max ? n : max;
    if (take >= sizeof tmp)
        take = sizeof tmp - 1;
    memcpy(tmp, text, take);
    tmp[take] = '\0';
    for (size_t i = 0; i < take; i++)
        if (!tmp[i])
            tmp[i] = '?';
    hs__utf8_copy(buf, size, tmp);
    if (take < n && strlen(buf) + 4 < size)
        strcat(buf, "...");
    return buf;
}

static int fail_v(hs__set *s, int code, const hs__where *at, const char *fmt, va_list ap)
{
    char what[HS_ERROR_MSG_MAX], where[48] = "";
    const char *item = at && at->item[0] ? at->item : NULL;
    vsnprintf(what, sizeof what, fmt, ap);
    if (at && at->line > 0)
        snprintf(where, sizeof where, ":%zu:%zu", at->line, at->col);
    hs_error_set(s->err, code, "%s%s: error: %s%s%s", s->name, where, item ? item : "",
                 item ? ": " : "", what);
    return code;
}

int hs__set_fail(hs__set *s, const hs__where *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_v(s, HS_EINPUT, at, fmt, ap);
    va_end(ap);
    return HS_EINPUT;
}

/* A message with code rc, in hs__set_fail's form. */
static int fail_code(hs__set *s, int rc, const hs__where *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail_code(hs__set *s, int rc, const hs__where *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_v(s, rc, at, fmt, ap);
    va_end(ap);
    return rc;
}

int hs__set_failed(hs__set *s, int rc, const hs__where *at)
{
    char text[HS_ERROR_MSG_MAX], field[256] = "";
    const char *path = s->err->path, *msg = s->err->msg, *tail = NULL;
    size_t plen = strlen(path);
    int n = 0;
    if (rc == HS_ENOMEM)
        return hs_error_set(s->err, HS_ENOMEM, "%s: out of memory", s->name);
    /* the builder's "PATH: TEXT": keep TEXT, and what PATH says past the
     * kernel or edge */
    if (plen > 0 && strncmp(msg, path, plen) == 0 && strncmp(msg + plen, ": ", 2) == 0)
        msg += plen + 2;
    if (sscanf(path, "applications[%*d].kernels[%*d]%n", &n) >= 0 && n > 0)
        tail = path + n;
    else if (n = 0, sscanf(path, "applications[%*d].edges[%*d]%n", &n) >= 0 && n > 0)
        tail = path + n;
    if (tail && *tail == '.')
        snprintf(field, sizeof field, "%s: ", tail + 1);
    snprintf(text, sizeof text, "%s%s", field, msg);
    return fail_code(s, rc, at, "%s", text);
}

/* Puts an error of finalize where the reader read its item. */
static int finalize_failed(hs__set *s, int rc)
{
    const char *path = s->err->path;
    hs__where at = {0};
    int a = -1, i = -1, n = 0;
    if (rc == HS_ENOMEM || !s->where || !path[0])
        return hs__set_failed(s, rc, NULL);
    if (sscanf(path, "applications[%d].kernels[%d]%n", &a, &i, &n) == 2 && n > 0)
        s->where(s, a, 0, i, &at);
    else if (n = 0, sscanf(path, "applications[%d].edges[%d]%n", &a, &i, &n) == 2 && n > 0)
        s->where(s, a, 1, i, &at);
    else if (sscanf(path, "applications[%d]", &a) == 1)
        s->where(s, a, 0, -1, &at);
    return hs__set_failed(s, rc, &at);
}

/* ------------------------------------------------------ shared by readers */

int hs__set_finalize(hs__set *s)
{
    int rc;
    if ((rc = hs_workload_finalize(s->w, s->err)) < 0)
        return finalize_failed(s, rc);
    if (s->derive && s->single_costs == 0)
        return fail_code(s, HS_EUSAGE, NULL, "speeds and beta derive the costs of tasks given "
                         "one cost, and every task here has its costs per device");
    return HS_OK;
}

int hs__set_app(hs__set *s, const char *name, int instances)
{
    char clean[HS_NAME_MAX + 1];
    const char *base = name;
    size_t n, out = 0;
    int a;
    if (!*name) { /* the file's base name without its extension */
        const char *slash = strrchr(s->name, '/'), *dot;
        base = slash ? slash + 1 : s->name;
        dot = strrchr(base, '.');
        n = dot && dot > base ? (size_t)(dot - base) : strlen(base);
    } else {
        n = strlen(name);
    }
    for (size_t i = 0; i < n && out < HS_NAME_MAX;) {
        unsigned cp;
        size_t len = hs__utf8_char(base + i, n - i, &cp);
        if (len == 0 || cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || strchr("#/[]\"", (int)cp)) {
            clean[out++] = '_';
            i += len ? len : 1;
        } else if (out + len <= HS_NAME_MAX) {
            memcpy(clean + out, base + i, len);
            out += len;
            i += len;
        } else {
            break;
        }
    }
    clean[out] = '\0';
    if ((a = hs_workload_add_app(s->w, out ? clean : "set", instances, s->err)) < 0)
        return hs__set_failed(s, a, NULL);
    return a;
}

int hs__set_cost(hs__set *s, int a, int k, double us, const hs__where *at)
{
    const hs_platform *p = &s->w->platform;
    s->single_costs++;
    if (!isfinite(us) || us < 0)
        return hs__set_fail(s, at, "the cost must be a finite number >= 0 us, not %g", us);
    if (us > HS_MAX_US)
        return hs__set_fail(s, at, "the cost must be at most %g us, not %g", HS_MAX_US, us);
    for (int d = 0; d < p->ndevices; d++) {
        double h = s->rng ? 1 + s->beta * (gsl_rng_uniform(s->rng) - 0.5) : 1;
        int rc = hs_kernel_set_cost(s->w, a, k, p->devices[d].name, us * h / s->speed[d],
                                    s->err);
        if (rc < 0)
            return hs__set_failed(s, rc, at);
    }
    return HS_OK;
}

double hs__set_bytes_per_us(const hs__set *s)
{
    const hs_platform *p = &s->w->platform;
    double sum = 0;
    int n = 0;
    for (int i = 0; i < p->nmemories * p->nmemories; i++)
        if (p->links[i].present && !p->links[i].route) {
            sum += p->links[i].bandwidth_gbps;
            n++;
        }
    return 1000 * (n ? sum / n : 1);
}

/* Reads a set with reader r into a finalized workload. */
static int read_set(hs__set *s, const hs__reader *r, const hs_load_options *opt)
{
    int rc;
    if (!opt || !opt->platform)
        return fail_code(s, HS_EUSAGE, NULL, "a %s file carries no platform: give one "
                         "(hs_load_options.platform)", r->name);
    if (!(opt->beta >= 0 && opt->beta < 2))
        return hs_error_set(s->err, HS_EUSAGE, "beta must be from 0 to less than 2, not %g",
                            opt->beta);
    if (opt->platform->ndevices == 0)
        return hs_error_set(s->err, HS_EUSAGE, "the platform has no device");
    if (!(s->w = hs_workload_new()))
        return hs_error_set(s->err, HS_ENOMEM, "%s: out of memory", s->name);
    hs__set_providers(s->w, opt);
    if ((rc = hs_platform_copy(s->w, opt->platform, s->err)) < 0)
        return rc;
    if (!(s->speed = malloc((size_t)opt->platform->ndevices * sizeof *s->speed)))
        return hs_error_set(s->err, HS_ENOMEM, "%s: out of memory", s->name);
    if ((rc = set_speeds(s, opt->speeds)) != HS_OK)
        return rc;
    s->beta = opt->beta;
    if (opt->beta > 0) {
        if (!(s->rng = gsl_rng_alloc(gsl_rng_mt19937)))
            return hs_error_set(s->err, HS_ENOMEM, "%s: out of memory", s->name);
        gsl_rng_set(s->rng, opt->beta_seed);
    }
    if (s->len > HS__MAX_FILE_BYTES)
        return hs__set_fail(s, NULL, "the file is larger than %u MiB", HS__MAX_FILE_BYTES >> 20);
    s->derive = (opt->speeds || opt->beta > 0) && !opt->suite;
    return r->read(s);
}

int hs__yaml_options_check(const char *name, const hs_load_options *opt, hs_error *err)
{
    if (opt && (opt->platform || opt->speeds || opt->beta != 0))
        return hs_error_set(err, HS_EUSAGE, "%s: a YAML workload has its own platform and costs "
                            "(a platform, speeds and beta are for task-graph sets)", name);
    return HS_OK;
}

int hs_workload_load_buffer_opts(const char *name, const char *data, size_t len,
                                 const hs_load_options *opt, hs_workload **out, hs_error *err)
{
    const char *format = opt && opt->format ? opt->format
                                            : format_by_text(name, data ? data : "", len);
    const hs__reader *r = find_reader(format ? format : "yaml");
    hs_error local = {0};
    hs__set s = {.name = name ? name : "<buffer>", .data = data ? data : "", .len = len,
                 .err = &local};
    int rc;
    if (out)
        *out = NULL;
    if (!out || (!data && len > 0))
        return hs_error_set(err, HS_EUSAGE, "hs_workload_load_buffer: no data or no output");
    if (!r)
        return hs_error_set(err, HS_EUSAGE, "no workload format '%s' (formats: yaml, json, "
                            "stg, wfformat, dot)", format);
    if (!r->read) {
        if ((rc = hs__yaml_options_check(s.name, opt, err)) != HS_OK)
            return rc;
        return hs__yaml_load(name, data, len, opt, r == &reader_json, 0, out, err);
    }
    rc = read_set(&s, r, opt);
    gsl_rng_free(s.rng);
    free(s.speed);
    if (rc != HS_OK) {
        hs_workload_free(s.w);
        if (err)
            *err = local;
        return rc;
    }
    *out = s.w;
    if (err)
        *err = (hs_error){0};
    return HS_OK;
}

void hs__set_providers(hs_workload *w, const hs_load_options *opt)
{
    hs_workload_set_cost_fn(w, opt->cost_fn, opt->cost_ctx);
    hs_workload_set_link_fn(w, opt->link_fn, opt->cost_ctx);
}
