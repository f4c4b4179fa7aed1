/* What the fuzz targets of the loader and of the JSON readers (fuzz_load.c,
 * fuzz_load_json.c, fuzz_schedule.c, fuzz_model.c) and their replay in
 * tests/test_corpus.c share: the workload the schedules are read against,
 * a workload written out, the contract every error message keeps, and what
 * a schedule read must do when it runs as given. */
#ifndef HS_TESTS_FUZZ_UTIL_H
#define HS_TESTS_FUZZ_UTIL_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hetsched/hetsched.h"

/* Three devices on three memories, two instances of three kernels (add may
 * be split): enough for whole tasks, parts, transfers between every pair of
 * memories.  Its schedules (hetsched map --json, any policy) seed
 * tests/fuzz-corpus-schedule/. */
static const char fuzz_workload_yaml[] =
    "platform:\n"
    "  devices:\n"
    "    - {name: cpu0, kind: cpu, memory: host}\n"
    "    - {name: gpu0, kind: gpu, memory: gpu0}\n"
    "    - {name: gpu1, kind: gpu, memory: gpu1}\n"
    "  links:\n"
    "    - {from: host, to: gpu0, bandwidth_gbps: 10, latency_us: 10}\n"
    "    - {from: gpu0, to: host, bandwidth_gbps: 8, latency_us: 5}\n"
    "    - {from: host, to: gpu1, bandwidth_gbps: 10, latency_us: 10}\n"
    "    - {from: gpu1, to: host, bandwidth_gbps: 8, latency_us: 5}\n"
    "    - {from: gpu0, to: gpu1, bandwidth_gbps: 20, latency_us: 2}\n"
    "    - {from: gpu1, to: gpu0, bandwidth_gbps: 20, latency_us: 2}\n"
    "applications:\n"
    "  - name: va\n"
    "    instances: 2\n"
    "    kernels:\n"
    "      - {name: add, cost_us: {cpu: 500, gpu: 100}, input_bytes: 200000, splittable: true,\n"
    "         items: 1000}\n"
    "      - {name: scale, cost_us: {cpu: 300, gpu: 60}, output_bytes: 80000}\n"
    "      - {name: norm, cost_us: {cpu: 40, gpu: 20}, output_bytes: 8000}\n"
    "    edges:\n"
    "      - {from: add, to: scale, bytes: 160000}\n"
    "      - {from: add, to: norm, bytes: 40000}\n";

static inline hs_workload *fuzz_workload(void)
{
    hs_workload *w = NULL;
    hs_error err;
    if (hs_workload_load_buffer("fuzz.yaml", fuzz_workload_yaml, sizeof fuzz_workload_yaml - 1,
                                &w, &err) != HS_OK)
        return NULL;
    return w;
}

/* Length of the printable UTF-8 character at s, 0 for anything else: a
 * control character (C0, DEL, C1), a stray, overlong or cut-short sequence. */
static inline size_t fuzz_printable(const unsigned char *s)
{
    size_t len = s[0] < 0x80 ? 1 : s[0] >= 0xc2 && s[0] <= 0xdf ? 2 : s[0] >= 0xe0 && s[0] <= 0xef ? 3
                 : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;
    if (len == 1)
        return s[0] >= 0x20 && s[0] != 0x7f;
    for (size_t k = 1; k < len; k++)
        if ((s[k] & 0xc0) != 0x80)
            return 0;
    if (len == 0 || (s[0] == 0xc2 && s[1] < 0xa0) || (s[0] == 0xe0 && s[1] < 0xa0) ||
        (s[0] == 0xed && s[1] > 0x9f) || (s[0] == 0xf0 && s[1] < 0x90) ||
        (s[0] == 0xf4 && s[1] > 0x8f))
        return 0;
    return len;
}

/* The workload as YAML, or in the JSON form (a string to free, *len its
 * length), or NULL. */
static inline char *fuzz_dump(const hs_workload *w, int json, size_t *len)
{
    char *text = NULL;
    hs_error err;
    FILE *f = open_memstream(&text, len);
    if (!f)
        return NULL;
    if ((json ? hs_workload_write_json(w, f, &err) : hs_workload_write_yaml(w, f, &err)) !=
        HS_OK) {
        fclose(f);
        free(text);
        return NULL;
    }
    fclose(f);
    return text;
}

/* Aborts when a and b are not the same workload (their YAML differs). */
static inline void fuzz_abort_unless_same(const hs_workload *a, const hs_workload *b)
{
    size_t n;
    char *ya = fuzz_dump(a, 0, &n), *yb = fuzz_dump(b, 0, &n);
    if (ya && yb && strcmp(ya, yb) != 0)
        abort();
    free(ya);
    free(yb);
}

/* The loader's refusal (rc) of an input named `name`: nothing returned (w
 * NULL), bad input or out of memory, one line "NAME...: error: ..." (or
 * "NAME: out of memory").  1 when kept. */
static inline int fuzz_load_refusal_ok(int rc, const hs_workload *w, const hs_error *err,
                                       const char *name)
{
    return w == NULL && rc == err->code && (rc == HS_EINPUT || rc == HS_ENOMEM) &&
           strncmp(err->msg, name, strlen(name)) == 0 && !strchr(err->msg, '\n') &&
           (rc != HS_EINPUT || strstr(err->msg, ": error: "));
}

/* Is msg one line of printable UTF-8? */
static inline int fuzz_one_line(const char *msg)
{
    size_t len;
    for (const unsigned char *s = (const unsigned char *)msg; *s; s += len)
        if (!(len = fuzz_printable(s)))
            return 0;
    return 1;
}

/* The contract of a refusal of a buffer named `name`: one printable line
 * that starts "NAME:LINE:COL: error: " (bad input, located) or "NAME: " (out
 * of memory). */
static inline int fuzz_message_ok(const hs_error *err, const char *name)
{
    const char *at = err->msg + strlen(name);
    int colons = 0;
    if (strncmp(err->msg, name, strlen(name)) != 0 || !fuzz_one_line(err->msg))
        return 0;
    if (err->code != HS_EINPUT)
        return at[0] == ':' && at[1] == ' ';
    for (; at[0] == ':' && at[1] >= '0' && at[1] <= '9'; colons++) /* ":LINE:COL" */
        for (at++; *at >= '0' && *at <= '9'; at++)
            ;
    return colons == 2 && strncmp(at, ": error: ", 9) == 0;
}

/* Schedule s of w run as given (hs_map_options.schedule): mapped to a
 * schedule that validates, or refused with HS_EINPUT, one printable line
 * and nothing returned; when s is `valid` (hs_schedule_validate) and of
 * whole tasks, mapped (every kernel of the fuzz workload costs more than
 * the validator's tolerance, so that a valid schedule's start times order
 * each device's tasks as the graph does).  1 when mapped, 0 when refused,
 * -1 when the contract is broken. */
static inline int fuzz_given(hs_workload *w, const hs_schedule *s, int valid)
{
    hs_map_options opt = {.schedule = s};
    hs_schedule *g = NULL;
    hs_error err = {0};
    int rc = hs_map(w, NULL, &opt, &g, NULL, &err), whole = 1;
    for (size_t i = 0; i < s->nplacements; i++)
        whole &= s->placements[i].nparts == 1;
    if (rc == HS_OK)
        rc = g && hs_schedule_validate(w, g, &err) == HS_OK ? 1 : -1;
    else
        rc = !g && rc == HS_EINPUT && fuzz_one_line(err.msg) && !(valid && whole) ? 0 : -1;
    hs_schedule_free(g);
    return rc;
}

#endif
