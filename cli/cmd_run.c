/* hetsched run — executes a workload with one policy on the real backends
 * (exec/data.h), checks every typed kernel, and sets the measured makespan
 * beside the one the same policy gets in the simulator. */
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "exec/data.h"
#include "exec/engine.h"
#include "mapper/perfmodel.h"

static int run_main(int argc, char **argv);

const hs_cli_cmd hs_cmd_run = {
    .name = "run",
    .summary = "execute a workload with one policy on CPU worker threads (cpu or emu)",
    .usage = "usage: hetsched run -a ALGO WORKLOAD [options]\n"
             "\n"
             "Executes WORKLOAD with policy ALGO: typed kernels run for real on host\n"
             "buffers and are checked against their reference, cost-only kernels sleep\n"
             "their cost.  Prints the measured makespan, the makespan the same policy\n"
             "predicts in the simulator and their ratio, each device's busy time and the\n"
             "bytes moved on each link.  Exit status 1 when a kernel's check fails.\n"
             "\n"
             "options:\n"
             "  -a, --algorithm ALGO  the policy (required; `hetsched map -a help`)\n"
             "  --backend NAME        cpu: one worker thread per device, all on host\n"
             "                        memory (cpu devices only); emu: each memory is a\n"
             "                        separate memory space and inputs are copied to it\n"
             "                        (default: cpu when every device is a cpu, else emu)\n"
             "  --json FILE           write the measured schedule as JSON ('-' for stdout)\n"
             "  --trace FILE          write it as a Chrome trace ('-' for stdout)\n"
             "  --gantt FILE          draw it, FILE.png or FILE.svg\n"
             "  --seed N              seed of the `random` policy (default 0)\n"
             "  --model FILE          performance model (JSON) for typed kernels' costs\n"
             "  -h, --help            this text\n"
             "\n"
             "The schedule's transfers are the delay model's, derived from the measured\n"
             "placements; its makespan is the measured one.\n",
    .main = run_main,
};

/* The latest end of a placement: what the run really took. */
static double measured_makespan(const hs_schedule *s)
{
    double m = 0;
    for (size_t i = 0; i < s->nplacements; i++)
        if (s->placements[i].end_us > m)
            m = s->placements[i].end_us;
    return m;
}

/* Per-device busy time and task count, then the links that moved bytes. */
static void summarise(FILE *out, const hs_workload *w, const hs_schedule *s,
                      const hs_run_report *r)
{
    const hs_platform *p = &w->platform;
    int width = 6;
    size_t copies = 0;
    for (int i = 0; i < r->nmemories * r->nmemories; i++)
        copies += r->link_copies[i];
    for (int d = 0; d < p->ndevices; d++)
        if ((int)strlen(p->devices[d].name) > width)
            width = (int)strlen(p->devices[d].name);
    for (int d = 0; d < p->ndevices; d++) {
        double busy = 0;
        size_t count = 0;
        for (size_t i = 0; i < s->nplacements; i++)
            if (s->placements[i].device == d) {
                busy += s->placements[i].end_us - s->placements[i].start_us;
                count++;
            }
        fprintf(out, "  %-*s %s  busy %12.3f us  %5.1f%%  %zu tasks\n", width,
                p->devices[d].name, hs_device_kind_name(p->devices[d].kind), busy,
                s->makespan_us > 0 ? 100.0 * busy / s->makespan_us : 0.0, count);
    }
    fprintf(out, "bytes moved per link:%s\n", copies ? "" : " none");
    for (int a = 0; a < r->nmemories; a++)
        for (int b = 0; b < r->nmemories; b++) {
            size_t i = (size_t)a * (size_t)r->nmemories + (size_t)b;
            if (!r->link_copies[i])
                continue;
            fprintf(out, "  %s -> %s  %.0f bytes in %zu copies, %.3f us (%.3f GB/s)\n",
                    p->memories[a], p->memories[b], r->link_bytes[i], r->link_copies[i],
                    r->link_us[i],
                    r->link_us[i] > 0 ? r->link_bytes[i] / r->link_us[i] / 1e3 : 0.0);
        }
}

static int run_main(int argc, char **argv)
{
    enum { OPT_JSON = 256, OPT_GANTT, OPT_TRACE, OPT_SEED, OPT_MODEL, OPT_BACKEND };
    static const struct option longopts[] = {
        {"algorithm", required_argument, NULL, 'a'},
        {"backend", required_argument, NULL, OPT_BACKEND},
        {"json", required_argument, NULL, OPT_JSON},
        {"gantt", required_argument, NULL, OPT_GANTT},
        {"trace", required_argument, NULL, OPT_TRACE},
        {"seed", required_argument, NULL, OPT_SEED},
        {"model", required_argument, NULL, OPT_MODEL},
        {NULL, 0, NULL, 0},
    };
    const char *algo = NULL, *bname = NULL, *model_path = NULL;
    const hs_backend_ops *ops = NULL;
    const hs_policy *pol;
    hs_cli_outputs out = {0};
    hs_perfmodel *model = NULL;
    hs_map_options opt = {0};
    hs_schedule *s = NULL, *pred = NULL;
    hs_run_report report = {0};
    hs_backend b = {0};
    hs_workload *w;
    hs_error err = {0};
    int c, status = 0, rc;
    unsigned long long v;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":a:", longopts, NULL)) != -1) {
        switch (c) {
        case 'a': algo = optarg; break;
        case OPT_BACKEND: bname = optarg; break;
        case OPT_JSON: out.json = optarg; break;
        case OPT_GANTT: out.gantt = optarg; break;
        case OPT_TRACE: out.trace = optarg; break;
        case OPT_MODEL: model_path = optarg; break;
        case OPT_SEED:
            if (hs_cli_parse_whole(optarg, 0, ULONG_MAX, &v) != 0)
                return hs_cli_usage_error(&hs_cmd_run, "--seed wants a whole number >= 0, "
                                          "not '%s'", optarg);
            opt.seed = v;
            break;
        case ':':
            return hs_cli_usage_error(&hs_cmd_run, "option '%s' needs a value",
                                      argv[optind - 1]);
        default:
            return hs_cli_usage_error(&hs_cmd_run, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (!algo)
        return hs_cli_usage_error(&hs_cmd_run, "no policy: give -a ALGO");
    if (!(pol = hs_policy_find(algo))) {
        fprintf(stderr, "hetsched run: unknown policy '%s' (see hetsched map -a help)\n", algo);
        return 2;
    }
    if (bname && (!(ops = hs_backend_find(bname)) || ops == &hs_backend_sim))
        return hs_cli_usage_error(&hs_cmd_run, "--backend wants cpu or emu, not '%s'", bname);
    if (argc - optind != 1)
        return hs_cli_usage_error(&hs_cmd_run, "expected one WORKLOAD, got %d arguments",
                                  argc - optind);
    if (!(w = hs_cli_load_model(argv[optind], model_path, &model, &status)))
        return status;
    opt.perfmodel = model;
    if (!ops) {
        ops = &hs_backend_cpu;
        for (int d = 0; d < w->platform.ndevices; d++)
            if (w->platform.devices[d].kind != HS_DEVICE_CPU)
                ops = &hs_backend_emu;
    }
    b.ops = ops;
    b.state = &report;
    rc = hs_map(w, algo, &opt, &pred, NULL, &err);
    if (rc == HS_OK)
        rc = hs_engine_run(w, pol, &opt, &b, &s, NULL, &err);
    if (rc == HS_OK) {
        s->makespan_us = measured_makespan(s);
        rc = hs_cli_write_outputs(w, s, &out, &err);
    }
    if (rc == HS_OK) {
        FILE *o = hs_cli_outputs_use_stdout(&out) ? stderr : stdout;
        fprintf(o, "policy %s on %s, backend %s: measured makespan %.3f us\n", algo,
                argv[optind], ops->name, s->makespan_us);
        fprintf(o, "predicted makespan %.3f us (measured / predicted %.3f)\n",
                pred->makespan_us,
                pred->makespan_us > 0 ? s->makespan_us / pred->makespan_us : 0.0);
        fprintf(o, "checked %zu of %zu typed kernels; %zu cost-only tasks slept their cost\n",
                report.checked, report.typed, report.untyped);
        summarise(o, w, s, &report);
    } else {
        status = hs_cli_fail(&err);
    }
    hs_run_report_free(&report);
    hs_schedule_free(s);
    hs_schedule_free(pred);
    hs_workload_free(w);
    hs_perfmodel_free(model);
    return status;
}
