/* Tests of the CUDA module (exec/cuda_module.h), built only where CUDA is:
 *   - loading, mapping and the GPU probe on a machine without a GPU map
 *     none of the CUDA libraries (read from /proc/self/maps);
 *   - a missing module (HETSCHED_CUDA_MODULE) is a clear HS_ENOTBUILT naming
 *     the file, from every entry point that needs it, and no GPU;
 *   - the first call that needs CUDA loads the module and its libraries
 *     (which is what makes the first check mean something).
 * The tests run in this order: the last one loads the module for good. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "exec/cuda_module.h"
#include "exec/data.h"
#include "hetsched/hetsched.h"

/* 1 when a file whose name contains `name` is mapped into this process. */
static int mapped(const char *name)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];
    int found = 0;
    assert_non_null(f);
    while (!found && fgets(line, sizeof line, f))
        found = strstr(line, name) != NULL;
    fclose(f);
    return found;
}

static void assert_no_cuda_mapped(void)
{
    assert_false(mapped("libcudart"));
    assert_false(mapped("libcublas"));
    assert_false(mapped("libcusolver"));
    assert_false(mapped(HS__CUDA_MODULE_FILE));
}

static void load_and_map_need_no_cuda(void **state)
{
    char path[4096];
    hs_workload *w = NULL;
    hs_schedule *s = NULL;
    hs_error err = {0};
    char why[256] = "";
    (void)state;
    snprintf(path, sizeof path, "%s/workloads/case-study.yaml", getenv("HS_SOURCE_ROOT"));
    assert_int_equal(hs_workload_load_file(path, &w, &err), HS_OK);
    assert_int_equal(hs_map(w, "heft", NULL, &s, NULL, &err), HS_OK);
    hs_schedule_free(s);
    hs_workload_free(w);
    assert_no_cuda_mapped();
    /* the probe: where the driver finds no GPU it loads nothing */
    if (hs__cuda_gpu_count(why, sizeof why) > 0)
        skip(); /* a GPU machine: the probe loaded the module, rightly */
    assert_true(strncmp(why, "no GPU", 6) == 0);
    assert_int_equal(hs_cuda_device_count(), 0);
    assert_no_cuda_mapped();
}

/* In a child: with the module missing, each entry point that needs it
 * answers HS_ENOTBUILT naming the file; exits with the number of the
 * first check that failed, 0 when all passed. */
static int missing_module_child(void)
{
    const char *path = "/nonexistent/" HS__CUDA_MODULE_FILE;
    hs_kcuda *k = (hs_kcuda *)1;
    const hs__mem_ops *ops = NULL;
    void *ctx = NULL;
    hs_error err = {0};
    setenv(HS__CUDA_MODULE_ENV, path, 1);
    if (hs_kcuda_new(0, &k, &err) != HS_ENOTBUILT || k != NULL)
        return 1;
    if (!strstr(err.msg, path) || strncmp(err.msg, "CUDA kernels: the CUDA module", 29) != 0)
        return 2;
    memset(&err, 0, sizeof err);
    if (hs__mem_cuda_new(NULL, NULL, 0, &ops, &ctx, &err) != HS_ENOTBUILT || ops != NULL ||
        !strstr(err.msg, path) || strncmp(err.msg, "backend cuda: ", 14) != 0)
        return 3;
    if (hs__cuda_module_get(NULL) != NULL)
        return 4;
    return mapped("libcublas") ? 5 : 0;
}

static void missing_module_is_a_clear_error(void **state)
{
    int status = -1;
    pid_t pid;
    (void)state;
    fflush(NULL);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(missing_module_child());
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

static void first_use_loads_the_module(void **state)
{
    hs_kcuda *k = NULL;
    hs_error err = {0};
    int rc;
    (void)state;
    assert_non_null(hs__cuda_module_get(&err));
    assert_true(mapped(HS__CUDA_MODULE_FILE));
    assert_true(mapped("libcublas"));
    /* without a GPU CUDA refuses the device (HS_EIO), with one it works */
    rc = hs_kcuda_new(0, &k, &err);
    assert_true(rc == HS_OK || rc == HS_EIO);
    hs_kcuda_free(k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        /* first: the child it forks must not inherit a loaded module (on a
         * GPU machine the probe of the next test loads it) */
        cmocka_unit_test(missing_module_is_a_clear_error),
        cmocka_unit_test(load_and_map_need_no_cuda),
        cmocka_unit_test(first_use_loads_the_module),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
