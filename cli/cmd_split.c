/* hetsched split — one data-parallel kernel split across devices by a chunk
 * splitter, run in the chunk simulator (hetsched/split.h, as everything
 * below): per-device items, chunks, busy and idle time, the finish-time
 * spread, percent imbalance and Boyer's efficiency; optionally a plot of
 * block size against time (HDSS Fig. 6).  Without --sim the kernel runs for
 * real on the CPU and CUDA GPUs, several splitters in one go. */
#include <float.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static int split_main(int argc, char **argv);

const hs_cli_cmd hs_cmd_split = {
    .name = "split",
    .summary = "split one data-parallel kernel across devices with a chunk splitter",
    .usage =
        "usage: hetsched split -p SPLITTER KERNEL --sim [options]\n"
        "       hetsched split -p SPLITTER[,SPLITTER...|all] KERNEL [real options]\n"
        "       hetsched split -p help | -o help | --kernels\n"
        "\n"
        "Splits one data-parallel kernel across devices with SPLITTER and prints each\n"
        "device's items, chunks, busy and idle time and finish time, the spread of the\n"
        "finish times, the percent imbalance (max - mean) / max * P / (P - 1) * 100 and\n"
        "the efficiency: achieved throughput over the sum of the devices' throughputs\n"
        "when each runs the whole kernel alone.\n"
        "\n"
        "With --sim, KERNEL is a kernel profile (va, xgemm-rows, pi; --kernels lists\n"
        "their figures) run in the chunk simulator.  Without it KERNEL runs for real:\n"
        "a kernel type (va, gemm, pi, trsm, ...: --kernels lists them; xgemm-rows and\n"
        "xgemm are gemm by rows) on the CPU and the CUDA GPUs, one driver\n"
        "thread per device, GPU chunks copied in and out (their time includes the\n"
        "transfers); every device first runs the whole kernel alone, and every result\n"
        "is checked.  va, gemm and pi default to the profiles' sizes (n = 2^24;\n"
        "n = 8192; hits = 2^30).  Several splitters in one -p share the setup, the\n"
        "alone runs and a summary table.\n"
        "\n"
        "options:\n"
        "  -p, --splitter NAME      the splitter (required; -p help lists them)\n"
        "  --items N                items of the kernel (real: sets m of gemm, gemv,\n"
        "                           matadd, trsm, hits = 256 N of pi, n of the others)\n"
        "  -o KEY=VALUE             a splitter option (repeatable; -o help lists them);\n"
        "                           one that a splitter of -p does not read is\n"
        "                           refused (-p all: each splitter reads its own)\n"
        "  --runs N                 run N times, learning across runs (default 1; qilin\n"
        "                           adds a training run when N is 1)\n"
        "  --no-hints               hide the devices' speeds from the splitter (sim: the\n"
        "                           nominal ones; real: those of the alone runs)\n"
        "  --plot FILE              block size against time per device, .png or .svg\n"
        "  --best-static            also search static splits (one chunk per device, up\n"
        "                           to 4 devices): --sim: every split in 1% steps, the\n"
        "                           best one for the nominal devices and its time in this\n"
        "                           run, and the best one for this run; real: 1% steps\n"
        "                           (5% for 3 or 4 devices) run in order of a lower\n"
        "                           bound until it cannot win.  An interrupt (Ctrl-C)\n"
        "                           then stops the search (or, during the runs before\n"
        "                           it, skips it) with the best split so far; a second\n"
        "                           one quits at once\n"
        "  --kernels                list the kernel profiles and the kernel types\n"
        "  -h, --help               this text\n"
        "simulator only:\n"
        "  --sim                    run in the chunk simulator\n"
        "  --devices LIST           NAME:OVERHEAD_US:ITEMS_PER_US[:WIDTH[:GBPS[:LAT_US]]],...\n"
        "                           replacing the profile's devices; a NAME starting with\n"
        "                           'gpu' is a GPU with its own memory (link default\n"
        "                           12 GB/s, 10 us), others compute from host memory\n"
        "  --throttle DEV:T_MS:F    DEV computes F times slower from T_MS on (repeatable)\n"
        "  --fail DEV:T_MS          DEV stops answering at T_MS (repeatable; only for\n"
        "                           splitters marked * in -p help: another device\n"
        "                           takes its chunk over after at most 3 times the\n"
        "                           chunk's expected time, 1 ms at least)\n"
        "  --noise X                chunk compute times times 1 + X u, u uniform in\n"
        "                           [-1, 1] (0 .. 0.9, default 0)\n"
        "  --seed N                 seed of the noise (default 1)\n"
        "real runs only:\n"
        "  --devices LIST           cpu, cpu:THREADS, gpu (every GPU), gpuK, comma-\n"
        "                           separated (default cpu,gpu; CPU devices are named\n"
        "                           cpu0, cpu1, ...)\n"
        "  --cpu-threads T          threads of a CPU device (default: the cores less one\n"
        "                           per GPU, whose driver thread keeps one busy, less one\n"
        "                           for the system)\n"
        "  -P NAME=VALUE            a kernel param (repeatable), e.g. -P n=4096\n"
        "  --params N=V,...         several kernel params\n"
        "  --repeat R               every figure is the median of R runs (default 1)\n"
        "  --chunks FILE            every chunk as CSV: splitter, device, begin, end,\n"
        "                           start and end in us, accepted\n",
    .main = split_main,
};

/* Splits `s` at ':' into at most `max` fields (modifies s); their count. */
static int fields(char *s, char **f, int max)
{
    int n = 0;
    for (char *p = s; n < max;) {
        f[n++] = p;
        if (!(p = strchr(p, ':')))
            break;
        *p++ = '\0';
    }
    return strchr(f[n - 1], ':') ? max + 1 : n;
}

/* --devices LIST into sim->dev (names point into list). */
static int parse_devices(hs_split_sim *sim, char *list)
{
    int n = 0;
    for (char *item = strtok(list, ","); item; item = strtok(NULL, ",")) {
        char *f[6];
        int nf = fields(item, f, 6);
        hs_split_sim_device *v;
        unsigned long long w = 1;
        if (n == HS_SPLIT_MAX_DEVICES)
            return hs_cli_usage_error(&hs_cmd_split, "--devices: at most %d devices",
                                      HS_SPLIT_MAX_DEVICES);
        v = &sim->dev[n];
        memset(v, 0, sizeof *v);
        v->name = f[0];
        v->kind = strncmp(f[0], "gpu", 3) == 0 ? HS_DEVICE_GPU : HS_DEVICE_CPU;
        if (v->kind == HS_DEVICE_GPU) {
            v->bandwidth_gbps = 12;
            v->latency_us = 10;
        }
        if (nf < 3 || nf > 6 || !f[0][0] ||
            hs_cli_parse_real(f[1], 0, HUGE_VAL, &v->overhead_us) != 0 ||
            hs_cli_parse_real(f[2], DBL_MIN, HUGE_VAL, &v->items_per_us) != 0 ||
            (nf > 3 && hs_cli_parse_whole(f[3], 1, 1ULL << 40, &w) != 0) ||
            (nf > 4 && hs_cli_parse_real(f[4], 0, HUGE_VAL, &v->bandwidth_gbps) != 0) ||
            (nf > 5 && hs_cli_parse_real(f[5], 0, HUGE_VAL, &v->latency_us) != 0))
            return hs_cli_usage_error(&hs_cmd_split,
                                      "--devices: '%s' is not NAME:OVERHEAD_US:ITEMS_PER_US"
                                      "[:WIDTH[:GBPS[:LAT_US]]] with numbers >= 0 and a "
                                      "speed > 0",
                                      f[0]);
        v->width = (size_t)w;
        v->cores = (int)(w < INT_MAX ? w : INT_MAX);
        n++;
    }
    if (n == 0)
        return hs_cli_usage_error(&hs_cmd_split, "--devices: no device given");
    sim->ndevices = n;
    return 0;
}

static int find_device(const hs_split_sim *sim, const char *name)
{
    for (int d = 0; d < sim->ndevices; d++)
        if (strcmp(sim->dev[d].name, name) == 0)
            return d;
    return -1;
}

/* One --throttle or --fail (`fail`), applied once the devices are known. */
static int apply_event(hs_split_sim *sim, const char *arg, int fail)
{
    char buf[256], *f[3];
    int nf, d;
    double t, factor = 0;
    snprintf(buf, sizeof buf, "%s", arg);
    nf = fields(buf, f, 3);
    if (nf != (fail ? 2 : 3) || hs_cli_parse_real(f[1], 0, HUGE_VAL, &t) != 0 ||
        (!fail && hs_cli_parse_real(f[2], DBL_MIN, HUGE_VAL, &factor) != 0))
        return hs_cli_usage_error(&hs_cmd_split, fail ? "--fail wants DEV:T_MS, not '%s'"
                                                      : "--throttle wants DEV:T_MS:FACTOR "
                                                        "with FACTOR > 0, not '%s'",
                                  arg);
    if ((d = find_device(sim, f[0])) < 0)
        return hs_cli_usage_error(&hs_cmd_split, "%s: no device '%s'",
                                  fail ? "--fail" : "--throttle", f[0]);
    if (fail) {
        sim->dev[d].fails = 1;
        sim->dev[d].fail_at_us = t * 1000;
    } else {
        sim->dev[d].throttle_at_us = t * 1000;
        sim->dev[d].throttle = factor;
    }
    return 0;
}

static void print_split(const hs_split_sim *sim, const int *pct)
{
    for (int d = 0; d < sim->ndevices; d++)
        printf("%s%s %d%%", d ? ", " : "", sim->dev[d].name, pct[d]);
}

/* --best-static: exhaustive search over static splits in 1% steps; an
 * interrupt stops it with the best split found so far. */
static void best_static(const hs_split_sim *sim, double run_us)
{
    static hs_split_sim nominal;
    int best[HS_SPLIT_MAX_DEVICES] = {0}, oracle[HS_SPLIT_MAX_DEVICES] = {0};
    double t_nominal, t_oracle, t_here;
    long tried[2] = {0, 0}, total = hs_split_sim_static_count(sim->ndevices);
    hs_error err = {0};
    nominal = *sim;
    for (int d = 0; d < nominal.ndevices; d++) {
        nominal.dev[d].throttle = 0;
        nominal.dev[d].fails = 0;
    }
    if (hs_split_sim_best_static(&nominal, &hs_cli_stop, best, &t_nominal, &tried[0], &err) !=
            HS_OK ||
        hs_split_sim_best_static(sim, &hs_cli_stop, oracle, &t_oracle, &tried[1], &err) !=
            HS_OK) {
        printf("%s\n", err.msg);
        return;
    }
    if (tried[1] < total)
        printf("best static splits: interrupted after %ld of %ld splits\n",
               tried[0] + tried[1], 2 * total);
    if (!tried[0]) {
        printf("best static split: none searched\n");
        return;
    }
    t_here = hs_split_sim_static_us(sim, best);
    printf("best static split for the nominal devices (");
    print_split(sim, best);
    printf("): %.3f ms nominal, ", t_nominal / 1000);
    if (isfinite(t_here))
        printf("%.3f ms in this run (splitter %+.1f%%)\n", t_here / 1000,
               100 * (run_us / t_here - 1));
    else
        printf("never finishes in this run\n");
    if (!tried[1])
        return;
    printf("best static split for this run (");
    print_split(sim, oracle);
    if (isfinite(t_oracle))
        printf("): %.3f ms (splitter %+.1f%%)\n", t_oracle / 1000,
               100 * (run_us / t_oracle - 1));
    else
        printf("): none finishes\n");
}

static void report(const hs_split_sim *sim, const char *name, const hs_split_result *r,
                   const char *how)
{
    int width = 6;
    for (int d = 0; d < sim->ndevices; d++)
        if ((int)strlen(sim->dev[d].name) > width)
            width = (int)strlen(sim->dev[d].name);
    printf("split %s on %s (%zu items, %s): makespan %.3f ms\n", name, sim->kernel, sim->items,
           how, r->makespan_us / 1000);
    printf("  %-*s kind %12s %6s %8s %7s %10s %10s %10s %10s\n", width, "device", "items",
           "share", "chunks", "refused", "busy ms", "idle ms", "finish ms", "alone ms");
    for (int d = 0; d < sim->ndevices; d++) {
        const hs_split_dev_result *o = &r->dev[d];
        printf("  %-*s %-4s %12zu %5.1f%% %8zu %7zu %10.3f %10.3f %10.3f ", width,
               sim->dev[d].name, hs_device_kind_name(sim->dev[d].kind), o->items,
               100.0 * (double)o->items / (double)sim->items, o->chunks, o->refused,
               o->busy_us / 1000, o->idle_us / 1000, o->finish_us / 1000);
        if (isfinite(o->alone_us))
            printf("%10.3f\n", o->alone_us / 1000);
        else
            printf("%10s\n", "never");
    }
    for (int d = 0; d < sim->ndevices; d++)
        if (r->dev[d].dead)
            printf("  %s stopped answering at %.3f ms holding %zu chunk(s)\n", sim->dev[d].name,
                   sim->dev[d].fail_at_us / 1000, r->dev[d].lost);
    printf("finish-time spread %.3f ms, imbalance %.1f%%, efficiency %.3f\n",
           r->spread_us / 1000, r->imbalance_pct, r->efficiency);
}

/* ------------------------------------------------------------- real runs */

/* What the real path takes from the command line. */
typedef struct real_args {
    char *splitters;                 /* -p: NAME[,NAME...] or all */
    const char *kernel;
    hs_param params[16];             /* -P, --params; the library refuses more than a type has */
    int nparams;
    unsigned long long items;        /* 0: from the params */
    const char *devices;
    unsigned long long cpu_threads;  /* 0: cores minus one per GPU */
    unsigned long long runs, repeat;
    const hs_split_options *opt;
    int no_hints, best;
    const char *plot;
    FILE *chunks;                    /* --chunks: CSV of every chunk, or NULL */
} real_args;

/* One -P NAME=VALUE (or one entry of --params); names point into s. */
static int add_param(real_args *a, char *s)
{
    char *eq = strchr(s, '=');
    double v;
    if (!eq || eq == s || hs_cli_parse_real(eq + 1, -1e30, 1e30, &v) != 0)
        return hs_cli_usage_error(&hs_cmd_split, "-P wants NAME=NUMBER, not '%s'", s);
    if (a->nparams == (int)(sizeof a->params / sizeof a->params[0]))
        return hs_cli_usage_error(&hs_cmd_split, "at most %zu params",
                                  sizeof a->params / sizeof a->params[0]);
    *eq = '\0';
    a->params[a->nparams++] = (hs_param){s, v};
    return 0;
}

/* Says what each run before the measured one gave. */
static void print_run(void *ctx, unsigned long long run, const hs_split_result *res)
{
    (void)ctx;
    if (run == 0)
        printf("run 0 (training): makespan %.3f ms\n", res->makespan_us / 1000);
    else
        printf("run %llu: makespan %.3f ms, efficiency %.3f\n", run, res->makespan_us / 1000,
               res->efficiency);
}

/* --best-static on real devices (hs_split_real_best_static), reported;
 * *best_us and best[] get the winner. */
static int real_best_static(hs_split_real *r, int ndev, const double *alone,
                            unsigned long long repeat, int *best, double *best_us,
                            hs_error *err)
{
    hs_split_real_best b;
    int rc = hs_split_real_best_static(r, alone, repeat, &hs_cli_stop, &b, err);
    *best_us = b.us;
    if (rc != HS_OK)
        return rc;
    if (hs_cli_stop)
        printf("best static split: interrupted after %d of %d splits; the best so far ",
               b.tried, b.total);
    else
        printf("best static split (%d%% steps; %d of %d splits run, the others' lower bound "
               "share x time alone was already slower): ",
               b.step, b.tried, b.total);
    if (!b.tried) {
        printf("(none)\n");
        return HS_OK;
    }
    memcpy(best, b.pct, (size_t)ndev * sizeof *best);
    for (int d = 0; d < ndev; d++)
        printf("%s%d%%", d ? "/" : "", best[d]);
    printf(" in %.3f ms\n", *best_us / 1000);
    return HS_OK;
}

/* The summary row of one splitter (a Markdown table). */
static void summary_row(const char *name, const hs_split_result *res, int ndev,
                        double best_us, double fastest_us)
{
    char chunks[128] = "";
    size_t len = 0;
    for (int d = 0; d < ndev && len < sizeof chunks; d++)
        len += (size_t)snprintf(chunks + len, sizeof chunks - len, "%s%zu", d ? "+" : "",
                                res->dev[d].chunks);
    printf("| %-10s | %10.3f | %6.3f | %9.1f | %-12s |", name, res->makespan_us / 1000,
           res->efficiency, res->imbalance_pct, chunks);
    if (isfinite(best_us))
        printf(" %+8.1f%% |", 100 * (res->makespan_us / best_us - 1));
    else
        printf(" %9s |", "-");
    printf(" %+8.1f%% |\n", 100 * (res->makespan_us / fastest_us - 1));
}

static int real_main(real_args *a)
{
    const hs_splitter *sps[64];
    hs_split_real_device dev[HS_SPLIT_MAX_DEVICES];
    hs_split_result results[64];
    int ok[64] = {0};
    static hs_split_sim view;
    hs_split_real *r = NULL;
    hs_error err = {0};
    const char *type, *unit;
    size_t items;
    double alone[HS_SPLIT_MAX_DEVICES], fastest = HUGE_VAL, best_us = HUGE_VAL;
    int nsp = 0, ndev, ngpu = 0, status = 0, best[4] = {0}, fastest_d = 0;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    char *save = NULL;
    if (strcmp(a->splitters, "all") == 0) {
        for (const hs_splitter *const *l = hs_splitter_list(); *l && nsp < 64; l++)
            sps[nsp++] = *l;
    } else {
        for (char *s = strtok_r(a->splitters, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
            if (!(sps[nsp] = hs_splitter_find(s)))
                return hs_cli_usage_error(&hs_cmd_split, "unknown splitter '%s' (-p help "
                                          "lists them)", s);
            if (hs_split_options_check(a->opt, sps[nsp], &err) != HS_OK)
                return hs_cli_usage_error(&hs_cmd_split, "%s", err.msg);
            if (++nsp == 64)
                return hs_cli_usage_error(&hs_cmd_split, "at most 63 splitters");
        }
    }
    if (nsp == 0)
        return hs_cli_usage_error(&hs_cmd_split, "no splitter in -p");
    if (a->plot && nsp > 1)
        return hs_cli_usage_error(&hs_cmd_split, "--plot wants one splitter");
    /* the device list twice: first to count the GPUs, whose driver threads
     * each keep a core busy, then with the CPU's default thread count: the
     * cores less one per GPU and one for the system and CUDA's own threads
     * (with every core busy, a CPU chunk waited milliseconds for its last
     * thread to be scheduled: 2.9 ms for 0.2 ms of work on a 16-core H100
     * host) */
    if (hs_split_real_devices(a->devices, 1, dev, &ndev, &err) != HS_OK)
        return hs_cli_usage_error(&hs_cmd_split, "%s", err.msg);
    for (int d = 0; d < ndev; d++)
        ngpu += dev[d].kind == HS_DEVICE_GPU;
    if (!a->cpu_threads)
        a->cpu_threads = ncpu - ngpu - 1 > 1 ? (unsigned long long)(ncpu - ngpu - 1) : 1;
    if (hs_split_real_devices(a->devices, (int)a->cpu_threads, dev, &ndev, &err) != HS_OK)
        return hs_cli_usage_error(&hs_cmd_split, "%s", err.msg);
    if (hs_split_real_open(a->kernel, a->params, a->nparams, a->items, dev, ndev, &r, &err) !=
        HS_OK)
        return err.code == HS_EINPUT ? hs_cli_usage_error(&hs_cmd_split, "%s", err.msg)
                                     : hs_cli_fail(&err);
    hs_split_real_kernel(r, &type, &items, &unit);
    printf("kernel %s: %zu items (%s) on", type, items, unit);
    for (int d = 0; d < ndev; d++) {
        if (dev[d].kind == HS_DEVICE_CPU)
            printf("%s %s (%d threads)", d ? "," : "", dev[d].name, dev[d].threads);
        else
            printf("%s %s (CUDA device %d)", d ? "," : "", dev[d].name, dev[d].cuda_device);
    }
    printf("; medians of %llu run(s)\n", a->repeat);
    if (hs_split_real_warm(r, &err) != HS_OK)
        goto fail;
    printf("alone:");
    for (int d = 0; d < ndev; d++) {
        if (hs_split_real_alone(r, d, a->repeat, &alone[d], &err) != HS_OK)
            goto fail;
        printf("%s %s %.3f ms", d ? "," : "", dev[d].name, alone[d] / 1000);
        if (alone[d] < fastest) {
            fastest = alone[d];
            fastest_d = d;
        }
    }
    printf(" (fastest %s)\n", dev[fastest_d].name);
    hs_split_real_as_sim(r, &view);
    for (int i = 0; i < nsp; i++) {
        if (hs_split_real_measure(r, sps[i], a->opt, a->runs, a->repeat, !a->no_hints,
                                  a->plot || a->chunks ? 1000000 : 0, print_run, NULL,
                                  &results[i], &err) != HS_OK) {
            fprintf(stderr, "hetsched: split %s: %s\n", sps[i]->name, err.msg);
            status = 1;
            continue;
        }
        ok[i] = 1;
        report(&view, sps[i]->name, &results[i], "real, result checked");
        for (size_t j = 0; a->chunks && j < results[i].nrecords; j++) {
            const hs_split_record *x = &results[i].records[j];
            fprintf(a->chunks, "%s,%s,%zu,%zu,%.3f,%.3f,%d\n", sps[i]->name,
                    dev[x->device].name, x->begin, x->end, x->start_us, x->end_us,
                    x->fate == HS_CHUNK_ACCEPTED);
        }
    }
    if (a->best) {
        if (ndev > 4)
            printf("best static split: not searched beyond 4 devices\n");
        else if (real_best_static(r, ndev, alone, a->repeat, best, &best_us, &err) != HS_OK)
            goto fail;
    }
    if (nsp > 1 || a->best) {
        printf("\n| splitter   |    time ms | effic. | imbal. %% | chunks       | vs static "
               "| vs alone  |\n|------------|-----------:|-------:|----------:|--------------|"
               "----------:|----------:|\n");
        for (int i = 0; i < nsp; i++)
            if (ok[i])
                summary_row(sps[i]->name, &results[i], ndev, best_us, fastest);
        if (isfinite(best_us)) {
            char name[64] = "static ";
            size_t len = strlen(name);
            for (int d = 0; d < ndev && len < sizeof name; d++)
                len += (size_t)snprintf(name + len, sizeof name - len, "%s%d", d ? "/" : "",
                                        best[d]);
            printf("| %-10s | %10.3f | %6s | %9s | %-12s | %9s | %+8.1f%% |\n", name,
                   best_us / 1000, "", "", "", "", 100 * (best_us / fastest - 1));
        }
        for (int d = 0; d < ndev; d++)
            printf("| %-10s | %10.3f | %6s | %9s | %-12s | %9s | %+8.1f%% |\n", dev[d].name,
                   alone[d] / 1000, "", "", "1", "", 100 * (alone[d] / fastest - 1));
    }
    if (a->plot && ok[0] && hs_split_plot(&view, &results[0], sps[0]->name, a->plot, &err) !=
                                HS_OK)
        status = hs_cli_fail(&err);
    for (int i = 0; i < nsp; i++)
        if (ok[i])
            hs_split_result_free(&results[i]);
    hs_split_real_close(r);
    return status;
fail:
    for (int i = 0; i < nsp; i++)
        if (ok[i])
            hs_split_result_free(&results[i]);
    hs_split_real_close(r);
    return hs_cli_fail(&err);
}

static int split_main(int argc, char **argv)
{
    enum { OPT_SIM = 256, OPT_ITEMS, OPT_DEVICES, OPT_THROTTLE, OPT_FAIL, OPT_NOISE, OPT_SEED,
           OPT_RUNS, OPT_NOHINTS, OPT_PLOT, OPT_KERNELS, OPT_BEST, OPT_PARAMS, OPT_THREADS,
           OPT_REPEAT, OPT_CHUNKS };
    static const struct option longopts[] = {
        {"splitter", required_argument, NULL, 'p'},
        {"sim", no_argument, NULL, OPT_SIM},
        {"items", required_argument, NULL, OPT_ITEMS},
        {"devices", required_argument, NULL, OPT_DEVICES},
        {"throttle", required_argument, NULL, OPT_THROTTLE},
        {"fail", required_argument, NULL, OPT_FAIL},
        {"noise", required_argument, NULL, OPT_NOISE},
        {"seed", required_argument, NULL, OPT_SEED},
        {"runs", required_argument, NULL, OPT_RUNS},
        {"no-hints", no_argument, NULL, OPT_NOHINTS},
        {"plot", required_argument, NULL, OPT_PLOT},
        {"kernels", no_argument, NULL, OPT_KERNELS},
        {"best-static", no_argument, NULL, OPT_BEST},
        {"params", required_argument, NULL, OPT_PARAMS},
        {"cpu-threads", required_argument, NULL, OPT_THREADS},
        {"repeat", required_argument, NULL, OPT_REPEAT},
        {"chunks", required_argument, NULL, OPT_CHUNKS},
        {NULL, 0, NULL, 0},
    };
    static hs_split_sim sim; /* large: off the stack */
    const char *name = NULL, *plot = NULL, *chunks = NULL;
    char *devices = NULL, *events[2 * HS_SPLIT_MAX_DEVICES];
    int fails[2 * HS_SPLIT_MAX_DEVICES];
    int nevents = 0, use_sim = 0, no_hints = 0, c, rc, status = 0, any_fail = 0, best = 0;
    unsigned long long items = 0, seed = 1, runs = 1;
    double noise = 0;
    hs_split_options opt = {0};
    hs_split_memory mem = {0};
    hs_split_result res = {0};
    const hs_splitter *sp = NULL;
    hs_output chunks_out;
    hs_error err = {0};
    real_args ra;
    int sim_only = 0; /* a --sim-only option was given */
    memset(&sim, 0, sizeof sim);
    memset(&ra, 0, sizeof ra);
    ra.repeat = 1;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":p:o:P:", longopts, NULL)) != -1) {
        switch (c) {
        case 'p': name = optarg; break;
        case 'P':
            if ((status = add_param(&ra, optarg)) != 0)
                return status;
            break;
        case OPT_PARAMS: {
            char *save = NULL;
            for (char *t = strtok_r(optarg, ",", &save); t; t = strtok_r(NULL, ",", &save))
                if ((status = add_param(&ra, t)) != 0)
                    return status;
            break;
        }
        case OPT_THREADS:
            if (hs_cli_parse_whole(optarg, 1, 1024, &ra.cpu_threads) != 0)
                return hs_cli_usage_error(&hs_cmd_split, "--cpu-threads wants a whole number "
                                          "in 1..1024, not '%s'", optarg);
            break;
        case OPT_CHUNKS: chunks = optarg; break;
        case OPT_REPEAT:
            if (hs_cli_parse_whole(optarg, 1, 63, &ra.repeat) != 0)
                return hs_cli_usage_error(&hs_cmd_split, "--repeat wants a whole number in "
                                          "1..63, not '%s'", optarg);
            break;
        case 'o':
            if (strcmp(optarg, "help") == 0) {
                hs_split_option_help(stdout);
                return 0;
            }
            if (hs_split_option_set(&opt, optarg, &err) != HS_OK)
                return hs_cli_usage_error(&hs_cmd_split, "%s", err.msg);
            break;
        case OPT_SIM: use_sim = 1; break;
        case OPT_ITEMS:
            if (hs_cli_parse_whole(optarg, 1, HS_SPLIT_SIM_MAX_ITEMS, &items) != 0)
                return hs_cli_usage_error(&hs_cmd_split, "--items wants a whole number in "
                                          "1..%zu, not '%s'", HS_SPLIT_SIM_MAX_ITEMS, optarg);
            break;
        case OPT_DEVICES: devices = optarg; break;
        case OPT_THROTTLE:
        case OPT_FAIL:
            if (nevents == (int)(sizeof events / sizeof events[0]))
                return hs_cli_usage_error(&hs_cmd_split, "too many --throttle/--fail");
            sim_only = 1;
            events[nevents] = optarg;
            fails[nevents] = c == OPT_FAIL;
            any_fail |= c == OPT_FAIL;
            nevents++;
            break;
        case OPT_NOISE:
            sim_only = 1;
            if (hs_cli_parse_real(optarg, 0, HUGE_VAL, &noise) != 0 || noise > 0.9)
                return hs_cli_usage_error(&hs_cmd_split, "--noise wants a number in [0, 0.9], "
                                          "not '%s'", optarg);
            break;
        case OPT_SEED:
            sim_only = 1;
            if (hs_cli_parse_whole(optarg, 0, ULONG_MAX, &seed) != 0)
                return hs_cli_usage_error(&hs_cmd_split, "--seed wants a whole number >= 0, "
                                          "not '%s'", optarg);
            break;
        case OPT_RUNS:
            if (hs_cli_parse_whole(optarg, 1, 1000, &runs) != 0)
                return hs_cli_usage_error(&hs_cmd_split, "--runs wants a whole number in "
                                          "1..1000, not '%s'", optarg);
            break;
        case OPT_NOHINTS: no_hints = 1; break;
        case OPT_PLOT: plot = optarg; break;
        case OPT_BEST: best = 1; break;
        case OPT_KERNELS:
            hs_split_sim_profile_help(stdout);
            printf("\nkernel types for real runs (workloads/kernels):\n");
            hs_ktype_help(stdout);
            return 0;
        case ':':
            return hs_cli_usage_error(&hs_cmd_split, "option '%s' needs a value",
                                      argv[optind - 1]);
        default:
            return hs_cli_usage_error(&hs_cmd_split, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (!name)
        status = hs_cli_usage_error(&hs_cmd_split, "no splitter: give -p NAME (-p help "
                                    "lists them)");
    else if (strcmp(name, "help") == 0)
        hs_splitter_help(stdout);
    else if (!use_sim) {
        if (argc - optind != 1)
            return hs_cli_usage_error(&hs_cmd_split, "expected one KERNEL, got %d arguments",
                                      argc - optind);
        if (sim_only)
            return hs_cli_usage_error(&hs_cmd_split, "--throttle, --fail, --noise and --seed "
                                      "need --sim");
        ra.splitters = (char *)name;
        ra.kernel = argv[optind];
        ra.items = items;
        ra.devices = devices;
        ra.runs = runs;
        ra.opt = &opt;
        ra.no_hints = no_hints;
        ra.best = best;
        ra.plot = plot;
        if (chunks) {
            /* the report goes to stdout: the chunks need a file of their own */
            if (strcmp(chunks, "-") == 0)
                return hs_cli_usage_error(&hs_cmd_split, "--chunks wants a file name, not "
                                          "'-' (the report goes to standard output)");
            if (hs_output_open(&chunks_out, chunks, &err) != HS_OK)
                return hs_cli_fail(&err);
            ra.chunks = chunks_out.f;
            fprintf(ra.chunks, "splitter,device,begin,end,start_us,end_us,accepted\n");
        }
        if (best) /* an interrupt stops (or skips) the search, not the runs */
            hs_cli_catch_interrupt();
        status = real_main(&ra);
        hs_cli_release_interrupt();
        /* kept only when every splitter ran */
        if (chunks && hs_output_close(&chunks_out, status == 0 ? HS_OK : HS_EIO, &err) != HS_OK &&
            status == 0)
            status = hs_cli_fail(&err);
        return status;
    } else if (ra.nparams || ra.cpu_threads || ra.repeat != 1 || chunks)
        status = hs_cli_usage_error(&hs_cmd_split, "-P, --params, --cpu-threads, --repeat and "
                                    "--chunks are for real runs, not --sim");
    else if (!(sp = hs_splitter_find(name)))
        status = hs_cli_usage_error(&hs_cmd_split, "unknown splitter '%s' (-p help lists "
                                    "them)", name);
    else if (argc - optind != 1)
        status = hs_cli_usage_error(&hs_cmd_split, "expected one KERNEL, got %d arguments",
                                    argc - optind);
    else if (hs_split_options_check(&opt, sp, &err) != HS_OK)
        status = hs_cli_usage_error(&hs_cmd_split, "%s", err.msg);
    else if (any_fail && !(sp->flags & HS_SPLIT_SURVIVES_FAILURE))
        status = hs_cli_usage_error(&hs_cmd_split, "--fail: splitter '%s' does not hand out "
                                    "the work of a dead device again (-p help marks those "
                                    "that do with *)", name);
    else if (hs_split_sim_profile(&sim, argv[optind], &err) != HS_OK)
        status = hs_cli_usage_error(&hs_cmd_split, "%s", err.msg);
    else if (devices && (status = parse_devices(&sim, devices)) != 0)
        ;
    else {
        for (int i = 0; i < nevents && status == 0; i++)
            status = apply_event(&sim, events[i], fails[i]);
    }
    if (status != 0 || !name || strcmp(name, "help") == 0)
        return status;
    if (items)
        sim.items = (size_t)items;
    sim.noise = noise;
    sim.no_hints = no_hints;
    if (best) /* an interrupt stops (or skips) the search, not the runs */
        hs_cli_catch_interrupt();
    if ((sp->flags & HS_SPLIT_TRAINS) && runs == 1) {
        sim.seed = seed;
        if ((rc = hs_split_sim_run(&sim, sp, &opt, &mem, &res, &err)) != HS_OK)
            return hs_cli_fail(&err);
        printf("run 0 (training): makespan %.3f ms, efficiency %.3f\n", res.makespan_us / 1000,
               res.efficiency);
        hs_split_result_free(&res);
    }
    for (unsigned long long run = 1; run <= runs; run++) {
        sim.seed = seed + run - 1;
        sim.max_records = plot && run == runs ? 1000000 : 0;
        if ((rc = hs_split_sim_run(&sim, sp, &opt, &mem, &res, &err)) != HS_OK)
            return hs_cli_fail(&err);
        if (run < runs) {
            printf("run %llu: makespan %.3f ms, efficiency %.3f\n", run, res.makespan_us / 1000,
                   res.efficiency);
            hs_split_result_free(&res);
        }
    }
    report(&sim, name, &res, "simulated");
    if (best)
        best_static(&sim, res.makespan_us);
    hs_cli_release_interrupt();
    rc = plot ? hs_split_plot(&sim, &res, name, plot, &err) : HS_OK;
    hs_split_result_free(&res);
    return rc == HS_OK ? 0 : hs_cli_fail(&err);
}
