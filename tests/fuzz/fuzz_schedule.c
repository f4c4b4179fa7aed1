/* libFuzzer target for the schedule JSON reader (graph/schedule_json.c)
 * and, behind it, the validator: any input must either read a schedule of
 * the fuzz workload (tests/fuzz/fuzz_util.h) that validates or is refused
 * with HS_EINVALID, or be refused with one printable, located line
 * "fuzz.json:LINE:COL: error: ..." and nothing returned; a schedule read
 * runs as given or is refused in one line (fuzz_given).  Leaks and memory
 * errors are the sanitizers' job; a broken contract aborts here so that the
 * fuzzer reports it too. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static hs_workload *w;
    hs_schedule *s = NULL;
    hs_error err;
    int rc;
    if (!w && !(w = fuzz_workload()))
        abort();
    rc = hs_schedule_read_json_buffer(w, "fuzz.json", (const char *)data, size, &s, &err);
    if (rc == HS_OK) {
        if (!s)
            abort();
        rc = hs_schedule_validate(w, s, &err);
        if (rc != HS_OK && (rc != HS_EINVALID || !fuzz_one_line(err.msg)))
            abort();
        if (fuzz_given(w, s, rc == HS_OK) < 0)
            abort();
    } else if (s || rc != err.code || (rc != HS_EINPUT && rc != HS_ENOMEM) ||
               !fuzz_message_ok(&err, "fuzz.json")) {
        abort();
    }
    hs_schedule_free(s);
    return 0;
}
