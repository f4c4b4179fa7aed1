/* Regression test over the fuzzer's minimized corpus (tests/fuzz-corpus/)
 * and the malformed cases (tests/cases/): every input either loads a
 * finalized, non-empty workload, or fails with HS_EINPUT, returns nothing,
 * and says so in one line "NAME...: error: ...".  Under the sanitizer build
 * this also checks that no input leaks or touches memory it should not. */
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

/* Loads every file of `dir` (relative to HS_SOURCE_ROOT) whose name
 * starts with `prefix`; counts how many loaded and how many were refused. */
static void load_dir(const char *dir, const char *prefix, int *loaded, int *refused)
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
        hs_workload *w = (hs_workload *)&w;
        hs_error err = {0};
        size_t len;
        char *data;
        int rc;
        if (e->d_name[0] == '.' || strncmp(e->d_name, prefix, strlen(prefix)) != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s/%s", root, dir, e->d_name);
        data = slurp(path, &len);
        rc = hs_workload_load_buffer(e->d_name, data, len, &w, &err);
        if (rc == HS_OK) {
            assert_non_null(w);
            assert_true(w->finalized);
            assert_true(w->graph.ntasks > 0);
            (*loaded)++;
        } else {
            if (rc != HS_EINPUT)
                fail_msg("%s: code %d: %s", e->d_name, rc, err.msg);
            assert_null(w);
            assert_int_equal(err.code, HS_EINPUT);
            assert_memory_equal(err.msg, e->d_name, strlen(e->d_name));
            assert_non_null(strstr(err.msg, ": error: "));
            assert_null(strchr(err.msg, '\n'));
            (*refused)++;
        }
        hs_workload_free(rc == HS_OK ? w : NULL);
        free(data);
    }
    closedir(d);
}

static void fuzz_corpus(void **state)
{
    int loaded = 0, refused = 0;
    (void)state;
    load_dir("tests/fuzz-corpus", "", &loaded, &refused);
    /* the corpus keeps inputs of both kinds */
    assert_true(loaded > 0);
    assert_true(refused > 0);
}

static void malformed_cases(void **state)
{
    int loaded = 0, refused = 0;
    (void)state;
    /* tests/cases is shared with the command-line tests: only bad-* files
     * are known to be malformed workloads */
    load_dir("tests/cases", "bad-", &loaded, &refused);
    assert_int_equal(loaded, 0);
    assert_true(refused > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fuzz_corpus),
        cmocka_unit_test(malformed_cases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
