/* hetsched calibrate — measures this machine's kernel costs and links
 * (exec/calibrate.h) and writes the performance model and the platform. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int calibrate_main(int argc, char **argv);

const hs_cli_cmd hs_cmd_calibrate = {
    .name = "calibrate",
    .summary = "measure kernel costs and links on this machine: performance model, platform",
    .usage = "usage: hetsched calibrate [options]\n"
             "\n"
             "Measures each kernel type (--types help lists them) at several sizes, or\n"
             "exactly the typed kernels of a workload (--for), on the CPU and on every\n"
             "CUDA GPU found, and the bandwidth and latency between the host and each\n"
             "GPU (pinned memory) and between GPUs (peer copies).  Every measurement is\n"
             "repeated after a warm-up run; the model keeps every run and predicts their\n"
             "median.  Writes the performance model (history per kernel and device, and\n"
             "a*D^b+c fit per type and device, D = the kernel's flops) for --model of\n"
             "map, run, compare and optimal, and the platform section of a workload\n"
             "with the devices and measured links.  Without CUDA built in or without a\n"
             "GPU it measures the CPU alone and says why.\n"
             "\n"
             "options:\n"
             "  --out-model FILE      performance model, JSON ('-' for stdout; default\n"
             "                        hetsched-model.json)\n"
             "  --out-platform FILE   platform YAML ('-' for stdout; default\n"
             "                        hetsched-platform.yaml)\n"
             "  --for WORKLOAD        measure each distinct typed kernel (type and params)\n"
             "                        of WORKLOAD once per device, however long it runs,\n"
             "                        instead of sizes of each type: the model then\n"
             "                        predicts its kernels from their own history, not\n"
             "                        from the fit; a splittable one is measured again\n"
             "                        in the part ad-part gives each device (its speed's\n"
             "                        share of the items), recorded as a part\n"
             "  --types LIST          kernel types, comma-separated (default: all; help\n"
             "                        lists them)\n"
             "  --sizes WHICH         quick: flops 1e4 .. 1e8 by decades, buffers up to\n"
             "                        64 MiB; full: 1e4 .. 1e10 by half decades, up to\n"
             "                        1 GiB; or a comma list of values of each type's size\n"
             "                        param (n, or hits for pi) (default quick)\n"
             "  --reps N              timed runs per measurement, 3 or more (default 5,\n"
             "                        10 with --sizes full)\n"
             "  --devices LIST        cpu, gpu (every GPU), gpu0, gpu1, ... comma-separated\n"
             "                        (default: the CPU and every GPU found)\n"
             "  --threads N           threads of the CPU device (default: with --for the\n"
             "                        cores of the workload's cpu device when it gives\n"
             "                        them, else the online processors)\n"
             "  -q, --quiet           no progress lines on stderr\n"
             "  -h, --help            this text\n"
             HS_CLI_SOURCE_USAGE
             "\n"
             "--types and --sizes do not combine with --for.  A type's larger sizes are\n"
             "skipped on a device once one run there takes over 0.2 s (quick) or 2 s\n"
             "(full).  Use the files as\n"
             "  hetsched map -a dmda WORKLOAD --model hetsched-model.json\n"
             "with the platform section of WORKLOAD taken from hetsched-platform.yaml.\n",
    .main = calibrate_main,
};

/* Sweep rows: the fit of each type and device. */
static void fit_rows(FILE *out, const hs_calib_result *r)
{
    fprintf(out, "kernel costs: cost_us = a * D^b + c, D = flops\n");
    fprintf(out, "  %-10s %-6s %5s %8s %8s %11s %7s %11s %8s %11s\n", "type", "device", "sizes",
            "samples", "rejected", "a", "b", "c", "rms_rel", "us at Dmax");
    for (int i = 0; i < r->nrows; i++) {
        const hs_calib_row *row = &r->rows[i];
        if (row->nsizes == 0)
            fprintf(out, "  %-10s %-6s %5d  not measured%s%s\n", row->type, row->device, 0,
                    row->note[0] ? ": " : "", row->note);
        else if (row->fitted)
            fprintf(out, "  %-10s %-6s %5d %8ld %8ld %11.4g %7.4f %11.4g %8.4f %11.4g\n",
                    row->type, row->device, row->nsizes, row->samples, row->rejected,
                    row->fit.a, row->fit.b, row->fit.c, row->fit.rms_rel, row->dmax_us);
        else
            fprintf(out, "  %-10s %-6s %5d %8ld %8ld %11s %7s %11s %8s %11.4g\n", row->type,
                    row->device, row->nsizes, row->samples, row->rejected, "-", "-", "-",
                    "-", row->dmax_us);
    }
}

/* The devices; the fits, or with a workload (--for) each of its kernels
 * beside the fit and what was left out; then the links.  0, or 1 when out
 * of memory. */
static int report(FILE *out, const hs_calib_result *r, const char *workload)
{
    const hs_platform *p = &r->platform->platform;
    fprintf(out, "devices:");
    for (int d = 0; d < p->ndevices; d++) {
        int k = atoi(p->devices[d].name + 3);
        if (p->devices[d].kind == HS_DEVICE_CPU)
            fprintf(out, "%s %s (host, %d thread%s)", d ? "," : "", p->devices[d].name,
                    r->threads, r->threads > 1 ? "s" : "");
        else
            fprintf(out, "%s %s (%s)", d ? "," : "", p->devices[d].name,
                    k < 8 ? r->gpu_names[k] : "CUDA GPU");
    }
    fprintf(out, "\n");
    if (r->ngpus == 0)
        fprintf(out, "no GPU measured: %s\n", r->gpu_note);
    if (!workload) {
        fit_rows(out, r);
    } else {
        fprintf(out, "kernel costs of %s: the median of each kernel's runs\n", workload);
        if (hs_cli_model_table(out, r->model) != 0)
            return 1;
        for (int i = 0; i < r->nrows; i++)
            if (r->rows[i].note[0])
                fprintf(out, "  %s on %s: %s\n", r->rows[i].type, r->rows[i].device,
                        r->rows[i].note);
    }
    if (r->nlinks == 0)
        fprintf(out, "links: none (one memory)\n");
    else
        fprintf(out, "links: bandwidth of %zu MiB copies, latency of 1-byte copies\n",
                r->links[0].bytes >> 20);
    for (int i = 0; i < r->nlinks; i++) {
        const hs_calib_link *l = &r->links[i];
        fprintf(out, "  %-6s -> %-6s %9.3f GB/s %9.3f us%s\n", p->memories[l->from],
                p->memories[l->to], l->bandwidth_gbps, l->latency_us,
                l->from != HS_HOST_MEMORY && l->to != HS_HOST_MEMORY
                    ? (l->direct ? "  peer" : "  staged through the host") : "");
    }
    return 0;
}

static int calibrate_main(int argc, char **argv)
{
    enum { OPT_MODEL = 256, OPT_PLATFORM, OPT_FOR, OPT_TYPES, OPT_SIZES, OPT_REPS, OPT_DEVICES,
           OPT_THREADS };
    static const struct option longopts[] = {
        {"out-model", required_argument, NULL, OPT_MODEL},
        {"out-platform", required_argument, NULL, OPT_PLATFORM},
        {"for", required_argument, NULL, OPT_FOR},
        {"types", required_argument, NULL, OPT_TYPES},
        {"sizes", required_argument, NULL, OPT_SIZES},
        {"reps", required_argument, NULL, OPT_REPS},
        {"devices", required_argument, NULL, OPT_DEVICES},
        {"threads", required_argument, NULL, OPT_THREADS},
        {"quiet", no_argument, NULL, 'q'},
        HS_CLI_SOURCE_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    hs_cli_source src = {.cmd = &hs_cmd_calibrate};
    const char *model_path = "hetsched-model.json", *platform_path = "hetsched-platform.yaml";
    const char *for_path = NULL;
    hs_load_options lo = {.cost_fn = hs_calib_cost_fn};
    hs_workload *w = NULL;
    hs_calib_options o = {.log = stderr};
    hs_calib_result r;
    hs_error err = {0};
    unsigned long long v;
    int c, rc, status = 0;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":q", longopts, NULL)) != -1) {
        int taken = hs_cli_source_option(&src, c, optarg);
        if (taken < 0)
            return 2;
        if (taken)
            continue;
        switch (c) {
        case OPT_MODEL: model_path = optarg; break;
        case OPT_PLATFORM: platform_path = optarg; break;
        case OPT_FOR: for_path = optarg; break;
        case OPT_TYPES: o.types = optarg; break;
        case OPT_SIZES: o.sizes = optarg; break;
        case OPT_DEVICES: o.devices = optarg; break;
        case 'q': o.log = NULL; break;
        case OPT_REPS:
            if (hs_cli_parse_whole(optarg, 3, 100000, &v) != 0)
                return hs_cli_usage_error(&hs_cmd_calibrate, "--reps wants a whole number "
                                          "from 3 to 100000, not '%s'", optarg);
            o.reps = (int)v;
            break;
        case OPT_THREADS:
            if (hs_cli_parse_whole(optarg, 1, 1024, &v) != 0)
                return hs_cli_usage_error(&hs_cmd_calibrate, "--threads wants a whole number "
                                          "from 1 to 1024, not '%s'", optarg);
            o.threads = (int)v;
            break;
        case ':':
            return hs_cli_usage_error(&hs_cmd_calibrate, "option '%s' needs a value",
                                      argv[optind - 1]);
        default:
            return hs_cli_usage_error(&hs_cmd_calibrate, "unknown option '%s'",
                                      argv[optind - 1]);
        }
    }
    if (o.types && strcmp(o.types, "help") == 0) {
        hs_ktype_help(stdout);
        return 0;
    }
    if (optind < argc)
        return hs_cli_usage_error(&hs_cmd_calibrate, "unexpected argument '%s'", argv[optind]);
    if (!model_path[0] || !platform_path[0])
        return hs_cli_usage_error(&hs_cmd_calibrate, "an output file name is empty");
    if (strcmp(model_path, "-") == 0 && strcmp(platform_path, "-") == 0)
        return hs_cli_usage_error(&hs_cmd_calibrate, "--out-model and --out-platform cannot "
                                  "both be stdout");
    if (!for_path && hs_cli_source_given(&src))
        return hs_cli_usage_error(&hs_cmd_calibrate, "%s is about the workload of --for",
                                  hs_cli_source_given(&src));
    if (for_path && !(w = hs_cli_load_opts(for_path, &src, &lo, &status)))
        return status;
    o.workload = w;
    rc = hs_calibrate(&o, &r, &err);
    if (rc == HS_EINPUT) {
        hs_calib_result_free(&r);
        hs_workload_free(w);
        return hs_cli_usage_error(&hs_cmd_calibrate, "%s", err.msg);
    }
    if (rc == HS_OK)
        rc = hs_perfmodel_save(r.model, model_path, &err);
    if (rc == HS_OK)
        rc = hs_calib_write_platform(&r, platform_path, &err);
    if (rc == HS_OK) {
        FILE *out = strcmp(model_path, "-") == 0 || strcmp(platform_path, "-") == 0 ? stderr
                                                                                    : stdout;
        status = report(out, &r, for_path);
        fprintf(out, "wrote %s and %s%s\n", model_path, platform_path,
                r.nwarnings ? " (with warnings: see above)" : "");
    } else {
        status = hs_cli_fail(&err);
    }
    hs_calib_result_free(&r);
    hs_workload_free(w);
    return status;
}
