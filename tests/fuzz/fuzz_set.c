/* libFuzzer target for one reader of task-graph sets, built once per
 * format (tests/fuzz/meson.build: fuzz_stg, fuzz_wfformat, fuzz_dot, each
 * with FUZZ_SET_NAME, the file name its inputs are read as, whose extension
 * picks the reader): every input is held to the contract of
 * tests/fuzz/fuzz_sets.h (read, and its DOT reads back to the same
 * workload, or refused with one line and nothing returned).  Leaks and
 * memory errors are the sanitizers' job; a broken contract aborts here so
 * that the fuzzer reports it too. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define HS_FUZZ_TARGET
#include "fuzz_sets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *why = NULL;
    if (fuzz_sets_check(FUZZ_SET_NAME, (const char *)data, size, &why) < 0) {
        fprintf(stderr, "%s: %s\n", FUZZ_SET_NAME, why);
        abort();
    }
    return 0;
}
