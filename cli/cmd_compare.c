/* hetsched compare — every registered policy on one workload side by side:
 * makespan, speedup over cpu-only, SLR, ratio to the best policy, to the
 * cheap lower bound and, with --optimal, to the MILP optimum (the shape of
 * Table 3 of Zhou & Liu); or, with --random N, over N seeded random
 * Topcuoglu-style workloads, each policy's mean and worst ratio to the best.
 * Every schedule passes hs_schedule_validate before it counts. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>

#include <jansson.h>

#include "cli.h"

static int compare_main(int argc, char **argv);

const hs_cli_cmd hs_cmd_compare = {
    .name = "compare",
    .summary = "every policy side by side on one workload, a suite, or N random ones",
    .usage =
        "usage: hetsched compare WORKLOAD [options]\n"
        "       hetsched compare --suite DIR|FILE... [--csv F] [--json F] [options]\n"
        "       hetsched compare --random N [--seed S] [--thr T] [-v]\n"
        "\n"
        "Maps WORKLOAD with every registered policy in the simulator (delay model, or\n"
        "the executor's model with --predict executor), validates each schedule and\n"
        "prints one row per policy:\n"
        "  makespan us  the simulated makespan\n"
        "  speedup      cpu-only's makespan / this one ('-' without a CPU device)\n"
        "  SLR          schedule length ratio: makespan / the critical path where each\n"
        "               task takes its fastest cost and transfers cost nothing\n"
        "  /best        makespan / the best policy's\n"
        "  /bound       makespan / the lower bound of the header line (the larger of\n"
        "               the critical path with fastest costs and unavoidable transfers,\n"
        "               and the total fastest work / devices)\n"
        "  /optimum     with --optimal: makespan / the MILP optimum (or, when it is not\n"
        "               proven in time, / the MILP's lower bound: the note says so)\n"
        "  map ms       time the policy spent deciding, in milliseconds\n"
        "A policy marked * split tasks across devices (ad-part): the MILP, the\n"
        "critical-path bound and SLR's path are over whole tasks, so its ratios to\n"
        "them may fall below 1.\n"
        "\n"
        "options:\n"
        "  --optimal           also solve the MILP (hetsched optimal) and add a row\n"
        "                      `optimal` and the /optimum column; an interrupt (Ctrl-C)\n"
        "                      stops its search and the table shows the best schedule\n"
        "                      found, marked interrupted, with its gap.  Over 1000\n"
        "                      tasks (or too many rows) there is no MILP: the row is the\n"
        "                      best heuristic schedule and /optimum divides by a bound\n"
        "                      (LP relaxation); the note under the table says so\n"
        "  --time-limit S      seconds for the MILP (default 60; needs --optimal)\n"
        "  --seed N            seed of the `random` policy, and with --random of the\n"
        "                      workloads drawn (default 0)\n"
        "  --thr N             dispatch threshold of h-ratio, d-rank and ad-part\n"
        "                      (default: the policy's)\n"
        "  --csv FILE          also write the table as CSV ('-': stdout, the table then\n"
        "                      on stderr): policy,split,makespan_us,speedup,slr,\n"
        "                      per_best,per_bound,per_optimum,map_ms,not_run with\n"
        "                      15 digits, a ratio left empty where the table has '-',\n"
        "                      not_run the reason a policy could not map the workload.\n"
        "                      With --suite: the suite's rows (see --suite)\n"
        "  --json DIR          write each policy's schedule as DIR/POLICY.json (and\n"
        "                      DIR/optimal.json); DIR is created if missing.  With\n"
        "                      --suite: --json FILE, the rows as JSON, {\"rows\": [...]}\n"
        "  --model FILE        performance model (JSON): costs of typed kernels\n"
        "                      without cost_us, and ad-part's part costs\n"
        "  --split SPLITTER    split the kernels marked splittable across the devices\n"
        "                      with a chunk splitter (as `map --split`; ad-part, which\n"
        "                      splits by itself, does not run)\n"
        "  --predict MODEL     the simulator's model (as `map --predict`): delay\n"
        "                      (default), or executor, what a real run of each\n"
        "                      schedule takes: copies queue on their link, each device\n"
        "                      holds as many started tasks as a real backend lets it.\n"
        "                      The MILP optimises the delay model: --optimal goes with\n"
        "                      delay only (`map --schedule DIR/optimal.json --predict\n"
        "                      executor` shows its schedule in the executor's model)\n"
        "  --random N          instead of WORKLOAD: N random workloads of Topcuoglu et\n"
        "                      al. (hs_gen_random), each drawn from --seed: tasks\n"
        "                      20..200 by 20, alpha 0.5|1|2, out-degree 1..5, CCR\n"
        "                      0.1|1|5, beta 0.1|0.25|0.5|0.75|1, on cpu:1,gpu:1 (even\n"
        "                      instances) and cpu:1,gpu:2 (odd); prints per policy the\n"
        "                      mean and worst ratio to the best policy, how often it was\n"
        "                      best, the mean ratio to the lower bound, the mean speedup\n"
        "                      over cpu-only and SLR and the mean mapping time\n"
        "  -v, --verbose       with --random: one line per workload, with the best\n"
        "                      policy and the `hetsched gen` command that rebuilds it\n"
        "  --suite             the arguments are a suite of workloads: files, and\n"
        "                      directories whose files named .yaml .yml .stg .json .dot\n"
        "                      .gv (every file with --format) are taken by name, not\n"
        "                      descending further; prints each workload's table, then\n"
        "                      per policy the mean and worst ratio to the best, how\n"
        "                      often it was best, the mean ratio to the lower bound,\n"
        "                      speedup, SLR and mapping time.  Task-graph sets need\n"
        "                      --platform; YAML workloads keep their own platform.  A\n"
        "                      file that cannot be read is said and skipped (exit 2)\n"
        "  --suite --csv FILE  one row per workload and policy (a file: the tables\n"
        "                      go to stdout): workload, format, tasks,\n"
        "                      edges, devices, policy, makespan_us, speedup, slr,\n"
        "                      ratio_best, ratio_bound, map_ms, lower_bound_us,\n"
        "                      critical_path_us, split (1: the policy split tasks),\n"
        "                      note (why a policy did not run); a value not measured\n"
        "                      is empty (null in --json)\n"
        "  -h, --help          this text\n"
        HS_CLI_SOURCE_USAGE
        "\n"
        "examples:\n"
        "  hetsched compare workloads/case-study.yaml --optimal\n"
        "  hetsched compare --random 100 --seed 0\n"
        "  hetsched compare --suite workloads/sets --platform workloads/case-study.yaml \\\n"
        "      --speed gpu=4 --csv suite.csv\n"
        "\n"
        "Exit status: 0 done, 1 a policy failed or gave an invalid schedule (a bug),\n"
        "2 bad usage or input.\n",
    .main = compare_main,
};

/* What one policy did on one workload. */
typedef struct outcome {
    const char *policy;
    int ran;                      /* 1: a valid schedule; 0: the policy cannot take this
                                     workload (why says so) */
    char why[HS_ERROR_MSG_MAX];
    double makespan_us;
    double map_ms;                /* hs_map_stats.mapping_seconds, in ms */
    int split;                    /* some task ran as parts */
} outcome;

/* Writes schedule s as DIR/NAME.json. */
static int write_json_in(const hs_workload *w, const hs_schedule *s, const char *dir,
                         const char *name, hs_error *err)
{
    size_t len = strlen(dir) + strlen(name) + 7;
    char *path = malloc(len);
    int rc;
    if (!path)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    snprintf(path, len, "%s/%s.json", dir, name);
    rc = hs_schedule_write_json(w, s, path, err);
    free(path);
    return rc;
}

/* Maps w with each policy of list under opt into rows[0..).  A policy
 * that refuses the workload (HS_EINPUT, e.g. cpu-only without a CPU) gets
 * ran = 0 and its reason; any other failure, or a schedule the validator
 * rejects, is returned as an error (HS_EINVALID for an invalid schedule).
 * With json_dir set, each schedule is written there. */
static int map_each(hs_workload *w, const hs_policy *const *list, const hs_map_options *opt,
                    const char *json_dir, outcome *rows, hs_error *err)
{
    for (size_t i = 0; list[i]; i++) {
        outcome *r = &rows[i];
        hs_schedule *s = NULL;
        hs_map_stats st = {0};
        hs_error perr = {0};
        int rc;
        memset(r, 0, sizeof *r);
        r->policy = hs_policy_name(list[i]);
        rc = hs_map(w, r->policy, opt, &s, &st, &perr);
        if (rc == HS_EINPUT) {
            snprintf(r->why, sizeof r->why, "%s", perr.msg);
            continue;
        }
        if (rc != HS_OK)
            return hs_error_set(err, rc, "policy %s: %s", r->policy, perr.msg);
        if (hs_schedule_validate(w, s, &perr) != HS_OK) {
            hs_schedule_free(s);
            return hs_error_set(err, HS_EINVALID, "policy %s gave an invalid schedule (a bug): "
                                "%s", r->policy, perr.msg);
        }
        if (json_dir && (rc = write_json_in(w, s, json_dir, r->policy, err)) != HS_OK) {
            hs_schedule_free(s);
            return rc;
        }
        r->ran = 1;
        r->makespan_us = s->makespan_us;
        r->map_ms = 1e3 * st.mapping_seconds;
        for (size_t k = 0; k < s->nplacements; k++)
            if (s->placements[k].nparts > 1)
                r->split = 1;
        hs_schedule_free(s);
    }
    return HS_OK;
}

/* Maps w with every registered policy into rows[0..npolicies) (map_each),
 * in the delay model or, with executor, the executor's model with the
 * depths of a real run. */
static int run_policies(hs_workload *w, const hs_map_options *mopt, int executor,
                        const char *json_dir, outcome *rows, hs_error *err)
{
    hs_map_options opt = *mopt;
    int *depth = NULL, rc;
    if (executor && !(opt.executor_depth = depth = hs_cli_executor_depths(w, err)))
        return err->code;
    rc = map_each(w, hs_policy_list(), &opt, json_dir, rows, err);
    free(depth);
    return rc;
}

/* The best makespan among the rows that ran (HUGE_VAL if none did) and the
 * makespan of cpu-only (NAN when it did not run). */
static double best_makespan(const outcome *rows, size_t n, double *cpu_only)
{
    double best = HUGE_VAL;
    *cpu_only = NAN;
    for (size_t i = 0; i < n; i++) {
        if (!rows[i].ran)
            continue;
        if (rows[i].makespan_us < best)
            best = rows[i].makespan_us;
        if (strcmp(rows[i].policy, "cpu-only") == 0)
            *cpu_only = rows[i].makespan_us;
    }
    return best;
}

/* a / b with `prec` decimals into buf, or "-" when either is not a positive
 * finite number (no CPU device, a bound of 0, no optimum). */
static const char *ratio(char *buf, size_t size, double a, double b, int prec)
{
    if (!(isfinite(a) && isfinite(b) && a >= 0 && b > 0))
        return "-";
    snprintf(buf, size, "%.*f", prec, a / b);
    return buf;
}

/* ============================================================ one workload */

/* The MILP's part of the table: the result, and what /optimum divides by. */
typedef struct optimum {
    int have;                     /* --optimal and the solver answered */
    hs_milp_result res;
    double ref_us;                /* optimum, or the bound when not proven */
} optimum;

/* One row of the table. */
static void print_row(FILE *out, int width, const char *name, double makespan, double cpu_only,
                      double cp, double best, double lb, const optimum *o, double ms)
{
    char b[6][32];
    if (isfinite(makespan))
        snprintf(b[0], sizeof b[0], "%.3f", makespan);
    else
        snprintf(b[0], sizeof b[0], "-");
    fprintf(out, "%-*s %13s %8s %7s %7s %7s", width, name, b[0],
           ratio(b[1], sizeof b[1], cpu_only, makespan, 3),
           ratio(b[2], sizeof b[2], makespan, cp, 3), ratio(b[3], sizeof b[3], makespan, best, 3),
           ratio(b[4], sizeof b[4], makespan, lb, 3));
    if (o)
        fprintf(out, " %8s", ratio(b[5], sizeof b[5], makespan, o->ref_us, 3));
    fprintf(out, " %9.3f\n", ms);
}

/* Prints the header, one row per policy, the optimal row and the notes;
 * executor: the makespans are the executor's model's. */
static void print_table(FILE *out, const hs_workload *w, const char *path, const outcome *rows,
                        size_t n, int executor, double lb, double cp, const optimum *o)
{
    double cpu_only, best = best_makespan(rows, n, &cpu_only);
    int width = 7, any_split = 0;
    for (size_t i = 0; i < n; i++) {
        int len = (int)strlen(rows[i].policy) + (rows[i].split ? 1 : 0);
        if (len > width)
            width = len;
    }
    fprintf(out, "workload %s: %zu task%s, %zu edge%s, %d device%s (", path, w->graph.ntasks,
            hs_cli_plural(w->graph.ntasks), w->graph.nedges, hs_cli_plural(w->graph.nedges),
            w->platform.ndevices, hs_cli_plural((unsigned)w->platform.ndevices));
    for (int d = 0; d < w->platform.ndevices; d++)
        fprintf(out, "%s%s %s", d ? ", " : "", w->platform.devices[d].name,
               hs_device_kind_name(w->platform.devices[d].kind));
    fprintf(out, ")\nlower bound %.3f us (/bound)\n"
           "critical path, fastest costs, no transfers %.3f us (SLR)\n", lb, cp);
    if (executor)
        fprintf(out, "makespans in the executor's model: what a real run takes (copies queue on "
                "their link)\n");
    fprintf(out, "\n");
    fprintf(out, "%-*s %13s %8s %7s %7s %7s", width, "policy", "makespan us", "speedup", "SLR",
           "/best", "/bound");
    if (o)
        fprintf(out, " %8s", "/optimum");
    fprintf(out, " %9s\n", "map ms");
    for (size_t i = 0; i < n; i++) {
        char name[64];
        snprintf(name, sizeof name, "%s%s", rows[i].policy, rows[i].split ? "*" : "");
        any_split |= rows[i].split;
        if (rows[i].ran)
            print_row(out, width, name, rows[i].makespan_us, cpu_only, cp, best, lb, o,
                      rows[i].map_ms);
        else
            fprintf(out, "%-*s n/a: %s\n", width, name, rows[i].why);
    }
    if (o)
        print_row(out, width, "optimal", o->res.schedule ? o->res.makespan_us : HUGE_VAL, cpu_only,
                  cp, best, lb, o, 1e3 * o->res.solve_s);
    fprintf(out, "\n");
    if (any_split)
        fprintf(out, "* split tasks across devices: the MILP, the lower bound's critical path and\n"
               "  SLR's path are over whole tasks, so this row may beat them (ratios < 1).\n");
    if (o) {
        const hs_milp_result *r = &o->res;
        if (r->status == HS_MILP_OPTIMAL)
            fprintf(out, "optimal: proven optimal by the MILP, %.0f nodes (its row's map ms is the "
                   "solve time)\n", r->nodes);
        else if (r->not_built[0])
            fprintf(out, "optimal: NOT proven: no MILP (%s);\n  the row is the best heuristic "
                   "schedule, gap %.2f%% to the lower bound %.3f us (%s),\n  by which "
                   "/optimum divides, so it overstates each ratio by at most that gap\n",
                   r->not_built, 100 * r->gap, r->bound_us,
                   isfinite(r->root_bound_us) ? "LP relaxation" : "critical path and load");
        else if (r->status == HS_MILP_FEASIBLE)
            fprintf(out, "optimal: NOT proven (%s, gap %.2f%%, %.2f s): /optimum divides by the "
                   "MILP's\n  lower bound %.3f us, so it overstates each ratio by at most that "
                   "gap\n", r->interrupted ? "interrupted" : "feasible", 100 * r->gap,
                   r->solve_s, r->bound_us);
        else
            fprintf(out, "optimal: %s (%.2f s): /optimum divides by the MILP's lower bound "
                    "%.3f us\n", r->interrupted ? "interrupted" : hs_milp_status_name(r->status),
                    r->solve_s, r->bound_us);
    }
}

/* A ratio for the CSV: a / b with 15 digits, or nothing where the table
 * prints "-". */
static void csv_ratio(FILE *f, double a, double b)
{
    if (isfinite(a) && isfinite(b) && a >= 0 && b > 0)
        fprintf(f, "%.15g", a / b);
}

/* One CSV row: the table's columns as numbers (15 digits; empty where the
 * table prints "-"), then the reason a policy did not run, quoted. */
static void csv_row(FILE *f, const char *name, int split, double makespan, double cpu_only,
                    double cp, double best, double lb, const optimum *o, double ms,
                    const char *why)
{
    fprintf(f, "%s,%d,", name, split);
    if (isfinite(makespan))
        fprintf(f, "%.15g", makespan);
    fputc(',', f);
    csv_ratio(f, cpu_only, makespan);
    fputc(',', f);
    csv_ratio(f, makespan, cp);
    fputc(',', f);
    csv_ratio(f, makespan, best);
    fputc(',', f);
    csv_ratio(f, makespan, lb);
    fputc(',', f);
    if (o)
        csv_ratio(f, makespan, o->ref_us);
    fputc(',', f);
    if (!why)
        fprintf(f, "%.15g", ms);
    fputc(',', f);
    if (why) {
        fputc('"', f);
        for (const char *c = why; *c; c++) /* RFC 4180: a quote doubled */
            fputs(*c == '"' ? "\"\"" : (char[2]){*c, 0}, f);
        fputc('"', f);
    }
    fputc('\n', f);
}

/* The table as CSV at `path` ('-': stdout), one header line and one line
 * per row (the optimal row with --optimal), written whole or not at all. */
static int write_csv(const char *path, const outcome *rows, size_t n, double lb, double cp,
                     const optimum *o, hs_error *err)
{
    double cpu_only, best = best_makespan(rows, n, &cpu_only);
    hs_output f;
    int rc;
    if ((rc = hs_output_open(&f, path, err)) != HS_OK)
        return rc;
    fprintf(f.f, "policy,split,makespan_us,speedup,slr,per_best,per_bound,per_optimum,map_ms,"
                 "not_run\n");
    for (size_t i = 0; i < n; i++)
        csv_row(f.f, rows[i].policy, rows[i].split, rows[i].ran ? rows[i].makespan_us : NAN,
                cpu_only, cp, best, lb, o, rows[i].map_ms, rows[i].ran ? NULL : rows[i].why);
    if (o)
        csv_row(f.f, "optimal", 0, o->res.schedule ? o->res.makespan_us : HUGE_VAL, cpu_only,
                cp, best, lb, o, 1e3 * o->res.solve_s, NULL);
    return hs_output_close(&f, ferror(f.f) ? hs_output_error(&f, err) : HS_OK, err);
}

/* `compare WORKLOAD`: loads it, maps it with every policy (and solves the
 * MILP with want_optimal), prints the table; returns the exit status.  A
 * failing MILP still leaves the table printed, then says why. */
static int compare_one(const char *path, const hs_cli_source *src, const char *model_path,
                       const hs_map_options *mopt, int executor, const char *json_dir,
                       const char *csv, int want_optimal, double time_limit)
{
    hs_map_options opt = *mopt;
    hs_perfmodel *model = NULL;
    size_t n = 0;
    outcome *rows;
    hs_workload *w;
    hs_error err = {0}, milp_err = {0};
    optimum o = {0};
    double lb, cp = 0;
    int status = 0, rc, milp_rc = HS_OK;
    while (hs_policy_list()[n])
        n++;
    if (!(w = hs_cli_load_model(path, src, model_path, &model, &status)))
        return status;
    opt.perfmodel = model;
    if (opt.split)
        hs_cli_warn_nothing_splittable(&hs_cmd_compare, w, path);
    if (json_dir && mkdir(json_dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "hetsched: cannot create %s: %s\n", json_dir, strerror(errno));
        hs_workload_free(w);
        hs_perfmodel_free(model);
        return 1;
    }
    if (!(rows = calloc(n, sizeof *rows))) {
        hs_workload_free(w);
        hs_perfmodel_free(model);
        fprintf(stderr, "hetsched: out of memory\n");
        return 1;
    }
    lb = hs_lower_bound_us(w);
    rc = hs_graph_critical_path_us(&w->graph, &cp, &err);
    if (rc == HS_OK)
        rc = run_policies(w, &opt, executor, json_dir, rows, &err);
    if (rc == HS_OK && want_optimal) {
        hs_milp_options mo;
        hs_milp_options_init(&mo);
        mo.time_limit_s = time_limit;
        mo.stop = &hs_cli_stop;
        hs_cli_catch_interrupt();
        milp_rc = hs_milp_solve(w, &mo, &o.res, &milp_err);
        hs_cli_release_interrupt();
        if (milp_rc == HS_OK) {
            o.have = 1;
            o.ref_us = o.res.status == HS_MILP_OPTIMAL ? o.res.makespan_us : o.res.bound_us;
            if (o.res.schedule && hs_schedule_validate(w, o.res.schedule, &milp_err) != HS_OK)
                rc = hs_error_set(&err, HS_EINVALID, "the MILP gave an invalid schedule "
                                  "(a bug): %s", milp_err.msg);
            if (rc == HS_OK && json_dir && o.res.schedule)
                rc = write_json_in(w, o.res.schedule, json_dir, "optimal", &err);
        }
    }
    if (rc == HS_OK) {
        double cpu_only;
        if (!isfinite(best_makespan(rows, n, &cpu_only)))
            rc = hs_error_set(&err, HS_EINTERNAL, "no policy could map %s", path);
        else if (csv)
            rc = write_csv(csv, rows, n, lb, cp, o.have ? &o : NULL, &err);
        if (rc == HS_OK) /* beside a CSV on stdout, the table goes to stderr */
            print_table(csv && strcmp(csv, "-") == 0 ? stderr : stdout, w, path, rows, n,
                        executor, lb, cp, o.have ? &o : NULL);
    }
    if (rc != HS_OK)
        status = hs_cli_fail(&err);
    else if (milp_rc != HS_OK) /* the table stands; say why the optimum is missing */
        status = hs_cli_fail(&milp_err);
    if (o.have)
        hs_milp_result_free(&o.res);
    free(rows);
    hs_workload_free(w);
    hs_perfmodel_free(model);
    return status;
}

/* ============================================================ random sweep */

/* One policy's totals over the random workloads. */
typedef struct tally {
    size_t ran, best_in;
    double sum_best, worst_best, sum_bound, sum_speedup, sum_slr, sum_ms;
} tally;

/* Adds workload w's outcomes to the tallies. */
static void tally_add(tally *t, const outcome *rows, size_t n, double lb, double cp)
{
    double cpu_only, best = best_makespan(rows, n, &cpu_only);
    for (size_t i = 0; i < n; i++) {
        double q;
        if (!rows[i].ran)
            continue;
        q = rows[i].makespan_us / best;
        t[i].ran++;
        t[i].best_in += rows[i].makespan_us <= best * (1 + 1e-9);
        t[i].sum_best += q;
        if (q > t[i].worst_best)
            t[i].worst_best = q;
        t[i].sum_bound += lb > 0 ? rows[i].makespan_us / lb : NAN;
        t[i].sum_speedup += cpu_only / rows[i].makespan_us;
        t[i].sum_slr += cp > 0 ? rows[i].makespan_us / cp : NAN;
        t[i].sum_ms += rows[i].map_ms;
    }
}

/* The summary table over `count` workloads: one row per policy from its
 * tally. */
static void print_tally(const outcome *rows, const tally *t, size_t n, size_t count)
{
    int width = 6;
    for (size_t i = 0; i < n; i++)
        if ((int)strlen(rows[i].policy) > width)
            width = (int)strlen(rows[i].policy);
    printf("%-*s %9s %10s %7s %10s %8s %7s %8s\n", width, "policy", "mean/best", "worst/best",
           "best in", "mean/bound", "speedup", "SLR", "map ms");
    for (size_t i = 0; i < n; i++) {
        double k = (double)t[i].ran;
        if (!t[i].ran) {
            printf("%-*s n/a on every workload\n", width, rows[i].policy);
            continue;
        }
        printf("%-*s %9.3f %10.3f %7zu %10.3f %8.3f %7.3f %8.3f", width, rows[i].policy,
               t[i].sum_best / k, t[i].worst_best, t[i].best_in, t[i].sum_bound / k,
               t[i].sum_speedup / k, t[i].sum_slr / k, t[i].sum_ms / k);
        if (t[i].ran < count)
            printf("  (ran on %zu)", t[i].ran);
        printf("\n");
    }
    printf("\nmean/best, worst/best: makespan / the best policy's on the same workload;\n"
           "best in: workloads where it was best (ties count for each); mean/bound: to the\n"
           "lower bound; speedup over cpu-only, SLR and mapping time are means.\n");
}

/* `compare --random N`: draws, builds and maps N workloads one at a time
 * (each freed before the next), prints the summary; returns the exit status.
 * A failure names the workload as the `hetsched gen` command that rebuilds it. */
static int compare_random(size_t count, const hs_map_options *mopt, int executor, int verbose)
{
    size_t n = 0;
    outcome *rows;
    tally *t;
    hs_gen_sweep *sw = hs_gen_sweep_new(mopt->seed);
    hs_error err = {0};
    int rc = HS_OK;
    while (hs_policy_list()[n])
        n++;
    rows = calloc(n, sizeof *rows);
    t = calloc(n, sizeof *t);
    if (!sw || !rows || !t) {
        rc = hs_error_set(&err, HS_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < count && rc == HS_OK; i++) {
        hs_gen_random_opts o;
        const char *devices;
        hs_workload *w = NULL;
        double lb, cp = 0, cpu_only, best;
        if ((rc = hs_gen_sweep_next(sw, &o, &devices, &w, &err)) != HS_OK)
            break;
        lb = hs_lower_bound_us(w);
        rc = hs_graph_critical_path_us(&w->graph, &cp, &err);
        if (rc == HS_OK)
            rc = run_policies(w, mopt, executor, NULL, rows, &err);
        if (rc == HS_OK && !isfinite(best = best_makespan(rows, n, &cpu_only)))
            rc = hs_error_set(&err, HS_EINTERNAL, "no policy could map random workload %zu", i);
        if (rc == HS_OK) {
            tally_add(t, rows, n, lb, cp);
            if (verbose) {
                size_t wi = 0;
                for (size_t k = 0; k < n; k++)
                    if (rows[k].ran && rows[k].makespan_us > rows[wi].makespan_us)
                        wi = k;
                for (size_t k = 0; k < n; k++)
                    if (rows[k].ran && rows[k].makespan_us <= best) {
                        printf("#%-3zu best %s %.3f us, worst %s x%.3f: hetsched gen random "
                               "--tasks %zu\n     --alpha %g --out-degree %d --ccr %g --beta %g "
                               "--devices %s --seed %lu\n", i, rows[k].policy, best,
                               rows[wi].policy, rows[wi].makespan_us / best, o.tasks, o.alpha,
                               o.out_degree, o.ccr, o.beta, devices, o.seed);
                        break;
                    }
            }
        } else {
            /* name the workload, so that the failure can be rebuilt */
            fprintf(stderr, "hetsched: random workload %zu: hetsched gen random --tasks %zu "
                    "--alpha %g --out-degree %d --ccr %g --beta %g --devices %s --seed %lu\n",
                    i, o.tasks, o.alpha, o.out_degree, o.ccr, o.beta, devices, o.seed);
        }
        hs_workload_free(w);
    }
    if (rc == HS_OK) {
        if (verbose)
            printf("\n");
        printf("%zu random workloads (Topcuoglu et al. 2002), seed %lu: tasks 20..200, alpha\n"
               "0.5|1|2, out-degree 1..5, CCR 0.1|1|5, beta 0.1..1; cpu:1,gpu:1 and "
               "cpu:1,gpu:2\n\n", count, mopt->seed);
        print_tally(rows, t, n, count);
    }
out:
    hs_gen_sweep_free(sw);
    free(rows);
    free(t);
    return rc == HS_OK ? 0 : hs_cli_fail(&err);
}

/* ================================================================== suite */

/* Does `name` hold a workload of a known format (or any, with --format)? */
static int suite_member(const hs_cli_source *src, const char *name)
{
    return name[0] != '.' && (src->format || hs_workload_format_of(name));
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends a copy of `path` to the list. */
static int push_path(char ***list, size_t *n, size_t *cap, const char *dir, const char *name)
{
    size_t len = (dir ? strlen(dir) + 1 : 0) + strlen(name) + 1;
    char *p = malloc(len);
    if (!p)
        return -1;
    snprintf(p, len, "%s%s%s", dir ? dir : "", dir ? "/" : "", name);
    if (*n == *cap) {
        char **grown = realloc(*list, (*cap ? 2 * *cap : 16) * sizeof *grown);
        if (!grown) {
            free(p);
            return -1;
        }
        *list = grown;
        *cap = *cap ? 2 * *cap : 16;
    }
    (*list)[(*n)++] = p;
    return 0;
}

/* The workloads of `--suite ARG...`: a file as it is, a directory's files of
 * a known format (all its files with --format), by name, not descending into
 * its subdirectories.  Returns 0, or the exit status after saying why. */
static int suite_paths(const hs_cli_source *src, char **args, int nargs, char ***out,
                       size_t *count)
{
    size_t n = 0, cap = 0;
    char **list = NULL;
    int status = 0;
    for (int i = 0; i < nargs && status == 0; i++) {
        struct stat st;
        size_t first = n;
        DIR *d;
        if (stat(args[i], &st) != 0 || !S_ISDIR(st.st_mode)) {
            if (push_path(&list, &n, &cap, NULL, args[i]) != 0)
                status = 1;
            continue;
        }
        if (!(d = opendir(args[i]))) {
            fprintf(stderr, "hetsched: %s: cannot read: %s\n", args[i], strerror(errno));
            status = 2;
            break;
        }
        for (struct dirent *e; status == 0 && (e = readdir(d));) {
            char *path;
            size_t len = strlen(args[i]) + strlen(e->d_name) + 2;
            if (!suite_member(src, e->d_name))
                continue;
            if (!(path = malloc(len))) {
                status = 1;
                break;
            }
            snprintf(path, len, "%s/%s", args[i], e->d_name);
            if (stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
                push_path(&list, &n, &cap, args[i], e->d_name) != 0)
                status = 1;
            free(path);
        }
        closedir(d);
        if (status == 0 && n == first) {
            fprintf(stderr, "hetsched compare: %s holds no workload (files named .yaml, .yml, "
                    ".stg, .json, .dot or .gv, or any with --format)\n", args[i]);
            status = 2;
        } else if (n > first) { /* list is NULL while nothing is in it */
            qsort(list + first, n - first, sizeof *list, by_name);
        }
    }
    if (status == 1)
        fprintf(stderr, "hetsched: out of memory\n");
    if (status != 0) {
        for (size_t i = 0; i < n; i++)
            free(list[i]);
        free(list);
        return status;
    }
    *out = list;
    *count = n;
    return 0;
}

/* The files --csv and --json write: one row per workload and policy. */
typedef struct suite_out {
    FILE *csv;                    /* csv_out.f while open */
    hs_output csv_out;
    const char *csv_path, *json_path;
    json_t *rows;
} suite_out;

/* A number for the rows: NAN (not measured) is empty in CSV, null in JSON. */
static void csv_number(FILE *f, double x)
{
    if (isfinite(x))
        fprintf(f, ",%.10g", x);
    else
        fputs(",", f);
}

static json_t *json_number(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

/* A CSV field, quoted as RFC 4180 says when it holds a comma, a quote or
 * a line break. */
static void csv_text(FILE *f, const char *text, int first)
{
    if (!first)
        fputc(',', f);
    if (!strpbrk(text, ",\"\r\n")) {
        fputs(text, f);
        return;
    }
    fputc('"', f);
    for (const char *c = text; *c; c++) {
        if (*c == '"')
            fputc('"', f);
        fputc(*c, f);
    }
    fputc('"', f);
}

static const char *const row_columns =
    "workload,format,tasks,edges,devices,policy,makespan_us,speedup,slr,ratio_best,"
    "ratio_bound,map_ms,lower_bound_us,critical_path_us,split,note\n";

/* Adds workload w's rows (one per policy) to the outputs. */
static int suite_rows(suite_out *o, const char *path, const char *format, const hs_workload *w,
                      const outcome *rows, size_t n, double lb, double cp)
{
    double cpu_only, best = best_makespan(rows, n, &cpu_only);
    for (size_t i = 0; i < n; i++) {
        const outcome *r = &rows[i];
        double m = r->ran ? r->makespan_us : NAN;
        double v[7] = {m, cpu_only / m, cp > 0 ? m / cp : NAN, m / best, lb > 0 ? m / lb : NAN,
                       r->ran ? r->map_ms : NAN, lb};
        if (o->csv) {
            csv_text(o->csv, path, 1);
            csv_text(o->csv, format, 0);
            fprintf(o->csv, ",%zu,%zu,%d", w->graph.ntasks, w->graph.nedges,
                    w->platform.ndevices);
            csv_text(o->csv, r->policy, 0);
            for (int k = 0; k < 7; k++)
                csv_number(o->csv, v[k]);
            csv_number(o->csv, cp);
            fprintf(o->csv, ",%d", r->split);
            csv_text(o->csv, r->ran ? "" : r->why, 0);
            fputc('\n', o->csv);
        }
        if (o->rows &&
            json_array_append_new(o->rows, json_pack(
                "{s:s, s:s, s:I, s:I, s:i, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:b, "
                "s:o}",
                "workload", path, "format", format, "tasks", (json_int_t)w->graph.ntasks,
                "edges", (json_int_t)w->graph.nedges, "devices", w->platform.ndevices,
                "policy", r->policy, "makespan_us", json_number(v[0]), "speedup",
                json_number(v[1]), "slr", json_number(v[2]), "ratio_best", json_number(v[3]),
                "ratio_bound", json_number(v[4]), "map_ms", json_number(v[5]),
                "lower_bound_us", json_number(lb), "critical_path_us", json_number(cp),
                "split", r->split, "note", r->ran ? json_null() : json_string(r->why))) != 0)
            return -1;
    }
    return 0;
}

/* Opens --csv (writing its header) and starts --json's rows; 0, or 1 after
 * saying why. */
static int suite_open(suite_out *o)
{
    hs_error err = {0};
    if (o->csv_path) {
        if (hs_output_open(&o->csv_out, o->csv_path, &err) != HS_OK) {
            hs_cli_fail(&err);
            return 1;
        }
        o->csv = o->csv_out.f;
        fputs(row_columns, o->csv);
    }
    if (o->json_path && !(o->rows = json_array())) {
        fprintf(stderr, "hetsched: out of memory\n");
        return 1;
    }
    return 0;
}

/* Writes the rows as {"rows": [...]}, one row to a line; 0, or -1. */
static int write_rows(FILE *f, const json_t *rows)
{
    size_t i, n = json_array_size(rows);
    const json_t *row;
    int failed = fputs("{\"rows\": [\n", f) == EOF;
    json_array_foreach(rows, i, row) {
        char *text = json_dumps(row, JSON_REAL_PRECISION(10));
        failed |= !text || fprintf(f, "  %s%s\n", text, i + 1 < n ? "," : "") < 0;
        free(text);
    }
    failed |= fputs("]}\n", f) == EOF;
    return failed ? -1 : 0;
}

/* Puts --csv in place and writes --json (hetsched/output.h: never half a
 * file); `keep` 0 throws them away (the suite failed).  0, or 1 after
 * saying why. */
static int suite_close(suite_out *o, int keep)
{
    hs_error err = {0};
    int status = 0, rc;
    if (o->csv) {
        rc = !keep ? HS_EINTERNAL : ferror(o->csv) ? hs_output_error(&o->csv_out, &err) : HS_OK;
        if (hs_output_close(&o->csv_out, rc, &err) != HS_OK && keep) {
            hs_cli_fail(&err);
            status = 1;
        }
    }
    if (o->rows && keep) {
        hs_output out;
        if ((rc = hs_output_open(&out, o->json_path, &err)) == HS_OK)
            rc = hs_output_close(&out, write_rows(out.f, o->rows) == 0
                                            ? HS_OK : hs_output_error(&out, &err), &err);
        if (rc != HS_OK) {
            hs_cli_fail(&err);
            status = 1;
        }
    }
    json_decref(o->rows);
    return status;
}

/* `compare --suite`: every policy on each workload of the suite, its table
 * as `compare WORKLOAD` prints it, then each policy's summary over the
 * suite; the rows go to --csv and --json.  A workload that cannot be read
 * is said and skipped (exit status 2 at the end); a policy's failure stops
 * the suite (1).  A set's file gets the source options, a YAML workload
 * none (it has its own platform). */
static int compare_suite(char **paths, size_t count, const hs_cli_source *src,
                         const char *model_path, const hs_map_options *mopt, int executor,
                         suite_out *o)
{
    size_t n = 0, done = 0, skipped = 0;
    outcome *rows;
    tally *t;
    int status = 0;
    while (hs_policy_list()[n])
        n++;
    rows = calloc(n, sizeof *rows);
    t = calloc(n, sizeof *t);
    if (!rows || !t) {
        free(rows);
        free(t);
        fprintf(stderr, "hetsched: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < count && status != 1; i++) {
        const char *format = src->format ? src->format : hs_workload_format_of(paths[i]);
        hs_cli_source one = *src;
        hs_map_options opt = *mopt;
        hs_perfmodel *model = NULL;
        hs_workload *w;
        hs_error err = {0};
        double lb, cp = 0, cpu_only;
        int rc, st = 0;
        if (!format)
            format = "yaml";
        if (!hs_workload_format_is_set(format))
            one = (hs_cli_source){.cmd = src->cmd, .format = src->format};
        one.suite = 1;
        if (!(w = hs_cli_load_model(paths[i], &one, model_path, &model, &st))) {
            skipped++;
            status = st == 2 ? 2 : 1;
            continue;
        }
        opt.perfmodel = model;
        lb = hs_lower_bound_us(w);
        rc = hs_graph_critical_path_us(&w->graph, &cp, &err);
        if (rc == HS_OK)
            rc = run_policies(w, &opt, executor, NULL, rows, &err);
        if (rc == HS_OK && !isfinite(best_makespan(rows, n, &cpu_only)))
            rc = hs_error_set(&err, HS_EINTERNAL, "no policy could map %s", paths[i]);
        if (rc == HS_OK) {
            int split = 0;
            print_table(stdout, w, paths[i], rows, n, executor, lb, cp, NULL);
            for (size_t k = 0; k < n; k++)
                split |= rows[k].split;
            if (split) /* the table ends with its note, else with a blank line */
                printf("\n");
            tally_add(t, rows, n, lb, cp);
            done++;
            if (suite_rows(o, paths[i], format, w, rows, n, lb, cp) != 0) {
                fprintf(stderr, "hetsched: out of memory\n");
                status = 1;
            }
        } else {
            hs_cli_fail(&err);
            status = 1;
        }
        hs_workload_free(w);
        hs_perfmodel_free(model);
    }
    if (status != 1 && done > 0) {
        printf("suite: %zu workloads", done);
        if (skipped)
            printf(" (%zu more could not be read)", skipped);
        printf("\n\n");
        print_tally(rows, t, n, done);
    }
    if (suite_close(o, status != 1) != 0)
        status = 1;
    free(rows);
    free(t);
    return status;
}

/* `compare --suite ARG...` once the options are read: `refused` says that
 * --optimal, --random or --verbose was given. */
static int suite_main(int nargs, char **args, const hs_cli_source *src, const char *model_path,
                      hs_map_options *mopt, int executor, const char *split,
                      const char *csv_path, const char *json_path, int refused)
{
    const hs_cli_cmd *cmd = &hs_cmd_compare;
    suite_out o = {.csv_path = csv_path, .json_path = json_path};
    hs_error err = {0};
    char **paths = NULL;
    size_t count = 0;
    int status, any_set = 0;
    if (refused)
        return hs_cli_usage_error(cmd, "--suite does not take --optimal, --random or --verbose");
    if (nargs == 0)
        return hs_cli_usage_error(cmd, "--suite wants workloads: files or directories");
    if (src->have_beta_seed && !src->have_beta)
        return hs_cli_usage_error(cmd, "--beta-seed is the seed of --beta's draws: give --beta "
                                  "too");
    if ((csv_path && strcmp(csv_path, "-") == 0) || (json_path && strcmp(json_path, "-") == 0))
        return hs_cli_usage_error(cmd, "--csv and --json want a file: the tables go to "
                                  "standard output");
    if ((status = suite_paths(src, args, nargs, &paths, &count)) != 0)
        return status;
    for (size_t i = 0; i < count; i++) {
        const char *f = src->format ? src->format : hs_workload_format_of(paths[i]);
        any_set |= hs_workload_format_is_set(f ? f : "yaml") == 1;
    }
    if (!any_set && hs_cli_source_given(src) && !src->format)
        status = hs_cli_usage_error(cmd, "%s is for task-graph sets, and the suite holds only "
                                    "YAML workloads", hs_cli_source_given(src));
    else if (any_set && !src->platform)
        status = hs_cli_usage_error(cmd, "the suite holds task-graph sets, which carry no "
                                    "platform: give --platform FILE");
    else if (split && hs_split_graph_new(split, NULL, &mopt->split, &err) != HS_OK)
        status = hs_cli_usage_error(cmd, "--split: %s", err.msg);
    else if ((status = suite_open(&o)) != 0)
        suite_close(&o, 0);
    else
        status = compare_suite(paths, count, src, model_path, mopt, executor, &o);
    hs_split_graph_free(mopt->split);
    for (size_t i = 0; i < count; i++)
        free(paths[i]);
    free(paths);
    return status;
}

/* ================================================================== main */

static int compare_main(int argc, char **argv)
{
    enum { OPT_OPTIMAL = 256, OPT_TIME, OPT_SEED, OPT_THR, OPT_JSON, OPT_RANDOM, OPT_MODEL,
           OPT_SPLIT, OPT_SUITE, OPT_CSV, OPT_PREDICT };
    static const struct option longopts[] = {
        {"optimal", no_argument, NULL, OPT_OPTIMAL},
        {"time-limit", required_argument, NULL, OPT_TIME},
        {"seed", required_argument, NULL, OPT_SEED},
        {"thr", required_argument, NULL, OPT_THR},
        {"json", required_argument, NULL, OPT_JSON},
        {"random", required_argument, NULL, OPT_RANDOM},
        {"model", required_argument, NULL, OPT_MODEL},
        {"verbose", no_argument, NULL, 'v'},
        {"split", required_argument, NULL, OPT_SPLIT},
        {"suite", no_argument, NULL, OPT_SUITE},
        {"csv", required_argument, NULL, OPT_CSV},
        {"predict", required_argument, NULL, OPT_PREDICT},
        HS_CLI_SOURCE_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    hs_cli_source src = {.cmd = &hs_cmd_compare};
    const hs_cli_cmd *cmd = &hs_cmd_compare;
    const char *split = NULL;
    hs_error err = {0};
    const char *json_dir = NULL, *model_path = NULL, *csv = NULL;
    hs_map_options mopt = {0};
    double time_limit = 60;
    int c, want_optimal = 0, have_limit = 0, verbose = 0, suite = 0, executor = 0;
    unsigned long long v;
    unsigned long random_count = 0;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":v", longopts, NULL)) != -1) {
        int taken = hs_cli_source_option(&src, c, optarg);
        if (taken < 0)
            return 2;
        if (taken)
            continue;
        switch (c) {
        case OPT_OPTIMAL: want_optimal = 1; break;
        case OPT_TIME:
            if (hs_cli_parse_real(optarg, 1e-3, 1e7, &time_limit) != 0)
                return hs_cli_usage_error(cmd, "--time-limit wants seconds between 0.001 and "
                                          "1e7, not '%s'", optarg);
            have_limit = 1;
            break;
        case OPT_SEED:
            if (hs_cli_parse_whole(optarg, 0, ULONG_MAX, &v) != 0)
                return hs_cli_usage_error(cmd, "--seed wants a whole number >= 0, not '%s'",
                                          optarg);
            mopt.seed = v;
            break;
        case OPT_THR:
            if (hs_cli_parse_whole(optarg, 0, INT_MAX, &v) != 0)
                return hs_cli_usage_error(cmd, "--thr wants a whole number >= 0, not '%s'",
                                          optarg);
            mopt.thr = (int)v;
            break;
        case OPT_JSON: json_dir = optarg; break;
        case OPT_MODEL: model_path = optarg; break;
        case OPT_RANDOM:
            if (hs_cli_parse_whole(optarg, 0, 1000000, &v) != 0 || v == 0)
                return hs_cli_usage_error(cmd, "--random wants a number of workloads from 1 "
                                          "to 1000000, not '%s'", optarg);
            random_count = v;
            break;
        case 'v': verbose = 1; break;
        case OPT_SPLIT: split = optarg; break;
        case OPT_SUITE: suite = 1; break;
        case OPT_CSV: csv = optarg; break;
        case OPT_PREDICT:
            if (hs_cli_parse_predict(cmd, optarg, &executor) != 0)
                return 2;
            break;
        case ':':
            return hs_cli_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
        default:
            return hs_cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (have_limit && !want_optimal)
        return hs_cli_usage_error(cmd, "--time-limit is the MILP's: it needs --optimal");
    if (want_optimal && executor)
        return hs_cli_usage_error(cmd, "--optimal solves the delay model's MILP: it does not go "
                                  "with --predict executor (map --schedule DIR/optimal.json "
                                  "--predict executor runs its schedule in that model)");
    if (suite)
        return suite_main(argc - optind, argv + optind, &src, model_path, &mopt, executor,
                          split, csv, json_dir, want_optimal || random_count || verbose);
    if (random_count) {
        if (hs_cli_source_given(&src))
            return hs_cli_usage_error(cmd, "--random draws its own workloads: %s does not "
                                      "apply", hs_cli_source_given(&src));
        if (optind != argc)
            return hs_cli_usage_error(cmd, "--random draws its own workloads: give no "
                                      "WORKLOAD");
        if (want_optimal || json_dir || model_path || csv)
            return hs_cli_usage_error(cmd, "--random does not take --%s",
                                      want_optimal ? "optimal"
                                      : json_dir   ? "json"
                                      : csv        ? "csv"
                                                   : "model");
        if (split && hs_split_graph_new(split, NULL, &mopt.split, &err) != HS_OK)
            return hs_cli_usage_error(cmd, "--split: %s", err.msg);
        c = compare_random(random_count, &mopt, executor, verbose);
        hs_split_graph_free(mopt.split);
        return c;
    }
    if (verbose)
        return hs_cli_usage_error(cmd, "--verbose goes with --random");
    if (argc - optind != 1)
        return hs_cli_usage_error(cmd, "expected one WORKLOAD, got %d arguments",
                                  argc - optind);
    if (split && hs_split_graph_new(split, NULL, &mopt.split, &err) != HS_OK)
        return hs_cli_usage_error(cmd, "--split: %s", err.msg);
    c = compare_one(argv[optind], &src, model_path, &mopt, executor, json_dir, csv,
                    want_optimal, time_limit);
    hs_split_graph_free(mopt.split);
    return c;
}
