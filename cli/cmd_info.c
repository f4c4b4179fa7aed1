/* hetsched info — what a workload holds: devices, memories, links,
 * applications, and the size of its task graph. */
#include <getopt.h>
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
             "\n"
             "options:\n"
             "  --model FILE   performance model (JSON): costs of typed kernels without\n"
             "                 cost_us (a workload that needs one does not load without)\n"
             "  -h, --help     this text\n"
             HS_CLI_SOURCE_USAGE,
    .main = info_main,
};

/* The summary of w, loaded from `path`. */
static void summarise(const hs_workload *w, const char *path)
{
    const hs_platform *p = &w->platform;
    size_t nbytes = 0;
    printf("workload %s\n", path);
    printf("devices (%d):\n", p->ndevices);
    for (int d = 0; d < p->ndevices; d++) {
        printf("  %-8s %s, memory %s, %d core%s", p->devices[d].name,
               hs_device_kind_name(p->devices[d].kind), p->memories[p->devices[d].memory],
               p->devices[d].cores, hs_cli_plural((unsigned)p->devices[d].cores));
        if (p->devices[d].overhead_us > 0)
            printf(", %g us overhead per task", p->devices[d].overhead_us);
        printf("\n");
    }
    if (p->nnodes > 0)
        printf("nodes (%d):\n", p->nnodes);
    for (int n = 0; n < p->nnodes; n++) {
        int ndev = 0;
        for (int d = 0; d < p->ndevices; d++)
            ndev += p->devices[d].node == n;
        printf("  %-8s host memory %s, %d device%s\n", p->nodes[n].name,
               p->memories[p->nodes[n].host], ndev, hs_cli_plural((unsigned)ndev));
    }
    printf("links:\n");
    for (int q = 0; q < p->nmemories; q++)
        for (int r = 0; r < p->nmemories; r++) {
            const hs_link *l = &p->links[q * p->nmemories + r];
            if (l->present && !l->route)
                printf("  %s -> %s: %g GB/s, %g us\n", p->memories[q], p->memories[r],
                       l->bandwidth_gbps, l->latency_us);
        }
    for (int a = 0, any = 0; a < p->nnodes; a++)
        for (int b = 0; b < p->nnodes; b++) {
            const hs_net_link *l = &p->network[a * p->nnodes + b];
            if (l->present)
                printf("%s  %s -> %s: %g GB/s, %g us%s\n", any++ ? "" : "network:\n",
                       p->nodes[a].name, p->nodes[b].name, l->bandwidth_gbps, l->latency_us,
                       l->gpu_direct ? ", reaches device memory (gpu_direct)" : "");
        }
    printf("applications (%d):\n", w->napps);
    for (int a = 0; a < w->napps; a++)
        printf("  %-8s x%d: %d kernel%s, %d edge%s\n", w->apps[a].name, w->apps[a].instances,
               w->apps[a].nkernels, hs_cli_plural((unsigned)w->apps[a].nkernels),
               w->apps[a].nedges, hs_cli_plural((unsigned)w->apps[a].nedges));
    for (size_t e = 0; e < w->graph.nedges; e++)
        nbytes += (size_t)w->graph.edges[e].bytes;
    printf("task graph: %zu task%s, %zu edge%s, %zu byte%s on edges\n", w->graph.ntasks,
           hs_cli_plural(w->graph.ntasks), w->graph.nedges, hs_cli_plural(w->graph.nedges),
           nbytes, hs_cli_plural(nbytes));
}

static int info_main(int argc, char **argv)
{
    hs_cli_source src = {.cmd = &hs_cmd_info};
    const char *model_path = NULL;
    hs_perfmodel *model = NULL;
    hs_workload *w;
    int status = 0, first;
    if ((status = hs_cli_source_options_only(&src, argc, argv, &model_path, &first)) != 0)
        return status;
    if (argc - first != 1)
        return hs_cli_usage_error(&hs_cmd_info, "expected one WORKLOAD, got %d argument%s",
                                  argc - first, hs_cli_plural((unsigned)(argc - first)));
    if (!(w = hs_cli_load_model(argv[first], &src, model_path, &model, &status)))
        return status;
    summarise(w, argv[first]);
    hs_workload_free(w);
    hs_perfmodel_free(model);
    return 0;
}
