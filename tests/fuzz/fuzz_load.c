/* libFuzzer target for the workload loader: any input must either load a
 * finalized workload or fail cleanly with one line "fuzz...: error: ..."
 * and nothing returned; what the one-pass reader loads, the full one loads
 * the same (the same YAML written back).  Leaks and memory errors are the
 * sanitizers' job; a broken contract aborts here so that the fuzzer reports
 * it too. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "graph/load_int.h"
#include "hetsched/hetsched.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Aborts when the one-pass reader loads what the full one refuses or
 * builds differently. */
static void one_pass_agrees(const uint8_t *data, size_t size)
{
    hs_workload *ws = NULL, *wt = NULL;
    hs_error err;
    if (hs__workload_load_buffer_way("fuzz.yaml", (const char *)data, size, HS__LOAD_STREAM,
                                     &ws, &err) != HS_OK)
        return;
    if (hs__workload_load_buffer_way("fuzz.yaml", (const char *)data, size, HS__LOAD_TREE, &wt,
                                     &err) != HS_OK)
        abort();
    fuzz_abort_unless_same(ws, wt);
    hs_workload_free(ws);
    hs_workload_free(wt);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    hs_workload *w = (hs_workload *)&w; /* must come back NULL on failure */
    hs_error err;
    int rc = hs_workload_load_buffer("fuzz.yaml", (const char *)data, size, &w, &err);
    one_pass_agrees(data, size);
    if (rc == HS_OK) {
        char id[HS_TASK_ID_MAX];
        if (!w || !w->finalized || w->graph.ntasks == 0)
            abort();
        /* every task has an id that parses back to itself (on small graphs:
         * a hostile input may legally expand to a million tasks) */
        for (size_t t = 0; t < w->graph.ntasks && w->graph.ntasks <= 4096; t++) {
            size_t back;
            int part, nparts;
            hs_task_id(w, &w->graph.tasks[t], id, sizeof id);
            if (hs_task_parse_id(w, id, &back, &part, &nparts, &err) != HS_OK || back != t)
                abort();
        }
    } else if (!fuzz_load_refusal_ok(rc, w, &err, "fuzz.yaml")) {
        abort();
    }
    hs_workload_free(w);
    return 0;
}
