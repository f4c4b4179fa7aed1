/* hetsched — a schedule's per-task and per-device statistics as CSV
 * (include/hetsched/schedule.h), for spreadsheets and data frames.  Names
 * may hold commas but never a double quote (graph.h), so every name is
 * written between double quotes and nothing needs escaping (RFC 4180).
 * Times in µs with 15 significant digits. */
#include <stdio.h>
#include <stdlib.h>

#include "graph/export_util.h"
#include "graph/schedule_int.h"
#include "hetsched/output.h"
#include "hetsched/schedule.h"

/* Checks s against w, opens `path` and writes `header`; HS_OK or the error. */
static int open_csv(const hs_workload *w, const hs_schedule *s, const char *path,
                    const char *header, hs_output *o, hs_error *err)
{
    int rc;
    if ((rc = hs__schedule_check_refs(w, s, err)) != HS_OK ||
        (rc = hs_output_open(o, path, err)) != HS_OK)
        return rc;
    fputs(header, o->f);
    return HS_OK;
}

static int close_csv(hs_output *o, hs_error *err)
{
    return hs_output_close(o, ferror(o->f) ? hs_output_error(o, err) : HS_OK, err);
}

int hs_schedule_write_tasks_csv(const hs_workload *w, const hs_schedule *s, const char *path,
                                hs_error *err)
{
    char id[HS_TASK_ID_MAX];
    hs_output o;
    int rc = open_csv(w, s, path, "task,device,start_us,end_us,duration_us,fraction\n", &o, err);
    if (rc != HS_OK)
        return rc;
    for (size_t i = 0; i < s->nplacements; i++) {
        const hs_placement *p = &s->placements[i];
        hs__placement_id(w, p, id, sizeof id);
        fprintf(o.f, "\"%s\",\"%s\",%.15g,%.15g,%.15g,%.15g\n", id,
                w->platform.devices[p->device].name, p->start_us, p->end_us,
                p->end_us - p->start_us, p->fraction);
    }
    return close_csv(&o, err);
}

int hs_schedule_write_devices_csv(const hs_workload *w, const hs_schedule *s, const char *path,
                                  hs_error *err)
{
    const hs_platform *pf = &w->platform;
    hs_device_stats *ds = NULL;
    hs_output o;
    int rc = open_csv(w, s, path, "device,kind,memory,tasks,busy_us,utilisation\n", &o, err);
    if (rc != HS_OK)
        return rc;
    ds = calloc((size_t)pf->ndevices + 1, sizeof *ds);
    if (!ds || hs_schedule_device_stats(w, s, ds, err) != HS_OK) {
        rc = hs_output_close(&o, hs_error_set(err, HS_ENOMEM, "out of memory"), err);
    } else {
        for (int d = 0; d < pf->ndevices; d++)
            fprintf(o.f, "\"%s\",%s,\"%s\",%zu,%.15g,%.15g\n", pf->devices[d].name,
                    hs_device_kind_name(pf->devices[d].kind),
                    pf->memories[pf->devices[d].memory], ds[d].tasks, ds[d].busy_us,
                    s->makespan_us > 0 ? ds[d].busy_us / s->makespan_us : 0.0);
        rc = close_csv(&o, err);
    }
    free(ds);
    return rc;
}
