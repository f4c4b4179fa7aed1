/* hetsched gen — generated workloads (include/hetsched/gen.h) written as YAML.
 * Options are a table with bounds and the generators each applies to, so a
 * bad value or a misplaced option is refused with its name echoed back. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int gen_main(int argc, char **argv);

const hs_cli_cmd hs_cmd_gen = {
    .name = "gen",
    .summary = "generate a workload: random, fork-join, cholesky, benchmarks, compositions",
    .usage =
        "usage: hetsched gen GENERATOR [ARG] [OPTIONS] [--seed N] [-o FILE]\n"
        "\n"
        "Builds a workload and writes it as YAML (the format of the README) to stdout,\n"
        "or to FILE with -o (as JSON, the same document, when FILE ends in .json).\n"
        "The same options and seed always give the same file.\n"
        "\n"
        "generators:\n"
        "  random            random kernel graph of Topcuoglu, Hariri & Wu (HEFT, TPDS 2002)\n"
        "    --tasks N         number of tasks v (100; at most 1000000, or\n"
        "                      HETSCHED_MAX_TASKS)\n"
        "    --alpha A         shape: about sqrt(v)/A levels of about A*sqrt(v) tasks (1)\n"
        "    --out-degree K    mean number of successors of a task, at least 1 each (3)\n"
        "    --ccr X           communication-to-computation ratio: mean transfer time over\n"
        "                      the links / mean task cost (1)\n"
        "    --beta B          heterogeneity, 0 <= B < 2: a task of mean cost w costs\n"
        "                      w*(1-B/2) .. w*(1+B/2) on each device (0.5)\n"
        "    --mean-cost US    mean task cost w_dag in microseconds (1000)\n"
        "    --gpu-speedup S   GPUs are S times faster than CPUs on average (4)\n"
        "  fork-join         DEPTH stages of WIDTH parallel kernels, each opened by a fork\n"
        "                    or join kernel and closed by a join kernel\n"
        "    --width W (8)  --depth D (2): at most 1000000 tasks (HETSCHED_MAX_TASKS)\n"
        "                    --cost US: cost on a CPU (100)\n"
        "    --bytes B: bytes on every edge (1000000)  --beta B (0)  --gpu-speedup S (4)\n"
        "  cholesky          tiled Cholesky factorisation (potrf, trsm, syrk, gemm) of a\n"
        "                    T x T matrix of NB x NB single-precision tiles\n"
        "    --tiles T (4; at most 180: T + T(T-1) + T(T-1)(T-2)/6 tasks, times\n"
        "                    --instances, at most 1000000 or HETSCHED_MAX_TASKS)\n"
        "                    --tile-size NB (512; at most 32768)  --instances N (1)\n"
        "  benchmark NAME[,NAME...]\n"
        "                    the benchmarks of Zhou & Liu (ESWEEK 2014, Fig. 4), one\n"
        "                    application each: xgemm, cg, cholesky, increment, va, pi, fblock\n"
        "    --size small|medium|large (small)  --instances N (1)\n"
        "  composition KIND  the workload mixes of Zhou & Liu, Sec. 5.2, at --size:\n"
        "                    compute: one of each benchmark plus 3 more cholesky and pi;\n"
        "                    data: one of each plus 3 more va and increment;\n"
        "                    mixed: two of each\n"
        "    --size small|medium|large (small)\n"
        "\n"
        "options of every generator:\n"
        "  --devices SPEC    the platform, cpu:N,gpu:M (cpu:1,gpu:2): CPU devices cpu0..\n"
        "                    on host memory, GPUs gpu0.. each on its own memory; links\n"
        "                    host<->gpu 12 GB/s + 10 us (PCIe 3.0 x16), gpu<->gpu\n"
        "                    10 GB/s + 10 us (peer to peer)\n"
        "  --cores N         cores of each CPU device (4)\n"
        "  --nodes N         a cluster of N nodes (1..256, 512 devices in all), each with\n"
        "                    the devices of --devices: node K is nK, its devices nK.cpuI,\n"
        "                    nK.gpuI; every pair of nodes joined by a 12.5 GB/s + 2 us\n"
        "                    network (InfiniBand EDR), copies going through the hosts\n"
        "  --seed N          random seed (1): random, and fork-join with --beta > 0\n"
        "  -o FILE           write to FILE instead of stdout (JSON when it ends in .json)\n"
        "\n"
        "nominal rates for the analytic costs of cholesky, benchmark and composition\n"
        "(cost = overhead + max(flops / rate, bytes / bandwidth), until calibration):\n"
        "  --cpu-gflops X (200)   --gpu-gflops X (1000)   GFLOP/s\n"
        "  --cpu-gbps X (20)      --gpu-gbps X (120)      device memory GB/s\n"
        "  --cpu-overhead US (1)  --gpu-overhead US (5)   per kernel\n"
        "\n"
        "examples:\n"
        "  hetsched gen random --tasks 1000 --ccr 0.5 --beta 1 --seed 7 -o r.yaml\n"
        "  hetsched gen benchmark va,xgemm,increment --size small --instances 5\n"
        "  hetsched gen composition mixed --size large --devices cpu:1,gpu:1\n",
    .main = gen_main,
};

enum { G_RANDOM = 1, G_FORKJOIN = 2, G_CHOLESKY = 4, G_BENCH = 8, G_COMP = 16, G_ALL = 31 };
enum { T_INT, T_ULONG, T_SIZE_T, T_DOUBLE, T_STR };

typedef struct gen_args {
    hs_gen_random_opts random;
    hs_gen_forkjoin_opts fj;
    hs_gen_cholesky_opts chol;
    hs_gen_rates rates;
    const char *devices, *size, *out;
    int cores, instances, nodes;
    unsigned long seed;
} gen_args;

typedef struct option {
    const char *name;
    int type;
    size_t offset; /* in gen_args */
    double min, max;
    int gens;      /* generators it applies to */
} option;

#define OPT(name, type, field, min, max, gens) \
    {name, type, offsetof(gen_args, field), min, max, gens}

static const option options[] = {
    OPT("--tasks", T_SIZE_T, random.tasks, 1, HS_MAX_TASKS, G_RANDOM),
    OPT("--alpha", T_DOUBLE, random.alpha, 1e-6, 1e6, G_RANDOM),
    OPT("--out-degree", T_INT, random.out_degree, 1, 1000, G_RANDOM),
    OPT("--ccr", T_DOUBLE, random.ccr, 0, 1e6, G_RANDOM),
    OPT("--beta", T_DOUBLE, random.beta, 0, 2, G_RANDOM),
    OPT("--mean-cost", T_DOUBLE, random.mean_cost_us, 1e-3, 1e12, G_RANDOM),
    OPT("--gpu-speedup", T_DOUBLE, random.gpu_speedup, 1e-6, 1e6, G_RANDOM),
    OPT("--width", T_INT, fj.width, 1, HS_MAX_TASKS, G_FORKJOIN),
    OPT("--depth", T_INT, fj.depth, 1, HS_MAX_TASKS, G_FORKJOIN),
    OPT("--cost", T_DOUBLE, fj.cost_us, 1e-3, 1e12, G_FORKJOIN),
    OPT("--bytes", T_DOUBLE, fj.bytes, 0, HS_MAX_BYTES, G_FORKJOIN),
    OPT("--beta", T_DOUBLE, fj.beta, 0, 2, G_FORKJOIN),
    OPT("--gpu-speedup", T_DOUBLE, fj.gpu_speedup, 1e-6, 1e6, G_FORKJOIN),
    OPT("--tiles", T_INT, chol.tiles, 1, 180, G_CHOLESKY), /* 988260 tasks */
    OPT("--tile-size", T_INT, chol.tile_size, 1, HS_GEN_MAX_TILE_SIZE, G_CHOLESKY),
    OPT("--instances", T_INT, instances, 1, HS_MAX_TASKS, G_CHOLESKY | G_BENCH),
    OPT("--size", T_STR, size, 0, 0, G_BENCH | G_COMP),
    OPT("--devices", T_STR, devices, 0, 0, G_ALL),
    OPT("--cores", T_INT, cores, 1, HS_MAX_CORES, G_ALL),
    OPT("--nodes", T_INT, nodes, 1, HS_MAX_NODES, G_ALL),
    OPT("--seed", T_ULONG, seed, 0, 4294967295.0, G_ALL),
    OPT("-o", T_STR, out, 0, 0, G_ALL),
    OPT("--cpu-gflops", T_DOUBLE, rates.cpu_gflops, 1e-9, 1e12, G_CHOLESKY | G_BENCH | G_COMP),
    OPT("--gpu-gflops", T_DOUBLE, rates.gpu_gflops, 1e-9, 1e12, G_CHOLESKY | G_BENCH | G_COMP),
    OPT("--cpu-gbps", T_DOUBLE, rates.cpu_gbps, 1e-9, 1e12, G_CHOLESKY | G_BENCH | G_COMP),
    OPT("--gpu-gbps", T_DOUBLE, rates.gpu_gbps, 1e-9, 1e12, G_CHOLESKY | G_BENCH | G_COMP),
    OPT("--cpu-overhead", T_DOUBLE, rates.cpu_overhead_us, 0, 1e12,
        G_CHOLESKY | G_BENCH | G_COMP),
    OPT("--gpu-overhead", T_DOUBLE, rates.gpu_overhead_us, 0, 1e12,
        G_CHOLESKY | G_BENCH | G_COMP),
};

static const struct {
    const char *name;
    int bit, takes_arg;
} generators[] = {
    {"random", G_RANDOM, 0},   {"fork-join", G_FORKJOIN, 0}, {"cholesky", G_CHOLESKY, 0},
    {"benchmark", G_BENCH, 1}, {"composition", G_COMP, 1},
};

/* Parses one option value into its field; returns 0 or the exit status. */
static int set_option(const option *o, const char *gen, int gbit, const char *value,
                      gen_args *g)
{
    char *field = (char *)g + o->offset, *end;
    double x;
    if (!(o->gens & gbit))
        return hs_cli_usage_error(&hs_cmd_gen, "%s does not apply to %s", o->name, gen);
    if (o->type == T_STR) {
        *(const char **)field = value;
        return 0;
    }
    errno = 0;
    x = strtod(value, &end);
    if (end == value || *end != '\0' || errno != 0 || !isfinite(x) || x < o->min ||
        x > o->max || (o->type != T_DOUBLE && x != floor(x)))
        return hs_cli_usage_error(&hs_cmd_gen, "%s: expected %s in [%.15g, %.15g], not '%s'",
                                  o->name, o->type == T_DOUBLE ? "a number" : "a whole number",
                                  o->min, o->max, value);
    switch (o->type) {
    case T_INT:
        *(int *)field = (int)x;
        break;
    case T_ULONG:
        *(unsigned long *)field = (unsigned long)x;
        break;
    case T_SIZE_T:
        *(size_t *)field = (size_t)x;
        break;
    default:
        *(double *)field = x;
    }
    return 0;
}

/* Builds the workload the arguments ask for (platform included). */
static int build(hs_workload *w, int gbit, const char *arg, gen_args *g, hs_error *err)
{
    hs_gen_size size;
    int rc;
    if ((rc = g->nodes ? hs_gen_cluster(w, g->devices, g->cores, g->nodes, err)
                       : hs_gen_platform(w, g->devices, g->cores, err)) != 0)
        return rc;
    if ((gbit & (G_BENCH | G_COMP)) && (rc = hs_gen_size_parse(g->size, &size, err)) != 0)
        return rc;
    switch (gbit) {
    case G_RANDOM:
        g->random.seed = g->seed;
        return hs_gen_random(w, &g->random, err);
    case G_FORKJOIN:
        g->fj.seed = g->seed;
        return hs_gen_forkjoin(w, &g->fj, err);
    case G_CHOLESKY:
        g->chol.rates = g->rates;
        g->chol.instances = g->instances;
        return hs_gen_cholesky(w, &g->chol, err);
    case G_BENCH: {
        char *names = strdup(arg), *save = NULL;
        if (!names)
            return hs_error_set(err, HS_ENOMEM, "out of memory");
        rc = HS_OK;
        for (char *n = strtok_r(names, ",", &save); n && rc >= 0;
             n = strtok_r(NULL, ",", &save))
            rc = hs_gen_benchmark(w, n, size, g->instances, &g->rates, err);
        free(names);
        return rc;
    }
    default:
        return hs_gen_composition(w, arg, size, &g->rates, err);
    }
}

static int gen_main(int argc, char **argv)
{
    gen_args g = {.devices = "cpu:1,gpu:2", .size = "small", .cores = HS_GEN_CPU_CORES,
                  .instances = 1, .seed = 1};
    const char *gen, *arg = NULL;
    hs_workload *w;
    hs_error err = {0};
    hs_output out;
    int gbit = 0, takes_arg = 0, i, rc, status = 0;

    hs_gen_random_defaults(&g.random);
    hs_gen_forkjoin_defaults(&g.fj);
    hs_gen_cholesky_defaults(&g.chol);
    hs_gen_rates_defaults(&g.rates);
    if (argc < 2)
        return hs_cli_usage_error(&hs_cmd_gen, "expected a GENERATOR (random, fork-join, "
                                  "cholesky, benchmark, composition)");
    gen = argv[1];
    for (size_t k = 0; k < sizeof generators / sizeof generators[0]; k++)
        if (strcmp(gen, generators[k].name) == 0) {
            gbit = generators[k].bit;
            takes_arg = generators[k].takes_arg;
        }
    if (!gbit)
        return hs_cli_usage_error(&hs_cmd_gen, "unknown generator '%s' (random, fork-join, "
                                  "cholesky, benchmark, composition)", gen);
    i = 2;
    if (takes_arg) {
        if (argc < 3 || argv[2][0] == '-')
            return hs_cli_usage_error(&hs_cmd_gen, "%s needs %s", gen,
                                      gbit == G_BENCH ? "NAME[,NAME...] (xgemm, cg, cholesky, "
                                                        "increment, va, pi, fblock)"
                                                      : "KIND (compute, data, mixed)");
        arg = argv[2];
        i = 3;
    }
    for (; i < argc; i += 2) {
        const option *o = NULL;
        /* an option some generators share (--beta) has one entry per field:
         * take the one for this generator, else any to say it does not apply */
        for (size_t k = 0; k < sizeof options / sizeof options[0]; k++)
            if (strcmp(argv[i], options[k].name) == 0 && (!o || (options[k].gens & gbit)))
                o = &options[k];
        if (!o)
            return hs_cli_usage_error(&hs_cmd_gen, "unknown option or extra argument '%s'",
                                      argv[i]);
        if (i + 1 >= argc)
            return hs_cli_usage_error(&hs_cmd_gen, "%s needs a value", argv[i]);
        if ((rc = set_option(o, gen, gbit, argv[i + 1], &g)) != 0)
            return rc;
    }

    if (!(w = hs_workload_new())) {
        fprintf(stderr, "hetsched: out of memory\n");
        return 1;
    }
    rc = build(w, gbit, arg, &g, &err);
    if (rc >= 0)
        rc = hs_workload_finalize(w, &err);
    if (rc < 0) {
        status = hs_cli_fail(&err);
        goto out;
    }
    if (hs_output_open(&out, g.out ? g.out : "-", &err) != HS_OK) {
        status = hs_cli_fail(&err);
        goto out;
    }
    /* The command line that made the file, so it can be made again. */
    if (!hs_cli_json_path(g.out)) {
        fputs("# generated by: hetsched", out.f);
        for (int k = 0; k < argc; k++)
            if (strcmp(argv[k], "-o") != 0 && (k == 0 || strcmp(argv[k - 1], "-o") != 0))
                fprintf(out.f, " %s", argv[k]);
        fprintf(out.f, "\n# %zu tasks, %zu edges\n", w->graph.ntasks, w->graph.nedges);
    }
    rc = hs_cli_write_workload(w, g.out, out.f, &err) == HS_OK ? HS_OK
                                                               : hs_output_error(&out, &err);
    if (hs_output_close(&out, rc, &err) != HS_OK)
        status = hs_cli_fail(&err);
out:
    hs_workload_free(w);
    return status;
}
