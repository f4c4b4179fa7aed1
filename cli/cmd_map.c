/* hetsched map — maps a workload with one policy in the simulator, prints
 * the makespan and each device's busy time, and writes the schedule as JSON,
 * DOT, a Gantt chart or a Chrome trace. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int map_main(int argc, char **argv);

const hs_cli_cmd hs_cmd_map = {
    .name = "map",
    .summary = "map a workload with one policy in the simulator",
    .usage = "usage: hetsched map -a ALGO WORKLOAD [options]\n"
             "       hetsched map --schedule FILE WORKLOAD [options]\n"
             "       hetsched map -a help\n"
             "\n"
             "Maps every task of WORKLOAD to a device with policy ALGO, or as the schedule\n"
             "FILE maps it, runs the result in the simulator (delay model, or with\n"
             "--predict executor the model with which `run` predicts itself) and prints the\n"
             "makespan and each device's busy time and utilisation.  `-a help` lists the\n"
             "policies.\n"
             "\n"
             "options:\n"
             "  -a, --algorithm ALGO  the policy (required unless --schedule)\n"
             "  --schedule FILE       instead of a policy, run the schedule FILE (JSON of\n"
             "                        map --json, optimal --json or run --json; '-' for\n"
             "                        stdin): each task on its device there, each device's\n"
             "                        tasks in their start order there, a task starting\n"
             "                        once its device's previous task has ended and its\n"
             "                        inputs have arrived.  It must place every task of\n"
             "                        WORKLOAD once, whole.  With the costs it was made\n"
             "                        with, the makespan is the schedule's or less\n"
             "  --json FILE           write the schedule as JSON ('-' for stdout)\n"
             "  --dot FILE            write the kernel graph with the schedule as DOT\n"
             "                        ('-' for stdout)\n"
             "  --gantt FILE          draw a Gantt chart, FILE.png or FILE.svg\n"
             "  --trace FILE          write a Chrome trace (Perfetto) ('-' for stdout)\n"
             "  --tasks-csv FILE      one line per task (or part): task, device, start_us,\n"
             "                        end_us, duration_us, fraction ('-' for stdout)\n"
             "  --devices-csv FILE    one line per device: device, kind, memory, tasks,\n"
             "                        busy_us, utilisation ('-' for stdout)\n"
             "  --seed N              seed of random, and of best's local search\n"
             "                        (default 0)\n"
             "  --thr N               dispatch threshold of h-ratio, d-rank and ad-part\n"
             "                        (and of those inside best; default: the policy's)\n"
             "  --budget-ms MS        time best may spend on its portfolio and local\n"
             "                        search (default 100; -a best only)\n"
             "  --model FILE          performance model (JSON): costs of typed kernels\n"
             "                        without cost_us, and ad-part's part costs\n"
             "  --split SPLITTER      split every kernel marked splittable across the\n"
             "                        devices with a chunk splitter (`hetsched split -p\n"
             "                        help`), one part per device that gets items\n"
             "  --split-option K=V    an option of that splitter (repeatable; `hetsched\n"
             "                        split -o help`)\n"
             "  --predict MODEL       the simulator's model: delay (default), that of\n"
             "                        optimal, where copies never wait for each other;\n"
             "                        or executor, as `run` predicts itself: each device\n"
             "                        holds as many started tasks as a real backend lets\n"
             "                        it, a task's input copies start when it is started\n"
             "                        (or prefetched: dmda, dmdar) and queue on their\n"
             "                        link, outputs go back to host on theirs (what a\n"
             "                        real run of this schedule takes)\n"
             "  -h, --help            this text\n"
             HS_CLI_SOURCE_USAGE
             "\n"
             "An option that the policy or the splitter does not read is refused.\n"
             "When a file goes to stdout, the summary goes to stderr (one file at most may\n"
             "go there).  A file is written whole or not at all.\n",
    .main = map_main,
};

static void list_policies(void)
{
    const hs_policy *const *p = hs_policy_list();
    int width = 0;
    for (size_t i = 0; p[i]; i++)
        if ((int)strlen(hs_policy_name(p[i])) > width)
            width = (int)strlen(hs_policy_name(p[i]));
    printf("policies:\n");
    for (size_t i = 0; p[i]; i++)
        printf("  %-*s  %s\n", width, hs_policy_name(p[i]), hs_policy_description(p[i]));
}

/* The summary: makespan, then one line per device (busy time, utilisation,
 * tasks), then the time the policy spent deciding. */
static int summarise(FILE *out, const hs_workload *w, const char *algo, const char *given,
                     const char *path, const hs_schedule *s, const hs_map_stats *st)
{
    const hs_platform *p = &w->platform;
    double bound = hs_lower_bound_us(w);
    hs_device_stats *ds = calloc((size_t)p->ndevices + 1, sizeof *ds);
    hs_error err = {0};
    int width = 6, split = 0;
    if (!ds || hs_schedule_device_stats(w, s, ds, &err) != HS_OK) {
        free(ds);
        fprintf(stderr, "hetsched: out of memory\n");
        return 1;
    }
    for (int d = 0; d < p->ndevices; d++)
        if ((int)strlen(p->devices[d].name) > width)
            width = (int)strlen(p->devices[d].name);
    fprintf(out, "%s %s on %s: makespan %.3f us%s\n", algo ? "policy" : "schedule",
            algo ? algo : given, path, s->makespan_us,
            s->model && strcmp(s->model, "executor") == 0 ? " (executor's model)" : "");
    /* the cheap bound of milp/bound.c, for whole-task schedules: one that
     * splits kernels may beat it, as compare's footnote says */
    for (size_t k = 0; k < s->nplacements && !split; k++)
        split = s->placements[k].nparts > 1;
    if (bound > 0)
        fprintf(out, "lower bound %.3f us (makespan / bound %.3f%s)\n", bound,
                s->makespan_us / bound,
                split ? "; the bound is over whole tasks, which this schedule splits" : "");
    else /* every task costs nothing: no ratio to give */
        fprintf(out, "lower bound %.3f us\n", bound);
    for (int d = 0; d < p->ndevices; d++) {
        double ms = s->makespan_us > 0 ? s->makespan_us : 1;
        fprintf(out, "  %-*s %s  busy %12.3f us  %5.1f%%  %zu task%s", width,
                p->devices[d].name, hs_device_kind_name(p->devices[d].kind), ds[d].busy_us,
                100.0 * ds[d].busy_us / ms, ds[d].tasks, hs_cli_plural(ds[d].tasks));
        /* the executor's model holds tasks as `run` does: its idle time
         * while holding work, as `run` prints it beside the measured */
        if (s->model && strcmp(s->model, "executor") == 0)
            fprintf(out, "; idle holding work %.3f us (%.1f%%); inputs there %.3f us (%.1f%%)",
                    ds[d].held_idle_us, 100.0 * ds[d].held_idle_us / ms, ds[d].ready_idle_us,
                    100.0 * ds[d].ready_idle_us / ms);
        fprintf(out, "\n");
    }
    fprintf(out, "mapping time %.3f ms (%.3f us per task)\n", 1e3 * st->mapping_seconds,
            w->graph.ntasks ? 1e6 * st->mapping_seconds / (double)w->graph.ntasks : 0.0);
    free(ds);
    return 0;
}

static int map_main(int argc, char **argv)
{
    enum { OPT_JSON = 256, OPT_DOT, OPT_GANTT, OPT_TRACE, OPT_SEED, OPT_THR, OPT_MODEL,
           OPT_SPLIT, OPT_SPLIT_OPTION, OPT_BUDGET, OPT_TASKS_CSV, OPT_DEVICES_CSV,
           OPT_SCHEDULE, OPT_PREDICT };
    static const struct option longopts[] = {
        {"algorithm", required_argument, NULL, 'a'},
        {"json", required_argument, NULL, OPT_JSON},
        {"dot", required_argument, NULL, OPT_DOT},
        {"gantt", required_argument, NULL, OPT_GANTT},
        {"trace", required_argument, NULL, OPT_TRACE},
        {"tasks-csv", required_argument, NULL, OPT_TASKS_CSV},
        {"devices-csv", required_argument, NULL, OPT_DEVICES_CSV},
        {"seed", required_argument, NULL, OPT_SEED},
        {"thr", required_argument, NULL, OPT_THR},
        {"model", required_argument, NULL, OPT_MODEL},
        {"split", required_argument, NULL, OPT_SPLIT},
        {"split-option", required_argument, NULL, OPT_SPLIT_OPTION},
        {"budget-ms", required_argument, NULL, OPT_BUDGET},
        {"schedule", required_argument, NULL, OPT_SCHEDULE},
        {"predict", required_argument, NULL, OPT_PREDICT},
        HS_CLI_SOURCE_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    hs_cli_source src = {.cmd = &hs_cmd_map};
    const char *algo = NULL, *given = NULL;
    hs_cli_outputs out = {0};
    const char *model_path = NULL;
    hs_perfmodel *model = NULL;
    hs_map_options opt = {0};
    const char *split = NULL;
    hs_split_options sopt = {0};
    hs_map_stats stats = {0};
    hs_schedule *s = NULL, *schedule = NULL;
    hs_workload *w;
    hs_error err = {0};
    int c, status = 0, rc = HS_OK, split_options = 0, have_seed = 0, have_thr = 0, executor = 0;
    int *depth = NULL;
    const hs_policy *policy;
    unsigned long long v;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":a:", longopts, NULL)) != -1) {
        int taken = hs_cli_source_option(&src, c, optarg);
        if (taken < 0)
            return 2;
        if (taken)
            continue;
        switch (c) {
        case 'a': algo = optarg; break;
        case OPT_JSON: out.json = optarg; break;
        case OPT_DOT: out.dot = optarg; break;
        case OPT_GANTT: out.gantt = optarg; break;
        case OPT_TRACE: out.trace = optarg; break;
        case OPT_TASKS_CSV: out.tasks_csv = optarg; break;
        case OPT_DEVICES_CSV: out.devices_csv = optarg; break;
        case OPT_MODEL: model_path = optarg; break;
        case OPT_SPLIT: split = optarg; break;
        case OPT_SCHEDULE: given = optarg; break;
        case OPT_PREDICT:
            if (hs_cli_parse_predict(&hs_cmd_map, optarg, &executor) != 0)
                return 2;
            break;
        case OPT_SPLIT_OPTION:
            split_options = 1;
            if (hs_split_option_set(&sopt, optarg, &err) != HS_OK)
                return hs_cli_usage_error(&hs_cmd_map, "--split-option: %s", err.msg);
            break;
        case OPT_SEED:
            if (hs_cli_parse_whole(optarg, 0, ULONG_MAX, &v) != 0)
                return hs_cli_usage_error(&hs_cmd_map, "--seed wants a whole number >= 0, "
                                          "not '%s'", optarg);
            opt.seed = v;
            have_seed = 1;
            break;
        case OPT_THR:
            if (hs_cli_parse_whole(optarg, 0, INT_MAX, &v) != 0)
                return hs_cli_usage_error(&hs_cmd_map, "--thr wants a whole number >= 0, "
                                          "not '%s'", optarg);
            opt.thr = (int)v;
            have_thr = 1;
            break;
        case OPT_BUDGET:
            if (hs_cli_parse_budget(&hs_cmd_map, optarg, &opt.budget_ms) != 0)
                return 2;
            break;
        case ':':
            return hs_cli_usage_error(&hs_cmd_map, "option '%s' needs a value",
                                      argv[optind - 1]);
        default:
            return hs_cli_usage_error(&hs_cmd_map, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (!algo && !given)
        return hs_cli_usage_error(&hs_cmd_map, "no policy: give -a ALGO (-a help lists them) "
                                  "or --schedule FILE");
    if ((status = hs_cli_outputs_check(&hs_cmd_map, &out, NULL, NULL)) != 0)
        return status;
    if (algo && strcmp(algo, "help") == 0) {
        list_policies();
        return 0;
    }
    if (algo && !(policy = hs_policy_find(algo))) {
        hs_error_set(&err, HS_EUSAGE, "unknown policy '%s' (see hetsched map -a help)", algo);
        fprintf(stderr, "hetsched map: %s\n", err.msg);
        return 2;
    }
    if (algo && (status = hs_cli_policy_options_check(&hs_cmd_map, policy, have_thr, have_seed,
                                                      opt.budget_ms > 0)) != 0)
        return status;
    if (given && (have_thr || have_seed || opt.budget_ms > 0))
        return hs_cli_usage_error(&hs_cmd_map, "%s does not apply to --schedule: the schedule "
                                  "places every task", have_thr ? "--thr" : have_seed ? "--seed"
                                  : "--budget-ms");
    if (split_options && !split)
        return hs_cli_usage_error(&hs_cmd_map, "--split-option applies to the splitter of "
                                  "--split; give --split SPLITTER");
    if (argc - optind != 1)
        return hs_cli_usage_error(&hs_cmd_map, "expected one WORKLOAD, got %d argument%s",
                                  argc - optind, hs_cli_plural((unsigned)(argc - optind)));
    if (split && hs_split_graph_new(split, &sopt, &opt.split, &err) != HS_OK)
        return hs_cli_usage_error(&hs_cmd_map, "--split: %s", err.msg);
    if (hs_map_check(algo, given != NULL, &opt, &err) != HS_OK) {
        hs_split_graph_free(opt.split);
        return hs_cli_usage_error(&hs_cmd_map, "%s", err.msg);
    }
    if (!(w = hs_cli_load_model(argv[optind], &src, model_path, &model, &status))) {
        hs_split_graph_free(opt.split);
        return status;
    }
    opt.perfmodel = model;
    if (split)
        hs_cli_warn_nothing_splittable(&hs_cmd_map, w, argv[optind]);
    rc = given ? hs_schedule_read_given(w, given, &schedule, &err) : HS_OK;
    opt.schedule = schedule;
    if (rc == HS_OK && executor &&
        !(opt.executor_depth = depth = hs_cli_executor_depths(w, &err)))
        rc = err.code;
    if (rc == HS_OK)
        rc = hs_map(w, algo, &opt, &s, &stats, &err);
    if (rc == HS_OK)
        rc = hs_cli_write_outputs(w, s, &out, &err);
    if (rc == HS_OK) {
        status = summarise(hs_cli_outputs_use_stdout(&out) ? stderr : stdout, w, algo, given,
                           argv[optind], s, &stats);
    } else {
        status = hs_cli_fail(&err);
    }
    hs_schedule_free(s);
    hs_schedule_free(schedule);
    hs_workload_free(w);
    hs_perfmodel_free(model);
    hs_split_graph_free(opt.split);
    free(depth);
    return status;
}
