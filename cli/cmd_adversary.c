/* hetsched adversary — searches small workloads for the one where a policy
 * does worst against the optimum or another policy (hetsched/adversary.h),
 * prints it and writes it as YAML. */
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int adversary_main(int argc, char **argv);

const hs_cli_cmd hs_cmd_adversary = {
    .name = "adversary",
    .summary = "search small workloads for the one a policy maps worst",
    .usage =
        "usage: hetsched adversary -a POLICY [--against optimal|POLICY] [options]\n"
        "\n"
        "Searches small random workloads for the one where POLICY's makespan is the\n"
        "largest multiple of the optimum (the MILP of `hetsched optimal`) or of another\n"
        "policy's, by simulated annealing (PISA, Coleman & Krishnamachari 2024): each\n"
        "step changes a task's cost, a device's speed, an edge (its bytes, added or\n"
        "removed), a task's input or output, a link, or adds or removes a task or a\n"
        "GPU, and is kept when the ratio grows or, less and less often as the search\n"
        "cools, when it falls.  Workloads have one application of tasks k0.. on cpu0\n"
        "(host memory) and GPUs gpu0.. with memories of their own.  Prints the worst\n"
        "ratio found and that workload as YAML; `hetsched compare FILE --optimal` (or\n"
        "`map`) reads it back to the same makespans.\n"
        "\n"
        "options:\n"
        "  -a, --algorithm POLICY  the policy searched against (required)\n"
        "  --against X          optimal (default) or another policy\n"
        "  --seed N             seed of the search (default 0)\n"
        "  --iterations N       annealing steps (default 1000)\n"
        "  --time-limit S       stop after S seconds (default: none)\n"
        "  --tasks MIN-MAX      tasks per workload, within 1-12 (default 3-5)\n"
        "  --devices MIN-MAX    devices, cpu0 and up to 3 GPUs, within 1-4 (default 2-3)\n"
        "  --milp-time-limit S  seconds for each optimum (default 10); one not proven\n"
        "                       in time makes the ratio a lower bound (said so)\n"
        "  --budget-ms MS       best's time budget (when POLICY or X is best)\n"
        "  -o, --output FILE    write the worst workload there instead of stdout (as JSON\n"
        "                       when FILE ends in .json)\n"
        "  -v, --verbose        a line on stderr each time the worst ratio grows\n"
        "  -h, --help           this text\n"
        "\n"
        "examples:\n"
        "  hetsched adversary -a heft --iterations 500 -o heft-worst.yaml\n"
        "  hetsched compare heft-worst.yaml --optimal\n"
        "  hetsched adversary -a heft --against peft --tasks 3-10 --time-limit 60\n"
        "\n"
        "Exit status: 0 done, 1 a policy or the solver failed, 2 bad usage.\n",
    .main = adversary_main,
};

/* "A-B" or "A" (both A) into lo, hi within 1..max; 0, or -1. */
static int parse_range(const char *s, int max, int *lo, int *hi)
{
    unsigned long long a, b;
    const char *dash = strchr(s, '-');
    char first[24];
    if (!dash)
        dash = s + strlen(s);
    if ((size_t)(dash - s) >= sizeof first)
        return -1;
    memcpy(first, s, (size_t)(dash - s));
    first[dash - s] = '\0';
    if (hs_cli_parse_whole(first, 1, (unsigned long long)max, &a) != 0)
        return -1;
    b = a;
    if (*dash && hs_cli_parse_whole(dash + 1, a, (unsigned long long)max, &b) != 0)
        return -1;
    *lo = (int)a;
    *hi = (int)b;
    return 0;
}

static void grew(void *ctx, const hs_adversary_result *r)
{
    const hs_adversary_options *o = ctx;
    fprintf(stderr, "step %ld (%.1f s): ratio %.4f (%s %.3f us, %s %.3f us)\n", r->iterations,
            r->seconds, r->ratio, o->policy, r->policy_us, o->against ? o->against : "optimal",
            r->against_us);
}

static int write_worst(const hs_adversary_options *o, const hs_adversary_result *r,
                       const char *path, hs_error *err)
{
    hs_output out;
    int rc;
    if ((rc = hs_output_open(&out, path ? path : "-", err)) != HS_OK)
        return rc;
    if (!hs_cli_json_path(path))
        fprintf(out.f, "# hetsched adversary -a %s --against %s --seed %lu: ratio %.6f (%.3f us "
                       "/ %.3f us)\n",
                o->policy, o->against ? o->against : "optimal", o->seed, r->ratio, r->policy_us,
                r->against_us);
    rc = hs_cli_write_workload(r->worst, path, out.f, err) == HS_OK ? HS_OK
                                                                     : hs_output_error(&out, err);
    return hs_output_close(&out, rc, err);
}

static int adversary_main(int argc, char **argv)
{
    enum { OPT_AGAINST = 256, OPT_SEED, OPT_ITER, OPT_LIMIT, OPT_TASKS, OPT_DEVICES, OPT_MILP,
           OPT_BUDGET };
    static const struct option longopts[] = {
        {"algorithm", required_argument, NULL, 'a'},
        {"against", required_argument, NULL, OPT_AGAINST},
        {"seed", required_argument, NULL, OPT_SEED},
        {"iterations", required_argument, NULL, OPT_ITER},
        {"time-limit", required_argument, NULL, OPT_LIMIT},
        {"tasks", required_argument, NULL, OPT_TASKS},
        {"devices", required_argument, NULL, OPT_DEVICES},
        {"milp-time-limit", required_argument, NULL, OPT_MILP},
        {"budget-ms", required_argument, NULL, OPT_BUDGET},
        {"output", required_argument, NULL, 'o'},
        {"verbose", no_argument, NULL, 'v'},
        {NULL, 0, NULL, 0},
    };
    const hs_cli_cmd *cmd = &hs_cmd_adversary;
    hs_adversary_options o;
    hs_adversary_result r;
    const char *out = NULL;
    hs_error err = {0};
    unsigned long long v;
    int c, verbose = 0, rc;
    hs_adversary_options_init(&o);
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":a:o:v", longopts, NULL)) != -1) {
        switch (c) {
        case 'a': o.policy = optarg; break;
        case 'o': out = optarg; break;
        case 'v': verbose = 1; break;
        case OPT_AGAINST: o.against = strcmp(optarg, "optimal") == 0 ? NULL : optarg; break;
        case OPT_SEED:
            if (hs_cli_parse_whole(optarg, 0, ULONG_MAX, &v) != 0)
                return hs_cli_usage_error(cmd, "--seed wants a whole number >= 0, not '%s'",
                                          optarg);
            o.seed = v;
            break;
        case OPT_ITER:
            if (hs_cli_parse_whole(optarg, 1, 100000000, &v) != 0)
                return hs_cli_usage_error(cmd, "--iterations wants a whole number from 1 to "
                                          "100000000, not '%s'", optarg);
            o.iterations = (long)v;
            break;
        case OPT_LIMIT:
        case OPT_MILP: {
            double s;
            if (hs_cli_parse_real(optarg, 0, 1e7, &s) != 0 || s <= 0)
                return hs_cli_usage_error(cmd, "%s wants a number of seconds above 0, not "
                                          "'%s'", argv[optind - 1], optarg);
            *(c == OPT_LIMIT ? &o.time_limit_s : &o.milp_time_limit_s) = s;
            break;
        }
        case OPT_TASKS:
            if (parse_range(optarg, HS_ADVERSARY_MAX_TASKS, &o.min_tasks, &o.max_tasks) != 0)
                return hs_cli_usage_error(cmd, "--tasks wants MIN-MAX within 1-%d, not '%s'",
                                          HS_ADVERSARY_MAX_TASKS, optarg);
            break;
        case OPT_DEVICES:
            if (parse_range(optarg, HS_ADVERSARY_MAX_DEVICES, &o.min_devices,
                            &o.max_devices) != 0)
                return hs_cli_usage_error(cmd, "--devices wants MIN-MAX within 1-%d, not '%s'",
                                          HS_ADVERSARY_MAX_DEVICES, optarg);
            break;
        case OPT_BUDGET:
            if (hs_cli_parse_budget(cmd, optarg, &o.map.budget_ms) != 0)
                return 2;
            break;
        case ':':
            return hs_cli_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
        default:
            return hs_cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return hs_cli_usage_error(cmd, "unexpected argument '%s' (the search makes its own "
                                  "workloads)", argv[optind]);
    if (!o.policy)
        return hs_cli_usage_error(cmd, "no policy: give -a POLICY (hetsched map -a help "
                                  "lists them)");
    if (o.map.budget_ms > 0 && strcmp(o.policy, "best") != 0 &&
        !(o.against && strcmp(o.against, "best") == 0))
        return hs_cli_usage_error(cmd, "--budget-ms applies to policy best only (neither -a "
                                  "nor --against is best)");
    rc = hs_adversary_search(&o, &r, verbose ? grew : NULL, &o, &err);
    if (rc != HS_OK) {
        if (rc == HS_EUSAGE)
            return hs_cli_usage_error(cmd, "%s", err.msg);
        return hs_cli_fail(&err);
    }
    printf("adversary %s against %s: %ld steps in %.1f s (seed %lu), %ld kept\n", o.policy,
           o.against ? o.against : "optimal", r.iterations, r.seconds, o.seed, r.accepted);
    printf("worst ratio %.4f: %s %.3f us, %s %.3f us%s\n", r.ratio, o.policy, r.policy_us,
           o.against ? o.against : "optimal", r.against_us,
           o.against || r.proven ? "" : " (not proven optimal: the ratio is a lower bound)");
    printf("worst workload: %zu tasks, %zu edges, %d devices\n", r.worst->graph.ntasks,
           r.worst->graph.nedges, r.worst->platform.ndevices);
    fflush(stdout);
    rc = write_worst(&o, &r, out, &err);
    if (rc == HS_OK && out)
        printf("wrote %s\n", out);
    hs_adversary_result_free(&r);
    return rc == HS_OK ? 0 : hs_cli_fail(&err);
}
