/* libFuzzer target for the workload loader's JSON form: any input must
 * either load a finalized workload or fail cleanly with one line
 * "fuzz.json...: error: ..." and nothing returned.  What loads writes back
 * in the JSON form and loads again the same; and where libyaml loads the
 * same text in one pass (JSON is YAML's flow style), it gives the same
 * workload.  Leaks and memory errors are the sanitizers' job; a broken
 * contract aborts here so that the fuzzer reports it too. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "graph/load_int.h"
#include "hetsched/hetsched.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Aborts when `text` loads (by `way`) to another workload than w, or when
 * it does not load and must_load. */
static void same(const hs_workload *w, const char *text, size_t len, hs__load_way way,
                 int must_load)
{
    hs_workload *back = NULL;
    hs_error err;
    if (hs__workload_load_buffer_way("fuzz.json", text, len, way, &back, &err) != HS_OK) {
        if (must_load)
            abort();
        return;
    }
    fuzz_abort_unless_same(w, back);
    hs_workload_free(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    hs_workload *w = (hs_workload *)&w; /* must come back NULL on failure */
    hs_error err;
    int rc = hs__workload_load_buffer_way("fuzz.json", (const char *)data, size, HS__LOAD_JSON,
                                          &w, &err);
    if (rc == HS_OK) {
        size_t len;
        char *json;
        if (!w || !w->finalized || w->graph.ntasks == 0)
            abort();
        if ((json = fuzz_dump(w, 1, &len)) != NULL)
            same(w, json, len, HS__LOAD_JSON, 1);
        free(json);
        same(w, (const char *)data, size, HS__LOAD_STREAM, 0);
    } else if (!fuzz_load_refusal_ok(rc, w, &err, "fuzz.json")) {
        abort();
    }
    hs_workload_free(w);
    return 0;
}
