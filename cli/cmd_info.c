/* hetsched info — what a workload holds: devices, memories, links,
 * applications, and the size of its task graph. */
#include <math.h>
#include <stdlib.h>

#include "cli.h"

static int info_main(int argc, char **argv);

const hs_cli_cmd hs_cmd_info = {
    .name = "info",
    .summary = "summarise a workload: platform, applications, task graph",
    .usage = "usage: hetsched info WORKLOAD [options]\n"
             "\n"
             "Loads WORKLOAD (YAML, or a task-graph set: see the README) and prints its\n"
             "devices, the links between their memories, its applications and the size\n"
             "of its task graph.\n"
             HS_CLI_SOURCE_USAGE,
    .main = info_main,
};

static int info_main(int argc, char **argv)
{
    hs_cli_source src = {.cmd = &hs_cmd_info};
    const hs_platform *p;
    hs_workload *w;
    int status = 0, first;
    size_t nbytes = 0;
    if ((status = hs_cli_source_options_only(&src, argc, argv, &first)) != 0)
        return status;
    if (argc - first != 1)
        return hs_cli_usage_error(&hs_cmd_info, "expected one WORKLOAD, got %d arguments",
                                  argc - first);
    if (!(w = hs_cli_load(argv[first], &src, &status)))
        return status;
    p = &w->platform;
    printf("workload %s\n", argv[first]);
    printf("devices (%d):\n", p->ndevices);
    for (int d = 0; d < p->ndevices; d++)
        printf("  %-8s %s, memory %s, %d cores\n", p->devices[d].name,
               hs_device_kind_name(p->devices[d].kind), p->memories[p->devices[d].memory],
               p->devices[d].cores);
    printf("links:\n");
    for (int q = 0; q < p->nmemories; q++)
        for (int r = 0; r < p->nmemories; r++) {
            const hs_link *l = &p->links[q * p->nmemories + r];
            if (l->present)
                printf("  %s -> %s: %g GB/s, %g us\n", p->memories[q], p->memories[r],
                       l->bandwidth_gbps, l->latency_us);
        }
    printf("applications (%d):\n", w->napps);
    for (int a = 0; a < w->napps; a++)
        printf("  %-8s x%d: %d kernels, %d edges\n", w->apps[a].name, w->apps[a].instances,
               w->apps[a].nkernels, w->apps[a].nedges);
    for (size_t e = 0; e < w->graph.nedges; e++)
        nbytes += (size_t)w->graph.edges[e].bytes;
    printf("task graph: %zu tasks, %zu edges, %zu bytes on edges\n", w->graph.ntasks,
           w->graph.nedges, nbytes);
    hs_workload_free(w);
    return 0;
}
