/* hetsched optimal — solves the MILP of a workload (milp/), prints status,
 * makespan, bound, model size and time, and writes the optimal schedule in
 * the formats of `map`. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int optimal_main(int argc, char **argv);

const hs_cli_cmd hs_cmd_optimal = {
    .name = "optimal",
    .summary = "solve the MILP for the optimal makespan (GLPK or CBC)",
    .usage = "usage: hetsched optimal WORKLOAD [options]\n"
             "\n"
             "Finds the schedule of WORKLOAD's whole tasks with the smallest makespan under\n"
             "the delay model, with a mixed-integer program, and proves it optimal when the\n"
             "solver finishes in time.  The search starts from the best heuristic schedule.\n"
             "Prints the status (optimal; feasible, with the gap to the best bound;\n"
             "infeasible; no solution within the time limit), makespan, bound, model size\n"
             "and solve time.  On a terminal a progress line on stderr shows incumbent,\n"
             "bound, gap and nodes each second.  The heuristics spend at most a quarter of\n"
             "the time limit; the whole command keeps it.\n"
             "\n"
             "An interrupt (Ctrl-C) stops the search: the status says `interrupted' with\n"
             "the gap of the best schedule found, which is written as asked; a second\n"
             "interrupt quits at once (status 130).  A workload over 1000 tasks, or whose\n"
             "model would need too many rows, gets no MILP: the best heuristic schedule,\n"
             "and as bound the LP relaxation of the compact model without its ordering\n"
             "rows (`model  not built' says why).\n"
             "\n"
             "options:\n"
             "  --formulation F     compact (default: assignment and ordering binaries,\n"
             "                      time windows, symmetry breaking) or paper (Zhou & Liu,\n"
             "                      eq. 1-8: position binaries)\n"
             "  --time-limit S      seconds for the whole search (default 60)\n"
             "  --gap G             stop when (makespan - bound) / makespan <= G\n"
             "                      (default 1e-6)\n"
             "  --solver glpk|cbc   the MILP solver (default glpk; cbc where built in)\n"
             "  --verbose           show the solver's own output\n"
             "  --json FILE         write the schedule as JSON ('-' for stdout)\n"
             "  --dot FILE          write the kernel graph with the schedule as DOT\n"
             "                      ('-' for stdout)\n"
             "  --gantt FILE        draw a Gantt chart, FILE.png or FILE.svg\n"
             "  --trace FILE        write a Chrome trace (opens in Perfetto; '-' for stdout)\n"
             "  --tasks-csv FILE    one line per task: task, device, start_us, end_us,\n"
             "                      duration_us, fraction ('-' for stdout)\n"
             "  --devices-csv FILE  one line per device: device, kind, memory, tasks,\n"
             "                      busy_us, utilisation ('-' for stdout)\n"
             "  --write-lp FILE     write the model in CPLEX LP format before solving\n"
             "                      ('-' for stdout; nothing when the model is not built)\n"
             "  --model FILE        performance model (JSON): costs of typed kernels\n"
             "                      without cost_us\n"
             "  --disable LIST      for experiments: switch off parts of the model and the\n"
             "                      search, a comma-separated list of incumbent, symmetry,\n"
             "                      cuts, windows, search (node bounds, a heuristic at\n"
             "                      nodes, branching on assignments first)\n"
             "  -h, --help          this text\n"
             HS_CLI_SOURCE_USAGE
             "\n"
             "Exit status: 0 with a schedule (optimal or feasible), 1 without one, 2 for bad\n"
             "usage or input, 130 after a second interrupt.  When a file goes to stdout, the\n"
             "summary goes to stderr (one file at most may go there).  A file is written\n"
             "whole or not at all.\n",
    .main = optimal_main,
};

/* "incumbent,cuts" -> the HS_MILP_USE_* bits to clear; -1 on an unknown word. */
static int parse_disable(const char *list, unsigned *bits)
{
    static const struct {
        const char *name;
        unsigned bit;
    } words[] = {{"incumbent", HS_MILP_USE_INCUMBENT}, {"symmetry", HS_MILP_USE_SYMMETRY},
                 {"cuts", HS_MILP_USE_CUTS}, {"windows", HS_MILP_USE_WINDOWS},
                 {"search", HS_MILP_USE_SEARCH}};
    const char *p = list;
    while (*p) {
        size_t len = strcspn(p, ","), i;
        for (i = 0; i < sizeof words / sizeof words[0]; i++)
            if (strlen(words[i].name) == len && strncmp(words[i].name, p, len) == 0)
                break;
        if (i == sizeof words / sizeof words[0])
            return -1;
        *bits |= words[i].bit;
        p += len;
        if (*p == ',')
            p++;
    }
    return 0;
}

/* The status line's words: "feasible (gap 1.234%), interrupted". */
static void status_words(FILE *out, const hs_milp_result *r)
{
    if (r->status == HS_MILP_FEASIBLE)
        fprintf(out, "feasible (gap %.3f%%)", 100 * r->gap);
    else if (r->status == HS_MILP_NO_SOLUTION && (r->interrupted || r->not_built[0]))
        fprintf(out, "no solution");
    else
        fprintf(out, "%s", hs_milp_status_name(r->status));
    if (r->interrupted)
        fprintf(out, ", interrupted");
}

static void summarise(FILE *out, const hs_workload *w, const char *path,
                      const hs_milp_options *o, const hs_milp_result *r)
{
    fprintf(out, "workload %s: %zu tasks on %d devices\n", path, w->graph.ntasks,
            w->platform.ndevices);
    fprintf(out, "status     ");
    status_words(out, r);
    fprintf(out, "\n");
    if (r->schedule)
        fprintf(out, "makespan   %.3f us\n", r->makespan_us);
    fprintf(out, "bound      %.3f us (without solving: %.3f us)\n", r->bound_us,
            hs_lower_bound_us(w));
    if (isfinite(r->incumbent_us))
        fprintf(out, "incumbent  %.3f us from %s\n", r->incumbent_us, r->incumbent_from);
    if (isfinite(r->root_bound_us))
        fprintf(out, "%s %.3f us\n", r->not_built[0] ? "LP bound  " : "root LP   ",
                r->root_bound_us); /* without a model: the relaxation without ordering */
    if (r->not_built[0])
        fprintf(out, "model      not built: %s; the schedule is the heuristics' best\n",
                r->not_built);
    else
        fprintf(out, "model      %s (%s): %d rows, %d columns, %d binaries\n",
                o->formulation == HS_MILP_PAPER ? "paper" : "compact",
                o->solver == HS_MILP_CBC ? "cbc" : "glpk", r->rows, r->cols, r->binaries);
    fprintf(out, "search     %.0f nodes, %.2f s\n", r->nodes, r->solve_s);
}

static int optimal_main(int argc, char **argv)
{
    enum { OPT_FORM = 256, OPT_TIME, OPT_GAP, OPT_SOLVER, OPT_VERBOSE, OPT_JSON, OPT_DOT,
           OPT_GANTT, OPT_TRACE, OPT_LP, OPT_DISABLE, OPT_MODEL, OPT_TASKS_CSV, OPT_DEVICES_CSV };
    static const struct option longopts[] = {
        {"formulation", required_argument, NULL, OPT_FORM},
        {"time-limit", required_argument, NULL, OPT_TIME},
        {"gap", required_argument, NULL, OPT_GAP},
        {"solver", required_argument, NULL, OPT_SOLVER},
        {"verbose", no_argument, NULL, OPT_VERBOSE},
        {"json", required_argument, NULL, OPT_JSON},
        {"dot", required_argument, NULL, OPT_DOT},
        {"gantt", required_argument, NULL, OPT_GANTT},
        {"trace", required_argument, NULL, OPT_TRACE},
        {"tasks-csv", required_argument, NULL, OPT_TASKS_CSV},
        {"devices-csv", required_argument, NULL, OPT_DEVICES_CSV},
        {"write-lp", required_argument, NULL, OPT_LP},
        {"disable", required_argument, NULL, OPT_DISABLE},
        {"model", required_argument, NULL, OPT_MODEL},
        HS_CLI_SOURCE_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    hs_cli_source src = {.cmd = &hs_cmd_optimal};
    const char *model_path = NULL;
    hs_cli_outputs outputs = {0};
    hs_perfmodel *model = NULL;
    hs_milp_options opt;
    hs_milp_result res;
    hs_workload *w;
    hs_error err = {0};
    unsigned off = 0;
    int c, rc, status = 0;
    FILE *out = stdout;
    hs_milp_options_init(&opt);
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        int taken = hs_cli_source_option(&src, c, optarg);
        if (taken < 0)
            return 2;
        if (taken)
            continue;
        switch (c) {
        case OPT_FORM:
            if (strcmp(optarg, "compact") == 0)
                opt.formulation = HS_MILP_COMPACT;
            else if (strcmp(optarg, "paper") == 0)
                opt.formulation = HS_MILP_PAPER;
            else
                return hs_cli_usage_error(&hs_cmd_optimal, "--formulation is compact or paper, "
                                          "not '%s'", optarg);
            break;
        case OPT_TIME:
            if (hs_cli_parse_real(optarg, 1e-3, 1e7, &opt.time_limit_s) != 0)
                return hs_cli_usage_error(&hs_cmd_optimal, "--time-limit wants seconds between "
                                          "0.001 and 1e7, not '%s'", optarg);
            break;
        case OPT_GAP:
            if (hs_cli_parse_real(optarg, 0, 0.999999, &opt.rel_gap) != 0)
                return hs_cli_usage_error(&hs_cmd_optimal, "--gap wants a number in [0, 1), "
                                          "not '%s'", optarg);
            break;
        case OPT_SOLVER:
            if (strcmp(optarg, "glpk") == 0)
                opt.solver = HS_MILP_GLPK;
            else if (strcmp(optarg, "cbc") == 0)
                opt.solver = HS_MILP_CBC;
            else
                return hs_cli_usage_error(&hs_cmd_optimal, "--solver is glpk or cbc, not '%s'",
                                          optarg);
            break;
        case OPT_VERBOSE: opt.verbose = 1; break;
        case OPT_JSON: outputs.json = optarg; break;
        case OPT_DOT: outputs.dot = optarg; break;
        case OPT_GANTT: outputs.gantt = optarg; break;
        case OPT_TRACE: outputs.trace = optarg; break;
        case OPT_TASKS_CSV: outputs.tasks_csv = optarg; break;
        case OPT_DEVICES_CSV: outputs.devices_csv = optarg; break;
        case OPT_LP: opt.lp_file = optarg; break;
        case OPT_MODEL: model_path = optarg; break;
        case OPT_DISABLE:
            if (parse_disable(optarg, &off) != 0)
                return hs_cli_usage_error(&hs_cmd_optimal, "--disable takes a comma-separated "
                                          "list of incumbent, symmetry, cuts, windows, search, "
                                          "not '%s'", optarg);
            break;
        case ':':
            return hs_cli_usage_error(&hs_cmd_optimal, "option '%s' needs a value",
                                      argv[optind - 1]);
        default:
            return hs_cli_usage_error(&hs_cmd_optimal, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return hs_cli_usage_error(&hs_cmd_optimal, "expected one WORKLOAD, got %d arguments",
                                  argc - optind);
    if ((status = hs_cli_outputs_check(&hs_cmd_optimal, &outputs, "--write-lp", opt.lp_file)))
        return status;
    opt.features &= ~off;
    if (hs_milp_check(&opt, &err) != HS_OK) { /* before the workload is read */
        fprintf(stderr, "hetsched: %s\n", err.msg);
        return 2;
    }
    if (!(w = hs_cli_load_model(argv[optind], &src, model_path, &model, &status)))
        return status;
    if (hs_cli_outputs_use_stdout(&outputs) || (opt.lp_file && strcmp(opt.lp_file, "-") == 0))
        out = stderr;
    opt.stop = &hs_cli_stop;
    hs_cli_catch_interrupt();
    rc = hs_milp_solve(w, &opt, &res, &err);
    hs_cli_release_interrupt();
    if (rc != HS_OK) {
        status = hs_cli_fail(&err);
        hs_workload_free(w);
        hs_perfmodel_free(model);
        return status;
    }
    summarise(out, w, argv[optind], &opt, &res);
    if (!res.schedule) {
        status = 1;
    } else if (hs_cli_write_outputs(w, res.schedule, &outputs, &err) != HS_OK) {
        status = hs_cli_fail(&err);
    }
    hs_milp_result_free(&res);
    hs_workload_free(w);
    hs_perfmodel_free(model);
    return status;
}
