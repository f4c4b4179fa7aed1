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

#include "graph/load_int.h"
#include "hetsched/hetsched.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The workload as YAML, or in the JSON form (a string to free), or NULL. */
static char *dump(const hs_workload *w, int json, size_t *len)
{
    char *text = NULL;
    hs_error err;
    FILE *f = open_memstream(&text, len);
    if (!f)
        return NULL;
    if ((json ? hs_workload_write_json(w, f, &err) : hs_workload_write_yaml(w, f, &err)) !=
        HS_OK) {
        fclose(f);
        free(text);
        return NULL;
    }
    fclose(f);
    return text;
}

/* Aborts when `text` loads (by `way`) to another workload than w. */
static void same(const hs_workload *w, const char *text, size_t len, hs__load_way way,
                 int must_load)
{
    hs_workload *back = NULL;
    hs_error err;
    size_t n;
    char *a, *b;
    if (hs__workload_load_buffer_way("fuzz.json", text, len, way, &back, &err) != HS_OK) {
        if (must_load)
            abort();
        return;
    }
    a = dump(w, 0, &n);
    b = dump(back, 0, &n);
    if (a && b && strcmp(a, b) != 0)
        abort();
    free(a);
    free(b);
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
        if ((json = dump(w, 1, &len)) != NULL)
            same(w, json, len, HS__LOAD_JSON, 1);
        free(json);
        same(w, (const char *)data, size, HS__LOAD_STREAM, 0);
    } else {
        if (w != NULL || rc != err.code || (rc != HS_EINPUT && rc != HS_ENOMEM))
            abort();
        if (strncmp(err.msg, "fuzz.json", 9) != 0 || strchr(err.msg, '\n'))
            abort();
        if (rc == HS_EINPUT && !strstr(err.msg, ": error: "))
            abort();
    }
    hs_workload_free(w);
    return 0;
}
