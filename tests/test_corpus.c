/* Regression test over the fuzzers' minimized corpora: the loader's
 * (tests/fuzz-corpus/, and the malformed cases of tests/cases/; its JSON
 * form's, tests/fuzz-corpus-json/, and every workload that loads written in
 * that form and read back), the schedule
 * reader's (tests/fuzz-corpus-schedule/), the performance model reader's
 * (tests/fuzz-corpus-model/) and the task-graph sets' readers'
 * (tests/fuzz-corpus-stg/, -wfformat/, -dot/).  Each input is held to its fuzz target's
 * contract (tests/fuzz/): read, or refused with HS_EINPUT, nothing returned
 * and one line "NAME...: error: ..." (located and printable for the JSON
 * readers).  Under the sanitizer build this also checks that no input leaks
 * or touches memory it should not. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hetsched/hetsched.h"
#include "fuzz/fuzz_sets.h"
#include "fuzz/fuzz_util.h"
#include "graph/load_int.h"
#include "mapper/perfmodel.h"

/* Reads a whole (small) file; *len gets its size. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *data = NULL;
    long size;
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    size = ftell(f);
    assert_true(size >= 0);
    rewind(f);
    data = malloc((size_t)size + 1);
    assert_non_null(data);
    assert_int_equal(fread(data, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    *len = (size_t)size;
    return data;
}

/* Calls check(name, data, len, counts) for every file of `dir` (relative to
 * HS_SOURCE_ROOT) whose name starts with `prefix`. */
static void each_file(const char *dir, const char *prefix,
                      void (*check)(const char *name, const char *data, size_t len, int *counts),
                      int *counts)
{
    const char *root = getenv("HS_SOURCE_ROOT");
    char path[1024];
    struct dirent *e;
    DIR *d;
    assert_non_null(root);
    snprintf(path, sizeof path, "%s/%s", root, dir);
    d = opendir(path);
    if (!d)
        fail_msg("cannot open %s", path);
    while ((e = readdir(d)) != NULL) {
        size_t len;
        char *data;
        if (e->d_name[0] == '.' || e->d_type == DT_DIR ||
            strncmp(e->d_name, prefix, strlen(prefix)) != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s/%s", root, dir, e->d_name);
        data = slurp(path, &len);
        check(e->d_name, data, len, counts);
        free(data);
    }
    closedir(d);
}

/* The workload as hs_workload_write_yaml writes it (a string to free). */
static char *dump(const hs_workload *w)
{
    size_t len;
    char *text = fuzz_dump(w, 0, &len);
    assert_non_null(text);
    return text;
}

/* A loaded workload written in the JSON form loads back the same, through
 * yajl and through libyaml (the same text as YAML): the same YAML written
 * back. */
static void json_round_trip(const char *name, const hs_workload *w)
{
    static const hs__load_way ways[] = {HS__LOAD_JSON, HS__LOAD_STREAM};
    size_t len;
    char *json = fuzz_dump(w, 1, &len), *want = dump(w);
    assert_non_null(json);
    for (int i = 0; i < 2; i++) {
        hs_workload *back = NULL;
        hs_error err = {0};
        char *got;
        if (hs__workload_load_buffer_way(name, json, len, ways[i], &back, &err) != HS_OK)
            fail_msg("%s as JSON (%s): %s", name, i ? "libyaml" : "yajl", err.msg);
        got = dump(back);
        assert_string_equal(got, want);
        free(got);
        hs_workload_free(back);
    }
    free(json);
    free(want);
}

/* The one-pass reader against the full one: what it loads, the full one
 * loads the same (the same YAML written back); what it refuses, it refuses
 * with HS_EINPUT and one line.  Returns whether it loaded. */
static int stream_agrees(const char *name, const char *data, size_t len)
{
    hs_workload *ws = NULL, *wt = NULL;
    hs_error err = {0};
    int rc = hs__workload_load_buffer_way(name, data, len, HS__LOAD_STREAM, &ws, &err);
    if (rc != HS_OK) {
        if (rc != HS_EINPUT)
            fail_msg("%s: one pass: code %d: %s", name, rc, err.msg);
        assert_null(ws);
        assert_memory_equal(err.msg, name, strlen(name));
        assert_null(strchr(err.msg, '\n'));
        return 0;
    }
    if (hs__workload_load_buffer_way(name, data, len, HS__LOAD_TREE, &wt, &err) != HS_OK)
        fail_msg("%s: loaded in one pass, refused by the full loader: %s", name, err.msg);
    {
        char *a = dump(ws), *b = dump(wt);
        assert_string_equal(a, b);
        free(a);
        free(b);
    }
    hs_workload_free(ws);
    hs_workload_free(wt);
    return 1;
}

/* A workload: loads a finalized, non-empty one, or fails with HS_EINPUT,
 * returns nothing and says so in one line "NAME...: error: ...".  counts:
 * loaded, refused. */
static void check_workload(const char *name, const char *data, size_t len, int *counts)
{
    hs_workload *w = (hs_workload *)&w;
    hs_error err = {0};
    int rc = hs_workload_load_buffer(name, data, len, &w, &err);
    counts[2] += stream_agrees(name, data, len);
    if (rc == HS_OK) {
        assert_non_null(w);
        assert_true(w->finalized);
        assert_true(w->graph.ntasks > 0);
        json_round_trip(name, w);
        counts[0]++;
    } else {
        if (rc != HS_EINPUT)
            fail_msg("%s: code %d: %s", name, rc, err.msg);
        assert_null(w);
        assert_int_equal(err.code, HS_EINPUT);
        assert_memory_equal(err.msg, name, strlen(name));
        assert_non_null(strstr(err.msg, ": error: "));
        assert_null(strchr(err.msg, '\n'));
        counts[1]++;
    }
    hs_workload_free(rc == HS_OK ? w : NULL);
}

static void fuzz_corpus(void **state)
{
    int counts[3] = {0};
    (void)state;
    each_file("tests/fuzz-corpus", "", check_workload, counts);
    /* the corpus keeps inputs of both kinds; the one-pass reader takes some */
    assert_true(counts[0] > 0);
    assert_true(counts[1] > 0);
    assert_true(counts[2] > 0);
}

/* A workload in the JSON form, as fuzz_load_json checks it: loaded, and
 * back the same from what it writes, or refused with nothing returned and
 * one line "NAME...: error: ...".  counts: loaded, refused. */
static void check_json(const char *name, const char *data, size_t len, int *counts)
{
    hs_workload *w = (hs_workload *)&w;
    hs_error err = {0};
    int rc = hs__workload_load_buffer_way(name, data, len, HS__LOAD_JSON, &w, &err);
    if (rc == HS_OK) {
        assert_true(w->finalized && w->graph.ntasks > 0);
        json_round_trip(name, w);
        hs_workload_free(w);
        counts[0]++;
        return;
    }
    if (rc != HS_EINPUT)
        fail_msg("%s: code %d: %s", name, rc, err.msg);
    assert_null(w);
    assert_memory_equal(err.msg, name, strlen(name));
    assert_non_null(strstr(err.msg, ": error: "));
    assert_true(fuzz_one_line(err.msg));
    counts[1]++;
}

static void json_corpus(void **state)
{
    int counts[2] = {0};
    (void)state;
    each_file("tests/fuzz-corpus-json", "", check_json, counts);
    assert_true(counts[0] > 0);
    assert_true(counts[1] > 0);
    print_message("JSON workloads: %d loaded, %d refused\n", counts[0], counts[1]);
}

static void check_yaml(const char *name, const char *data, size_t len, int *counts)
{
    size_t n = strlen(name);
    if (n > 5 && strcmp(name + n - 5, ".yaml") == 0)
        check_workload(name, data, len, counts);
}

/* Every bundled workload and every good case loads in one pass, the same as
 * in full (the generators write what the one-pass reader takes). */
static void bundled_in_one_pass(void **state)
{
    static const char *const dirs[] = {"workloads", "workloads/paper", "tests/cases"};
    int counts[3] = {0};
    (void)state;
    for (int i = 0; i < 3; i++)
        each_file(dirs[i], "", check_yaml, counts);
    printf("bundled: %d loaded, %d refused, %d in one pass\n", counts[0], counts[1], counts[2]);
    assert_int_equal(counts[2], counts[0]);
}

static void malformed_cases(void **state)
{
    int counts[3] = {0};
    (void)state;
    /* tests/cases is shared with the command-line tests: only bad-* files
     * are known to be malformed workloads */
    each_file("tests/cases", "bad-", check_workload, counts);
    assert_int_equal(counts[0], 0);
    assert_true(counts[1] > 0);
}

/* A schedule of the fuzz workload (tests/fuzz/fuzz_util.h), as fuzz_schedule
 * checks it: read and then valid or invalid with a one-line message, and
 * run as given or refused (fuzz_given); or refused with nothing returned
 * and one located line.  counts: valid, invalid, refused, run as given,
 * refused as given. */
static void check_schedule(const char *name, const char *data, size_t len, int *counts)
{
    static hs_workload *w;
    hs_schedule *s = NULL;
    hs_error err = {0};
    int rc;
    if (!w)
        assert_non_null(w = fuzz_workload()); /* kept for the whole run */
    rc = hs_schedule_read_json_buffer(w, name, data, len, &s, &err);
    if (rc == HS_OK) {
        assert_non_null(s);
        rc = hs_schedule_validate(w, s, &err);
        if (rc != HS_OK && rc != HS_EINVALID)
            fail_msg("%s: validate: code %d: %s", name, rc, err.msg);
        if (!fuzz_one_line(err.msg))
            fail_msg("%s: not one printable line: %s", name, err.msg);
        counts[rc == HS_OK ? 0 : 1]++;
        switch (fuzz_given(w, s, rc == HS_OK)) {
        case 1: counts[3]++; break;
        case 0: counts[4]++; break;
        default: fail_msg("%s: run as given: neither mapped nor refused in one line", name);
        }
    } else {
        assert_null(s);
        assert_int_equal(rc, HS_EINPUT);
        if (!fuzz_message_ok(&err, name))
            fail_msg("%s: not one printable, located line: %s", name, err.msg);
        counts[2]++;
    }
    hs_schedule_free(s);
}

static void schedule_corpus(void **state)
{
    int counts[5] = {0};
    (void)state;
    each_file("tests/fuzz-corpus-schedule", "", check_schedule, counts);
    assert_true(counts[0] > 0);
    assert_true(counts[1] > 0);
    assert_true(counts[2] > 0);
    assert_true(counts[3] > 0);
    assert_true(counts[4] > 0);
    print_message("schedules: %d valid, %d invalid, %d refused; as given: %d run, %d refused\n",
                  counts[0], counts[1], counts[2], counts[3], counts[4]);
}

/* A performance model, as fuzz_model checks it: loaded, or refused with
 * nothing returned and one located line.  counts: loaded, refused. */
static void check_model(const char *name, const char *data, size_t len, int *counts)
{
    hs_perfmodel *m = (hs_perfmodel *)&m;
    hs_error err = {0};
    int rc = hs_perfmodel_load_buffer(name, data, len, &m, &err);
    if (rc == HS_OK) {
        assert_non_null(m);
        hs_perfmodel_free(m);
        counts[0]++;
    } else {
        assert_null(m);
        assert_int_equal(rc, HS_EINPUT);
        if (!fuzz_message_ok(&err, name))
            fail_msg("%s: not one printable, located line: %s", name, err.msg);
        counts[1]++;
    }
}

static void model_corpus(void **state)
{
    int counts[2] = {0};
    (void)state;
    each_file("tests/fuzz-corpus-model", "", check_model, counts);
    assert_true(counts[0] > 0);
    assert_true(counts[1] > 0);
}

/* A task-graph set of the readers' corpora (tests/fuzz/fuzz_sets.h): read,
 * and its DOT reads back to the same workload, or refused with one line.
 * The corpus files have no extension: `ext` gives the format.  counts: read,
 * refused. */
static void check_set(const char *name, const char *ext, const char *data, size_t len,
                      int *counts)
{
    char named[300];
    const char *why = NULL;
    int rc;
    snprintf(named, sizeof named, "%s%s", name, ext);
    if ((rc = fuzz_sets_check(named, data, len, &why)) < 0)
        fail_msg("%s: %s", named, why);
    counts[rc == 1 ? 0 : 1]++;
}

static void check_stg(const char *name, const char *data, size_t len, int *counts)
{
    check_set(name, ".stg", data, len, counts);
}

static void check_wfformat(const char *name, const char *data, size_t len, int *counts)
{
    check_set(name, ".json", data, len, counts);
}

static void check_dot(const char *name, const char *data, size_t len, int *counts)
{
    check_set(name, ".dot", data, len, counts);
}

static void set_corpora(void **state)
{
    static const struct {
        const char *dir;
        void (*check)(const char *, const char *, size_t, int *);
    } corpora[] = {
        {"tests/fuzz-corpus-stg", check_stg},
        {"tests/fuzz-corpus-wfformat", check_wfformat},
        {"tests/fuzz-corpus-dot", check_dot},
    };
    (void)state;
    for (size_t i = 0; i < sizeof corpora / sizeof *corpora; i++) {
        int counts[2] = {0, 0};
        each_file(corpora[i].dir, "", corpora[i].check, counts);
        /* each corpus keeps inputs of both kinds */
        assert_true(counts[0] > 0);
        assert_true(counts[1] > 0);
    }
    hs_workload_free(fuzz_sets_platform_workload());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fuzz_corpus),
        cmocka_unit_test(json_corpus),
        cmocka_unit_test(malformed_cases),
        cmocka_unit_test(bundled_in_one_pass),
        cmocka_unit_test(schedule_corpus),
        cmocka_unit_test(model_corpus),
        cmocka_unit_test(set_corpora),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
