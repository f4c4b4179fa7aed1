/* Regression test over the fuzzers' minimized corpora: the loader's
 * (tests/fuzz-corpus/, and the malformed cases of tests/cases/), the schedule
 * reader's (tests/fuzz-corpus-schedule/) and the performance model reader's
 * (tests/fuzz-corpus-model/).  Each input is held to its fuzz target's
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
#include "fuzz/fuzz_util.h"
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
        if (e->d_name[0] == '.' || strncmp(e->d_name, prefix, strlen(prefix)) != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s/%s", root, dir, e->d_name);
        data = slurp(path, &len);
        check(e->d_name, data, len, counts);
        free(data);
    }
    closedir(d);
}

/* A workload: loads a finalized, non-empty one, or fails with HS_EINPUT,
 * returns nothing and says so in one line "NAME...: error: ...".  counts:
 * loaded, refused. */
static void check_workload(const char *name, const char *data, size_t len, int *counts)
{
    hs_workload *w = (hs_workload *)&w;
    hs_error err = {0};
    int rc = hs_workload_load_buffer(name, data, len, &w, &err);
    if (rc == HS_OK) {
        assert_non_null(w);
        assert_true(w->finalized);
        assert_true(w->graph.ntasks > 0);
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
    int counts[2] = {0};
    (void)state;
    each_file("tests/fuzz-corpus", "", check_workload, counts);
    /* the corpus keeps inputs of both kinds */
    assert_true(counts[0] > 0);
    assert_true(counts[1] > 0);
}

static void malformed_cases(void **state)
{
    int counts[2] = {0};
    (void)state;
    /* tests/cases is shared with the command-line tests: only bad-* files
     * are known to be malformed workloads */
    each_file("tests/cases", "bad-", check_workload, counts);
    assert_int_equal(counts[0], 0);
    assert_true(counts[1] > 0);
}

/* A schedule of the fuzz workload (tests/fuzz/fuzz_util.h), as fuzz_schedule
 * checks it: read and then valid or invalid with a one-line message, or
 * refused with nothing returned and one located line.  counts: valid,
 * invalid, refused. */
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
    int counts[3] = {0};
    (void)state;
    each_file("tests/fuzz-corpus-schedule", "", check_schedule, counts);
    assert_true(counts[0] > 0);
    assert_true(counts[1] > 0);
    assert_true(counts[2] > 0);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fuzz_corpus),
        cmocka_unit_test(malformed_cases),
        cmocka_unit_test(schedule_corpus),
        cmocka_unit_test(model_corpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
