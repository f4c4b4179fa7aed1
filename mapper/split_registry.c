/* hetsched — the splitter registry and the option table (hetsched/split.h).
 *
 * Each splitter is one file of mapper/ ending in `const hs_splitter
 * hs__split_NAME = {...}`; adding one means one extern line and one entry
 * below, in the order `hetsched split -p help` lists them. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mapper/split.h"

extern const hs_splitter hs__split_hdss;
extern const hs_splitter hs__split_boyer;
extern const hs_splitter hs__split_kass;
extern const hs_splitter hs__split_coretsar;
extern const hs_splitter hs__split_static;
extern const hs_splitter hs__split_ss;
extern const hs_splitter hs__split_fixed;
extern const hs_splitter hs__split_gss;
extern const hs_splitter hs__split_fss;
extern const hs_splitter hs__split_tss;
extern const hs_splitter hs__split_qilin;
extern const hs_splitter hs__split_tse_linear;
extern const hs_splitter hs__split_tse_exp;

static const hs_splitter *const splitters[] = {
    &hs__split_hdss,  &hs__split_boyer, &hs__split_kass,  &hs__split_coretsar,
    &hs__split_static, &hs__split_ss,   &hs__split_fixed, &hs__split_gss,
    &hs__split_fss,   &hs__split_tss,   &hs__split_qilin, &hs__split_tse_linear,
    &hs__split_tse_exp, NULL,
};

static pthread_once_t checked = PTHREAD_ONCE_INIT;

/* Two splitters with one name would make -p ambiguous: a build mistake,
 * stopped at the first use of the registry. */
static void check_unique(void)
{
    for (size_t i = 0; splitters[i]; i++)
        for (size_t j = 0; j < i; j++)
            if (strcmp(splitters[i]->name, splitters[j]->name) == 0) {
                fprintf(stderr, "hetsched: splitter '%s' is registered twice\n",
                        splitters[i]->name);
                abort();
            }
}

const hs_splitter *const *hs_splitter_list(void)
{
    pthread_once(&checked, check_unique);
    return splitters;
}

const hs_splitter *hs_splitter_find(const char *name)
{
    const hs_splitter *const *s = hs_splitter_list();
    if (!name)
        return NULL;
    for (; *s; s++)
        if (strcmp((*s)->name, name) == 0)
            return *s;
    return NULL;
}

void hs_splitter_help(FILE *out)
{
    const hs_splitter *const *s = hs_splitter_list();
    int width = 0;
    for (size_t i = 0; s[i]; i++)
        if ((int)strlen(s[i]->name) > width)
            width = (int)strlen(s[i]->name);
    fprintf(out, "splitters (* survives a dead device, + learns across runs):\n");
    for (size_t i = 0; s[i]; i++)
        fprintf(out, "  %-*s %c%c %s\n", width, s[i]->name,
                s[i]->flags & HS_SPLIT_SURVIVES_FAILURE ? '*' : ' ',
                s[i]->flags & HS_SPLIT_LEARNS ? '+' : ' ', s[i]->description);
}

/* ------------------------------------------------------------------ options */

typedef enum { OPT_SIZE, OPT_DOUBLE, OPT_INT, OPT_SCHEDULE, OPT_GRID } opt_type;

typedef struct opt_spec {
    const char *key;
    opt_type type;
    size_t offset;
    double min, max;
    const char *owners; /* the splitters that read it, each between spaces */
    const char *help;
} opt_spec;

#define O(field) offsetof(hs_split_options, field)
static const opt_spec specs[] = {
    {"chunk", OPT_SIZE, O(chunk), 1, 1e15, " fixed gss fss tss ", "fixed: chunk size; gss, fss, tss: smallest chunk"},
    {"initial_block", OPT_SIZE, O(initial_block), 1, 1e15, " hdss tse-linear tse-exp ",
     "hdss, tse-*: first block before rounding to the width (128)"},
    {"block_factor", OPT_SIZE, O(block_factor), 1, 1e15, " hdss tse-linear ",
     "hdss, tse-linear: block growth step (128)"},
    {"min_change_rate", OPT_DOUBLE, O(min_change_rate), 1e-12, 1, " hdss ",
     "hdss: relative weight change below which a weight is stable (0.01)"},
    {"adaptive_max", OPT_DOUBLE, O(adaptive_max), 1e-9, 1, " hdss ",
     "hdss: largest share of the items for the adaptive phase (0.2)"},
    {"beta", OPT_DOUBLE, O(beta), 1e-9, 1, " boyer ", "boyer: first chunk as a share of the items (0.07)"},
    {"delta", OPT_DOUBLE, O(delta), 1, 1e6, " boyer ", "boyer: growth of the first chunks (1.5)"},
    {"gamma", OPT_INT, O(gamma), 1, 1e6, " boyer ", "boyer: chunks every device finishes first (2)"},
    {"kass_delta", OPT_DOUBLE, O(kass_delta), 1e-12, 0.4, " kass ", "kass: Delta of eq. (7) (0.1)"},
    {"alpha", OPT_SIZE, O(alpha), 1, 1e15, " kass ", "kass: smallest chunk (2 T_cs / mu from hints)"},
    {"theta", OPT_INT, O(theta), 1, 1e6, " kass ", "kass: eq. (8) steal threshold (1)"},
    {"schedule", OPT_SCHEDULE, O(schedule), 0, 3, " coretsar ",
     "coretsar: static, adaptive, split or quick (split)"},
    {"div", OPT_INT, O(div), 1, 1e6, " coretsar ", "coretsar: sub-regions of split and quick (10)"},
    {"backoff", OPT_INT, O(backoff), 1, 1e6, " coretsar ", "coretsar: slow passes before a GPU is dropped (2)"},
    {"tse_factor", OPT_DOUBLE, O(tse_factor), 1.000001, 1e6, " tse-exp ", "tse-exp: growth factor (2)"},
    {"wavefront", OPT_GRID, O(wave_rows), 1, 1e9, " hdss ",
     "hdss: ROWSxCOLS tiles, each after its upper and left neighbours (off)"},
    {"standby_below", OPT_DOUBLE, O(standby_below), 1e-9, 1, " hdss ",
     "hdss: speed hint, as a share of the fastest's, below which a device stands by (0.05)"},
    {"hdss_plain", OPT_INT, O(hdss_plain), 0, 7, " hdss ",
     "hdss: our additions off, a sum of: 1 fit in time, 2 even first blocks, 4 standby (0)"},
};
#undef O

static const char *const schedules[] = {"split", "static", "adaptive", "quick"};

/* wavefront=ROWSxCOLS: two whole numbers in [min, max] into wave_rows and
 * wave_cols. */
static int grid_set(hs_split_options *opt, const opt_spec *s, const char *val, hs_error *err)
{
    unsigned long long v[2];
    const char *p = val;
    char *end;
    for (int i = 0; i < 2; i++) {
        errno = 0;
        v[i] = (*p >= '0' && *p <= '9') ? strtoull(p, &end, 10) : 0;
        if (!(*p >= '0' && *p <= '9') || errno || (double)v[i] < s->min ||
            (double)v[i] > s->max || *end != (i == 0 ? 'x' : '\0'))
            return hs_error_set(err, HS_EINPUT,
                                "option %s: '%s' is not ROWSxCOLS with whole numbers in "
                                "[%g, %g]",
                                s->key, val, s->min, s->max);
        p = end + 1;
    }
    opt->wave_rows = (size_t)v[0];
    opt->wave_cols = (size_t)v[1];
    return HS_OK;
}

int hs_split_option_set(hs_split_options *opt, const char *assignment, hs_error *err)
{
    const char *eq = assignment ? strchr(assignment, '=') : NULL;
    size_t klen;
    char *end;
    double v;
    if (!eq || eq == assignment)
        return hs_error_set(err, HS_EINPUT, "option '%s' is not KEY=VALUE",
                            assignment ? assignment : "(null)");
    klen = (size_t)(eq - assignment);
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        const opt_spec *s = &specs[i];
        char *field = (char *)opt + s->offset;
        if (strlen(s->key) != klen || strncmp(s->key, assignment, klen) != 0)
            continue;
        if (s->type == OPT_SCHEDULE) {
            for (int j = 0; j < 4; j++)
                if (strcmp(eq + 1, schedules[j]) == 0) {
                    *(int *)field = j;
                    return HS_OK;
                }
            return hs_error_set(err, HS_EINPUT,
                                "option schedule: '%s' is not static, adaptive, split or quick",
                                eq + 1);
        }
        if (s->type == OPT_GRID)
            return grid_set(opt, s, eq + 1, err);
        errno = 0;
        v = strtod(eq + 1, &end);
        if (!eq[1] || *end || errno || !isfinite(v) || v < s->min || v > s->max ||
            (s->type != OPT_DOUBLE && v != floor(v)))
            return hs_error_set(err, HS_EINPUT, "option %s: '%s' is not a %s in [%g, %g]",
                                s->key, eq + 1, s->type == OPT_DOUBLE ? "number" : "whole number",
                                s->min, s->max);
        if (s->type == OPT_SIZE)
            *(size_t *)field = (size_t)v;
        else if (s->type == OPT_INT)
            *(int *)field = (int)v;
        else
            *(double *)field = v;
        return HS_OK;
    }
    return hs_error_set(err, HS_EINPUT, "unknown splitter option '%.*s' (hetsched split -o help "
                        "lists them)",
                        (int)klen, assignment);
}

/* 1 when option s is set in opt (not its default 0). */
static int option_given(const hs_split_options *opt, const opt_spec *s)
{
    const char *field = (const char *)opt + s->offset;
    switch (s->type) {
    case OPT_SIZE: return *(const size_t *)field != 0;
    case OPT_DOUBLE: return *(const double *)field != 0;
    case OPT_GRID: return opt->wave_rows != 0 || opt->wave_cols != 0;
    default: return *(const int *)field != 0; /* OPT_INT, OPT_SCHEDULE */
    }
}

int hs_split_options_check(const hs_split_options *opt, const hs_splitter *sp, hs_error *err)
{
    char name[64];
    if (!opt)
        return HS_OK;
    snprintf(name, sizeof name, " %s ", sp->name);
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
        if (option_given(opt, &specs[i]) && !strstr(specs[i].owners, name))
            return hs_error_set(err, HS_EINPUT, "option %s applies to%.*s, not to %s",
                                specs[i].key, (int)strlen(specs[i].owners) - 1,
                                specs[i].owners, sp->name);
    return HS_OK;
}

void hs_split_option_help(FILE *out)
{
    fprintf(out, "splitter options (-o KEY=VALUE):\n");
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
        fprintf(out, "  %-16s %s\n", specs[i].key, specs[i].help);
}
