/* libFuzzer target for the performance model's JSON reader
 * (mapper/perfmodel.c): any input must either load a model that answers
 * predictions and saves again, or be refused with one printable, located
 * line "fuzz.json:LINE:COL: error: ..." and nothing returned. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_util.h"
#include "mapper/perfmodel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const types[] = {"gemm", "va", "x"}, *const devices[] = {"cpu0", "gpu"};
    hs_perfmodel *m = (hs_perfmodel *)&m; /* must come back NULL on failure */
    hs_error err;
    int rc = hs_perfmodel_load_buffer("fuzz.json", (const char *)data, size, &m, &err);
    if (rc == HS_OK) {
        if (!m)
            abort();
        for (int t = 0; t < 3; t++)
            for (int d = 0; d < 2; d++) {
                double us = -1;
                int prc = hs_perfmodel_predict(m, types[t], d ? "" : "n=1000", 1000, devices[d],
                                               &us, NULL, &err);
                if (prc == HS_OK ? !(us >= 0) : prc != HS_EINPUT || !fuzz_one_line(err.msg))
                    abort();
            }
        if (hs_perfmodel_save(m, "/dev/null", &err) != HS_OK)
            abort();
    } else if (m || rc != err.code || (rc != HS_EINPUT && rc != HS_ENOMEM) ||
               !fuzz_message_ok(&err, "fuzz.json")) {
        abort();
    }
    hs_perfmodel_free(rc == HS_OK ? m : NULL);
    return 0;
}
