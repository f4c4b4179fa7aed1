/* hetsched model — what a performance model (hetsched/perfmodel.h) holds:
 * each history entry beside its fit, as a table and as a picture; and the
 * helpers that calibrate --for and run --update-model print and update
 * models with. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static int model_main(int argc, char **argv);

const hs_cli_cmd hs_cmd_model = {
    .name = "model",
    .summary = "show a performance model: each entry's history beside its fit",
    .usage = "usage: hetsched model show FILE [--plot F.png|F.svg]\n"
             "\n"
             "Prints each history entry of the performance model FILE (as calibrate\n"
             "and run --update-model write it) beside the fit of its type and device:\n"
             "\n"
             "  type, device  the kernel type and the device it was measured on\n"
             "  params        the kernel's params that differ from their defaults\n"
             "                (-: an entry without params; part: a part of a split\n"
             "                kernel, at its share of the flops)\n"
             "  D             the kernel's size, its flops\n"
             "  n             samples recorded (the median and spread are over a\n"
             "                window of 32, a run's 8 at most, spread evenly over it)\n"
             "  median us     what the model predicts for this kernel\n"
             "  spread        median absolute deviation, in % of the median\n"
             "  fit us        the a*D^b+c fit of the type and device at D (- : none)\n"
             "  median/fit    how far the fit is from the measurements there\n"
             "\n"
             "then the fits.  Rows are sorted by type, device and D.  Two types are not\n"
             "kernels: overhead (a device's wait per task, run --update-model) and link\n"
             "(device FROM->TO: the time of 1 MB beyond the link's latency, so that\n"
             "1000 / median is its GB/s).\n"
             "\n"
             "options:\n"
             "  --plot FILE    draw every sample, each entry's median and the fits per\n"
             "                 type (time against D, log-log, a colour per device),\n"
             "                 FILE.png or FILE.svg (needs cairo)\n"
             "  -h, --help     this text\n",
    .main = model_main,
};

/* --------------------------------------------------------------- table */

/* Entries by type, device, D, then params. */
static int by_name_and_size(const void *pa, const void *pb)
{
    const hs_perf_entry *a = pa, *b = pb;
    int c = strcmp(a->type, b->type);
    if (!c)
        c = strcmp(a->device, b->device);
    if (!c)
        c = (a->size > b->size) - (a->size < b->size);
    return c ? c : strcmp(a->params, b->params);
}

/* Widens a column to hold s. */
static void widen(int *width, const char *s)
{
    if ((int)strlen(s) > *width)
        *width = (int)strlen(s);
}

int hs_cli_model_table(FILE *out, const hs_perfmodel *m)
{
    size_t n = hs_perfmodel_entries(m), nf = hs_perfmodel_fits(m);
    hs_perf_entry *e = n ? malloc(n * sizeof *e) : NULL;
    char (*shown)[HS_PERF_PARAMS_MAX] = n ? malloc(n * sizeof *shown) : NULL;
    int wt = 4, wd = 6, wp = 6;
    if (n && (!e || !shown)) {
        free(e);
        free(shown);
        fprintf(stderr, "hetsched: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < n; i++)
        hs_perfmodel_entry(m, i, &e[i]);
    if (n)
        qsort(e, n, sizeof *e, by_name_and_size);
    for (size_t i = 0; i < n; i++) {
        hs_perfmodel_params_short(e[i].type, e[i].params, shown[i], sizeof shown[i]);
        widen(&wt, e[i].type);
        widen(&wd, e[i].device);
        widen(&wp, shown[i]);
    }
    fprintf(out, "history: %zu entr%s\n", n, n == 1 ? "y" : "ies");
    if (n)
        fprintf(out, "  %-*s %-*s %-*s %9s %6s %11s %7s %11s %10s\n", wt, "type", wd, "device",
                wp, "params", "D", "n", "median us", "spread", "fit us", "median/fit");
    for (size_t i = 0; i < n; i++) {
        const hs_perf_history *h = &e[i].h;
        hs_perf_fit f;
        char fit[16] = "-", ratio[16] = "-", spread[16] = "-";
        if (hs_perfmodel_get_fit(m, e[i].type, e[i].device, &f)) {
            double at = hs_perfmodel_fit_eval(&f, e[i].size);
            snprintf(fit, sizeof fit, "%.4g", at);
            if (at > 0)
                snprintf(ratio, sizeof ratio, "%.3f", h->median_us / at);
        }
        if (h->nsamples > 0 && h->median_us > 0)
            snprintf(spread, sizeof spread, "%.1f%%", 100.0 * h->mad_us / h->median_us);
        fprintf(out, "  %-*s %-*s %-*s %9.3g %6ld %11.4g %7s %11s %10s\n", wt, e[i].type, wd,
                e[i].device, wp, shown[i], e[i].size, h->count + h->rejected, h->median_us,
                spread, fit, ratio);
    }
    fprintf(out, "fits: %zu%s\n", nf, nf ? " (cost_us = a * D^b + c, D = flops)" : "");
    for (size_t i = 0; i < nf; i++) {
        const char *type, *device;
        hs_perf_fit f;
        hs_perfmodel_fit_at(m, i, &type, &device, &f);
        fprintf(out, "  %-10s %-6s a %-11.4g b %-8.4f c %-11.4g %d sizes, rms_rel %.4f\n",
                type, device, f.a, f.b, f.c, f.npoints, f.rms_rel);
    }
    free(e);
    free(shown);
    return 0;
}

/* ---------------------------------------------------- run --update-model */

hs_perfmodel *hs_cli_model_open(const char *path, int *status)
{
    hs_perfmodel *m = NULL;
    hs_error err = {0};
    if (access(path, F_OK) != 0 && errno == ENOENT) {
        if (!(m = hs_perfmodel_new())) {
            fprintf(stderr, "hetsched: out of memory\n");
            *status = 1;
        }
        return m;
    }
    if (hs_perfmodel_load(path, &m, &err) != HS_OK)
        *status = hs_cli_fail(&err);
    return m;
}

int hs_cli_model_update(const char *path, hs_perfmodel *m, const hs_workload *w,
                        const hs_schedule *s, FILE *out)
{
    hs_perf_added added;
    hs_error err = {0}, fe = {0};
    if (hs_perfmodel_add_run(m, w, s, &added, &err) != HS_OK)
        return hs_cli_fail(&err);
    /* a fit that fails leaves the history, still a model at measured sizes */
    if (hs_perfmodel_fit(m, &fe) != HS_OK)
        fprintf(stderr, "hetsched: warning: %s\n", fe.msg);
    if (hs_perfmodel_save(m, path, &err) != HS_OK)
        return hs_cli_fail(&err);
    fprintf(out, "model %s: added %zu task times (%zu whole, %zu parts of split kernels)%s%s; "
            "%zu cost-only tasks not recorded; %zu entries, %zu fits\n", path,
            added.whole + added.parts, added.whole, added.parts,
            added.overheads == 0 ? ""
            : added.overheads == 1 ? ", 1 device's overhead per task"
                                   : ", the devices' overheads per task",
            added.links == 0   ? ""
            : added.links == 1 ? ", 1 link's bandwidth"
                               : ", the links' bandwidths",
            added.untyped, hs_perfmodel_entries(m), hs_perfmodel_fits(m));
    return 0;
}

/* ---------------------------------------------------------- the command */

static int model_main(int argc, char **argv)
{
    enum { OPT_PLOT = 256 };
    static const struct option longopts[] = {
        {"plot", required_argument, NULL, OPT_PLOT},
        {NULL, 0, NULL, 0},
    };
    const char *plot = NULL;
    hs_perfmodel *m = NULL;
    hs_error err = {0};
    int c, status;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_PLOT: plot = optarg; break;
        case ':':
            return hs_cli_usage_error(&hs_cmd_model, "option '%s' needs a value",
                                      argv[optind - 1]);
        default:
            return hs_cli_usage_error(&hs_cmd_model, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind == argc)
        return hs_cli_usage_error(&hs_cmd_model, "expected an action: show FILE");
    if (strcmp(argv[optind], "show") != 0)
        return hs_cli_usage_error(&hs_cmd_model, "unknown action '%s' (expected show)",
                                  argv[optind]);
    if (argc - optind != 2)
        return hs_cli_usage_error(&hs_cmd_model, "show wants one FILE, got %d arguments",
                                  argc - optind - 1);
    if (hs_perfmodel_load(argv[optind + 1], &m, &err) != HS_OK)
        return hs_cli_fail(&err);
    fprintf(stdout, "model %s\n", argv[optind + 1]);
    status = hs_cli_model_table(stdout, m);
    if (status == 0 && plot && hs_perfmodel_plot(m, plot, &err) != HS_OK)
        status = hs_cli_fail(&err);
    hs_perfmodel_free(m);
    return status;
}
