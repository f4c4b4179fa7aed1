/* libFuzzer target for the wfformat reader (graph/read_wfformat.c): every input is
 * held to the contract of tests/fuzz/fuzz_sets.h (read, and its DOT reads
 * back to the same workload, or refused with one line and nothing
 * returned).  Leaks and memory errors are the sanitizers' job; a broken
 * contract aborts here so that the fuzzer reports it too. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define HS_FUZZ_TARGET
#include "fuzz_sets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *why = NULL;
    if (fuzz_sets_check("fuzz.json", (const char *)data, size, &why) < 0) {
        fprintf(stderr, "fuzz_wfformat: %s\n", why);
        abort();
    }
    return 0;
}
