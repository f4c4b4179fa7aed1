/* hetsched split — one data-parallel kernel split across devices by a chunk
 * splitter (mapper/split.h), run in the chunk simulator (exec/split_sim.h):
 * per-device items, chunks, busy and idle time, the finish-time spread,
 * percent imbalance and Boyer's efficiency; optionally a plot of block size
 * against time (HDSS Fig. 6).  Real devices come with the CPU and CUDA
 * backends; until then --sim is required. */
#include <errno.h>
#include <float.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "exec/split_sim.h"
#include "mapper/split.h"

static int split_main(int argc, char **argv);

const hs_cli_cmd hs_cmd_split = {
    .name = "split",
    .summary = "split one data-parallel kernel across devices with a chunk splitter",
    .usage =
        "usage: hetsched split -p SPLITTER KERNEL --sim [options]\n"
        "       hetsched split -p help | -o help | --kernels\n"
        "\n"
        "Runs KERNEL (a kernel profile: va, xgemm-rows, pi; --kernels lists their\n"
        "figures) split across devices by SPLITTER in the chunk simulator, and prints\n"
        "each device's items, chunks, busy and idle time and finish time, the spread\n"
        "of the finish times, the percent imbalance (max - mean) / max * P / (P - 1)\n"
        "* 100 and the efficiency: achieved throughput over the sum of the devices'\n"
        "throughputs when each runs the whole kernel alone.\n"
        "\n"
        "options:\n"
        "  -p, --splitter NAME      the splitter (required; -p help lists them)\n"
        "  --sim                    run in the chunk simulator (required for now)\n"
        "  --items N                items of the kernel (default: the profile's)\n"
        "  --devices LIST           NAME:OVERHEAD_US:ITEMS_PER_US[:WIDTH[:GBPS[:LAT_US]]],...\n"
        "                           replacing the profile's devices; a NAME starting with\n"
        "                           'gpu' is a GPU with its own memory (link default\n"
        "                           12 GB/s, 10 us), others compute from host memory\n"
        "  --throttle DEV:T_MS:F    DEV computes F times slower from T_MS on (repeatable)\n"
        "  --fail DEV:T_MS          DEV stops answering at T_MS (repeatable; only for\n"
        "                           splitters marked * in -p help)\n"
        "  --noise X                chunk compute times times 1 + X u, u uniform in\n"
        "                           [-1, 1] (0 .. 0.9, default 0)\n"
        "  --seed N                 seed of the noise (default 1)\n"
        "  --runs N                 run N times, learning across runs (default 1; qilin\n"
        "                           adds a training run when N is 1)\n"
        "  --no-hints               hide the devices' nominal speeds from the splitter\n"
        "  -o KEY=VALUE             a splitter option (repeatable; -o help lists them)\n"
        "  --plot FILE              block size against time per device, .png or .svg\n"
        "  --best-static            also search every static split in 1% steps (up to 4\n"
        "                           devices, one chunk each): the best one for the\n"
        "                           nominal devices (no throttle, no failure) and its\n"
        "                           time in this run, and the best one for this run\n"
        "  --kernels                list the kernel profiles\n"
        "  -h, --help               this text\n",
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
        if (nf < 3 || nf > 6 || !f[0][0] || hs_cli_parse_real(f[1], 0, HUGE_VAL, &v->overhead_us) != 0 ||
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

/* Time of the static split giving device d pct[d] percent of the items, one
 * chunk each from time 0; HUGE_VAL if a device dies holding its share. */
static double split_time(const hs_split_sim *sim, const int *pct)
{
    size_t b = 0, n = sim->items;
    double worst = 0;
    int cum = 0;
    for (int d = 0; d < sim->ndevices; d++) {
        size_t e = d == sim->ndevices - 1 ? n : (size_t)llround((cum += pct[d]) / 100.0 * n);
        if (e > b) {
            double t = hs_split_sim_chunk_us(sim, d, b, e, 0);
            if (sim->dev[d].fails && t > sim->dev[d].fail_at_us)
                return HUGE_VAL;
            worst = t > worst ? t : worst;
        }
        b = e;
    }
    return worst;
}

/* Tries every way of giving devices d.. the `left` percent that remain. */
static void search(const hs_split_sim *sim, int d, int left, int *pct, int *best, double *t)
{
    if (d == sim->ndevices - 1) {
        double x;
        pct[d] = left;
        if ((x = split_time(sim, pct)) < *t) {
            *t = x;
            memcpy(best, pct, (size_t)sim->ndevices * sizeof *pct);
        }
        return;
    }
    for (int p = 0; p <= left; p++) {
        pct[d] = p;
        search(sim, d + 1, left - p, pct, best, t);
    }
}

static void print_split(const hs_split_sim *sim, const int *pct)
{
    for (int d = 0; d < sim->ndevices; d++)
        printf("%s%s %d%%", d ? ", " : "", sim->dev[d].name, pct[d]);
}

/* --best-static: exhaustive search over static splits in 1% steps. */
static void best_static(const hs_split_sim *sim, double run_us)
{
    static hs_split_sim nominal;
    int pct[HS_SPLIT_MAX_DEVICES], best[HS_SPLIT_MAX_DEVICES] = {0};
    int oracle[HS_SPLIT_MAX_DEVICES] = {0};
    double t_nominal = HUGE_VAL, t_oracle = HUGE_VAL, t_here;
    if (sim->ndevices > 4) {
        printf("best static split: not searched beyond 4 devices\n");
        return;
    }
    nominal = *sim;
    for (int d = 0; d < nominal.ndevices; d++) {
        nominal.dev[d].throttle = 0;
        nominal.dev[d].fails = 0;
    }
    search(&nominal, 0, 100, pct, best, &t_nominal);
    search(sim, 0, 100, pct, oracle, &t_oracle);
    t_here = split_time(sim, best);
    printf("best static split for the nominal devices (");
    print_split(sim, best);
    printf("): %.3f ms nominal, ", t_nominal / 1000);
    if (isfinite(t_here))
        printf("%.3f ms in this run (splitter %+.1f%%)\n", t_here / 1000,
               100 * (run_us / t_here - 1));
    else
        printf("never finishes in this run\n");
    printf("best static split for this run (");
    print_split(sim, oracle);
    if (isfinite(t_oracle))
        printf("): %.3f ms (splitter %+.1f%%)\n", t_oracle / 1000,
               100 * (run_us / t_oracle - 1));
    else
        printf("): none finishes\n");
}

static void report(const hs_split_sim *sim, const char *name, const hs_split_result *r)
{
    int width = 6;
    for (int d = 0; d < sim->ndevices; d++)
        if ((int)strlen(sim->dev[d].name) > width)
            width = (int)strlen(sim->dev[d].name);
    printf("split %s on %s (%zu items, simulated): makespan %.3f ms\n", name, sim->kernel,
           sim->items, r->makespan_us / 1000);
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

static int split_main(int argc, char **argv)
{
    enum { OPT_SIM = 256, OPT_ITEMS, OPT_DEVICES, OPT_THROTTLE, OPT_FAIL, OPT_NOISE, OPT_SEED,
           OPT_RUNS, OPT_NOHINTS, OPT_PLOT, OPT_KERNELS, OPT_BEST };
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
        {NULL, 0, NULL, 0},
    };
    static hs_split_sim sim; /* large: off the stack */
    const char *name = NULL, *plot = NULL;
    char *devices = NULL, *events[2 * HS_SPLIT_MAX_DEVICES];
    int fails[2 * HS_SPLIT_MAX_DEVICES];
    int nevents = 0, use_sim = 0, no_hints = 0, c, rc, status = 0, any_fail = 0, best = 0;
    unsigned long long items = 0, seed = 1, runs = 1;
    double noise = 0;
    hs_split_options opt = {0};
    hs_split_memory mem = {0};
    hs_split_result res = {0};
    const hs_splitter *sp = NULL;
    hs_error err = {0};
    memset(&sim, 0, sizeof sim);
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":p:o:", longopts, NULL)) != -1) {
        switch (c) {
        case 'p': name = optarg; break;
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
            events[nevents] = optarg;
            fails[nevents] = c == OPT_FAIL;
            any_fail |= c == OPT_FAIL;
            nevents++;
            break;
        case OPT_NOISE:
            if (hs_cli_parse_real(optarg, 0, HUGE_VAL, &noise) != 0 || noise > 0.9)
                return hs_cli_usage_error(&hs_cmd_split, "--noise wants a number in [0, 0.9], "
                                          "not '%s'", optarg);
            break;
        case OPT_SEED:
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
        case OPT_KERNELS: hs_split_sim_profile_help(stdout); return 0;
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
    else if (!(sp = hs_splitter_find(name)))
        status = hs_cli_usage_error(&hs_cmd_split, "unknown splitter '%s' (-p help lists "
                                    "them)", name);
    else if (argc - optind != 1)
        status = hs_cli_usage_error(&hs_cmd_split, "expected one KERNEL, got %d arguments",
                                    argc - optind);
    else if (!use_sim)
        status = hs_cli_usage_error(&hs_cmd_split, "only the simulator can run splits so far: "
                                    "give --sim");
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
    report(&sim, name, &res);
    if (best)
        best_static(&sim, res.makespan_us);
    rc = plot ? hs_split_plot(&sim, &res, name, plot, &err) : HS_OK;
    hs_split_result_free(&res);
    return rc == HS_OK ? 0 : hs_cli_fail(&err);
}
