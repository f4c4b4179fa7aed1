/* hetsched — helpers shared by the exporters (graph/export_util.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/export_util.h"
#include "graph/numfmt.h"
#include "graph/utf8.h"

/* ColorBrewer Set3, reordered so that the first colours differ most. */
static const char *const palette[] = {
    "#80b1d3", "#fdb462", "#b3de69", "#fb8072", "#bebada", "#8dd3c7",
    "#fccde5", "#ffed6f", "#bc80bd", "#ccebc5", "#d9d9d9", "#ffffb3",
};
#define NPALETTE ((int)(sizeof palette / sizeof palette[0]))

const char *hs__palette_hex(int i)
{
    return palette[((i % NPALETTE) + NPALETTE) % NPALETTE];
}

void hs__palette_rgb(int i, double rgb[3])
{
    unsigned v = (unsigned)strtoul(hs__palette_hex(i) + 1, NULL, 16);
    rgb[0] = ((v >> 16) & 0xff) / 255.0;
    rgb[1] = ((v >> 8) & 0xff) / 255.0;
    rgb[2] = (v & 0xff) / 255.0;
}

void hs__exact_number(double x, char *buf, size_t size)
{
    char text[40];
    if (x == floor(x) && x >= 0 && x < 9007199254740992.0 && !signbit(x)) { /* 2^53 */
        hs__format_u64((unsigned long long)x, text);
    } else if (x == floor(x) && fabs(x) < 9007199254740992.0) {
        snprintf(text, sizeof text, "%.0f", x);
    } else {
        /* a fraction needs more digits than its whole part has: the search
         * starts there, without printf where hs__format_g can tell */
        int back = 0, prec = x == 0 ? 1 : (int)floor(log10(fabs(x))) + 2;
        for (prec = prec < 1 ? 1 : prec; prec <= 17; prec++) {
            if (hs__format_g(x, prec, text, &back) > 0) {
                if (back)
                    break;
                continue;
            }
            snprintf(text, sizeof text, "%.*g", prec, x);
            if (strtod(text, NULL) == x)
                break;
        }
    }
    if (size > 0) { /* as snprintf's "%s" would, without printf: a number a value */
        size_t n = strnlen(text, size - 1);
        memcpy(buf, text, n);
        buf[n] = '\0';
    }
}

void hs__human_bytes(double bytes, char *buf, size_t size)
{
    static const char *const unit[] = {"B", "kB", "MB", "GB", "TB", "PB"};
    int u = 0;
    /* Move up a unit before rounding could print "1e+03". */
    while (fabs(bytes) >= 999.5 && u < 5) {
        bytes /= 1000.0;
        u++;
    }
    snprintf(buf, size, "%.3g %s", bytes, unit[u]);
}

void hs__label(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    if (n < 0)
        buf[0] = '\0';
    else if ((size_t)n >= size)
        hs__utf8_cut(buf);
}

int hs__device_memory(const hs_workload *w, int device)
{
    return device == HS_HOST_DEVICE ? HS_HOST_MEMORY : w->platform.devices[device].memory;
}

static int bad_time(double start, double end)
{
    return !isfinite(start) || !isfinite(end) || end < start;
}

int hs__schedule_check_refs(const hs_workload *w, const hs_schedule *s, hs_error *err)
{
    int nd = w->platform.ndevices;
    if (!w->finalized)
        return hs_error_set(err, HS_EUSAGE, "the workload is not finalized");
    if (!isfinite(s->makespan_us) || s->makespan_us < 0)
        return hs_error_set(err, HS_EINPUT, "makespan must be a finite number >= 0, not %g us",
                            s->makespan_us);
    for (size_t i = 0; i < s->nplacements; i++) {
        const hs_placement *p = &s->placements[i];
        char id[512];
        if (p->task >= w->graph.ntasks)
            return hs_error_set(err, HS_EINPUT, "placement %zu: no task %zu in the workload "
                                "(it has %zu)", i, p->task, w->graph.ntasks);
        hs_task_id(w, &w->graph.tasks[p->task], id, sizeof id);
        if (p->device < 0 || p->device >= nd)
            return hs_error_set(err, HS_EINPUT, "placement %zu (%s): no device %d (there are %d)",
                                i, id, p->device, nd);
        if (bad_time(p->start_us, p->end_us))
            return hs_error_set(err, HS_EINPUT,
                                "placement %zu (%s): times must be finite with start <= end, "
                                "not %g-%g us", i, id, p->start_us, p->end_us);
        if (!(p->fraction > 0 && p->fraction <= 1) || p->nparts < 1 || p->part < 0 ||
            p->part >= p->nparts)
            return hs_error_set(err, HS_EINPUT,
                                "placement %zu (%s): part %d/%d with fraction %g is not a part "
                                "k/n (0 <= k < n) with a fraction in (0, 1]",
                                i, id, p->part, p->nparts, p->fraction);
    }
    for (size_t i = 0; i < s->ntransfers; i++) {
        const hs_transfer *t = &s->transfers[i];
        long np = (long)s->nplacements;
        if ((t->from_placement != HS_NONE && (t->from_placement < 0 || t->from_placement >= np)) ||
            (t->to_placement != HS_NONE && (t->to_placement < 0 || t->to_placement >= np)))
            return hs_error_set(err, HS_EINPUT, "transfer %zu: placements %ld -> %ld, but there "
                                "are %ld placements", i, t->from_placement, t->to_placement, np);
        if (t->from_device < HS_HOST_DEVICE || t->from_device >= nd ||
            t->to_device < HS_HOST_DEVICE || t->to_device >= nd)
            return hs_error_set(err, HS_EINPUT, "transfer %zu: devices %d -> %d, but there are "
                                "%d devices", i, t->from_device, t->to_device, nd);
        if (bad_time(t->start_us, t->end_us) || !isfinite(t->bytes) || t->bytes < 0)
            return hs_error_set(err, HS_EINPUT,
                                "transfer %zu: times must be finite with start <= end and bytes "
                                "finite >= 0, not %g-%g us, %g bytes",
                                i, t->start_us, t->end_us, t->bytes);
    }
    return HS_OK;
}

int hs__link_lanes(const hs_workload *w, const hs_schedule *s, int *lane_of_pair)
{
    int nm = w->platform.nmemories, nlanes = 0;
    for (int i = 0; i < nm * nm; i++)
        lane_of_pair[i] = -1;
    for (size_t i = 0; i < s->ntransfers; i++) {
        int q = hs__device_memory(w, s->transfers[i].from_device);
        int r = hs__device_memory(w, s->transfers[i].to_device);
        if (q != r)
            lane_of_pair[q * nm + r] = 0;
    }
    for (int i = 0; i < nm * nm; i++)
        if (lane_of_pair[i] == 0)
            lane_of_pair[i] = nlanes++;
    return nlanes;
}

int hs__transfer_lane(const hs_workload *w, const hs_transfer *tr, const int *lane_of_pair)
{
    int q = hs__device_memory(w, tr->from_device), r = hs__device_memory(w, tr->to_device);
    return q == r ? -1 : lane_of_pair[q * w->platform.nmemories + r];
}

const hs_task *hs__transfer_task(const hs_workload *w, const hs_schedule *s,
                                 const hs_transfer *tr)
{
    long p = tr->to_placement != HS_NONE ? tr->to_placement : tr->from_placement;
    return p == HS_NONE ? NULL : &w->graph.tasks[s->placements[p].task];
}
