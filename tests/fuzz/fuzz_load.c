/* libFuzzer target for the workload loader: any input must either load a
 * finalized workload or fail cleanly with one line "fuzz...: error: ..."
 * and nothing returned.  Leaks and memory errors are the sanitizers' job;
 * a broken contract aborts here so that the fuzzer reports it too. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hetsched/load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    hs_workload *w = (hs_workload *)&w; /* must come back NULL on failure */
    hs_error err;
    int rc = hs_workload_load_buffer("fuzz.yaml", (const char *)data, size, &w, &err);
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
    } else {
        if (w != NULL || rc != err.code || (rc != HS_EINPUT && rc != HS_ENOMEM))
            abort();
        if (strncmp(err.msg, "fuzz.yaml", 9) != 0 || strchr(err.msg, '\n'))
            abort();
        if (rc == HS_EINPUT && !strstr(err.msg, ": error: "))
            abort();
    }
    hs_workload_free(w);
    return 0;
}
