/* placeholder: the loader is being written */
#include "hetsched/load.h"
int hs_workload_load_file(const char *path, hs_workload **out, hs_error *err)
{
    (void)out;
    return hs_error_set(err, HS_ENOTBUILT, "%s: loader not written yet", path);
}
int hs_workload_load_buffer(const char *name, const char *data, size_t len, hs_workload **out,
                            hs_error *err)
{
    (void)data; (void)len; (void)out;
    return hs_error_set(err, HS_ENOTBUILT, "%s: loader not written yet", name);
}
