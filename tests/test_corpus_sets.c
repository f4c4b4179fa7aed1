/* Regression test over the minimized corpora of the readers of task-graph
 * sets (tests/fuzz-corpus-stg/, -wfformat/, -dot/, fuzzed by
 * tests/fuzz/fuzz_*.c): every input is held to its fuzz target's contract
 * (tests/fuzz/fuzz_sets.h): read, and its DOT reads back to the same
 * workload, or refused with one line and nothing returned.  Under the
 * sanitizer build this also checks that no input leaks or touches memory it
 * should not. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fuzz/fuzz_sets.h"

/* Reads a whole (small) file; *len gets its size. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *data;
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

/* Every file of `dir` (relative to HS_SOURCE_ROOT), read as NAME.ext. */
static void replay(const char *dir, const char *ext)
{
    const char *root = getenv("HS_SOURCE_ROOT");
    int read = 0, refused = 0;
    char path[1024];
    struct dirent *e;
    DIR *d;
    assert_non_null(root);
    snprintf(path, sizeof path, "%s/%s", root, dir);
    if (!(d = opendir(path)))
        fail_msg("cannot open %s", path);
    while ((e = readdir(d)) != NULL) {
        char name[300];
        const char *why = NULL;
        size_t len;
        char *data;
        int rc;
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s/%s", root, dir, e->d_name);
        snprintf(name, sizeof name, "%s%s", e->d_name, ext);
        data = slurp(path, &len);
        rc = fuzz_sets_check(name, data, len, &why);
        free(data);
        if (rc < 0)
            fail_msg("%s/%s: %s", dir, e->d_name, why);
        read += rc == 1;
        refused += rc == 0;
    }
    closedir(d);
    /* each corpus keeps inputs of both kinds */
    assert_true(read > 0);
    assert_true(refused > 0);
}

static void stg(void **state)
{
    (void)state;
    replay("tests/fuzz-corpus-stg", ".stg");
}

static void wfformat(void **state)
{
    (void)state;
    replay("tests/fuzz-corpus-wfformat", ".json");
}

static void dot(void **state)
{
    (void)state;
    replay("tests/fuzz-corpus-dot", ".dot");
}

static int teardown(void **state)
{
    (void)state;
    hs_workload_free(fuzz_sets_platform_workload());
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stg),
        cmocka_unit_test(wfformat),
        cmocka_unit_test(dot),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
