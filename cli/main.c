/* hetsched — the command line: a registry of subcommands (cli.h). */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* The registry: one line per subcommand, in the order `--help` lists them. */
static const hs_cli_cmd *const commands[] = {
    &hs_cmd_map,
    &hs_cmd_run,
    &hs_cmd_compare,
    &hs_cmd_optimal,
    &hs_cmd_adversary,
    &hs_cmd_validate,
    &hs_cmd_dot,
    &hs_cmd_gen,
    &hs_cmd_split,
    &hs_cmd_calibrate,
    &hs_cmd_model,
    &hs_cmd_info,
    NULL,
};

int hs_cli_fail(const hs_error *err)
{
    fprintf(stderr, "hetsched: %s\n", err->msg);
    return hs_error_exit_status(err->code);
}

int hs_cli_usage_error(const hs_cli_cmd *cmd, const char *fmt, ...)
{
    char text[HS_ERROR_MSG_MAX];
    hs_error line;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    /* what the user typed may hold control characters: one printable line */
    hs_error_set(&line, HS_EUSAGE, "%s", text);
    fprintf(stderr, "hetsched %s: %s\nTry 'hetsched %s --help'.\n", cmd->name, line.msg,
            cmd->name);
    return 2;
}

int hs_cli_wants_help(const hs_cli_cmd *cmd, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            break;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(cmd->usage, stdout);
            return 1;
        }
    }
    return 0;
}

int hs_cli_parse_whole(const char *s, unsigned long long min, unsigned long long max,
                       unsigned long long *out)
{
    char *end;
    unsigned long long v;
    if (!s[0] || s[0] == '-' || s[0] == '+')
        return -1;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno || *end || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

int hs_cli_parse_real(const char *s, double lo, double hi, double *out)
{
    char *end;
    double v;
    errno = 0;
    v = strtod(s, &end);
    if (!s[0] || *end || errno || !isfinite(v) || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int hs_cli_parse_budget(const hs_cli_cmd *cmd, const char *s, double *out)
{
    if (hs_cli_parse_real(s, 0, HS_MAX_BUDGET_MS, out) != 0 || *out <= 0)
        return hs_cli_usage_error(cmd, "--budget-ms wants a number of milliseconds above 0 and "
                                  "at most %g, not '%s'", HS_MAX_BUDGET_MS, s);
    return 0;
}

int hs_cli_parse_predict(const hs_cli_cmd *cmd, const char *s, int *executor)
{
    if (strcmp(s, "executor") != 0 && strcmp(s, "delay") != 0)
        return hs_cli_usage_error(cmd, "--predict wants executor or delay, not '%s'", s);
    *executor = strcmp(s, "executor") == 0;
    return 0;
}

int *hs_cli_executor_depths(const hs_workload *w, hs_error *err)
{
    int *depth = calloc((size_t)w->platform.ndevices + 1, sizeof *depth);
    if (!depth)
        hs_error_set(err, HS_ENOMEM, "out of memory");
    else if (hs_run_executor_depths(w, depth, err) != HS_OK) {
        free(depth);
        depth = NULL;
    }
    return depth;
}

const char *hs_cli_plural(unsigned long long n)
{
    return n == 1 ? "" : "s";
}

int hs_cli_policy_options_check(const hs_cli_cmd *cmd, const hs_policy *p, int have_thr,
                                int have_seed, int have_budget)
{
    static const struct {
        unsigned bit;
        const char *option, *what;
    } opts[] = {{HS_POLICY_TAKES_THR, "--thr", "no dispatch threshold"},
                {HS_POLICY_TAKES_SEED, "--seed", "no random choice"},
                {HS_POLICY_TAKES_BUDGET, "--budget-ms", "no time budget"}};
    const int given[] = {have_thr, have_seed, have_budget};
    for (int i = 0; i < 3; i++)
        if (given[i] && !(hs_policy_options(p) & opts[i].bit))
            return hs_cli_usage_error(cmd, "%s does not apply to policy %s: it has %s",
                                      opts[i].option, hs_policy_name(p), opts[i].what);
    return 0;
}

void hs_cli_warn_nothing_splittable(const hs_cli_cmd *cmd, const hs_workload *w,
                                    const char *path)
{
    for (int a = 0; a < w->napps; a++)
        for (int k = 0; k < w->apps[a].nkernels; k++)
            if (w->apps[a].kernels[k].splittable)
                return;
    fprintf(stderr, "hetsched %s: warning: --split: no kernel of %s is marked splittable, "
            "nothing is split\n", cmd->name, path);
}

static int is_stdout(const char *path)
{
    return path && strcmp(path, "-") == 0;
}

int hs_cli_json_path(const char *path)
{
    size_t n = path ? strlen(path) : 0;
    return n > 5 && strcmp(path + n - 5, ".json") == 0;
}

int hs_cli_write_workload(const hs_workload *w, const char *path, FILE *f, hs_error *err)
{
    return hs_cli_json_path(path) ? hs_workload_write_json(w, f, err)
                                  : hs_workload_write_yaml(w, f, err);
}

int hs_cli_outputs_use_stdout(const hs_cli_outputs *o)
{
    return is_stdout(o->json) || is_stdout(o->dot) || is_stdout(o->trace) ||
           is_stdout(o->tasks_csv) || is_stdout(o->devices_csv);
}

int hs_cli_outputs_check(const hs_cli_cmd *cmd, const hs_cli_outputs *o, const char *extra,
                         const char *extra_path)
{
    const char *option[] = {"--json", "--dot", "--trace", "--tasks-csv", "--devices-csv", extra};
    const char *path[] = {o->json,      o->dot,         o->trace,
                          o->tasks_csv, o->devices_csv, extra ? extra_path : NULL};
    const char *first = NULL;
    for (int i = 0; i < 6; i++) {
        if (!is_stdout(path[i]))
            continue;
        if (first)
            return hs_cli_usage_error(cmd, "%s and %s both go to standard output ('-'); give "
                                      "one of them a file", first, option[i]);
        first = option[i];
    }
    return 0;
}

int hs_cli_write_dot(const hs_workload *w, const hs_schedule *s, const char *path,
                     hs_error *err)
{
    hs_output o;
    int rc = hs_output_open(&o, path, err);
    if (rc != HS_OK)
        return rc;
    if ((rc = hs_dot_write(w, s, o.f, err)) == HS_EIO)
        rc = hs_output_error(&o, err); /* the message names the file */
    return hs_output_close(&o, rc, err);
}

int hs_cli_write_outputs(const hs_workload *w, const hs_schedule *s, const hs_cli_outputs *o,
                         hs_error *err)
{
    int rc = HS_OK;
    if (rc == HS_OK && o->json)
        rc = hs_schedule_write_json(w, s, o->json, err);
    if (rc == HS_OK && o->dot)
        rc = hs_cli_write_dot(w, s, o->dot, err);
    if (rc == HS_OK && o->gantt)
        rc = hs_gantt_write(w, s, o->gantt, err);
    if (rc == HS_OK && o->trace)
        rc = hs_trace_write(w, s, o->trace, err);
    if (rc == HS_OK && o->tasks_csv)
        rc = hs_schedule_write_tasks_csv(w, s, o->tasks_csv, err);
    if (rc == HS_OK && o->devices_csv)
        rc = hs_schedule_write_devices_csv(w, s, o->devices_csv, err);
    return rc;
}

int hs_cli_source_option(hs_cli_source *src, int c, const char *arg)
{
    unsigned long long v;
    hs_error err;
    switch (c) {
    case HS_CLI_OPT_FORMAT:
        if (hs_workload_format_is_set(arg) < 0) {
            hs_cli_usage_error(src->cmd, "--format wants yaml, json, stg, wfformat or dot, not '%s'",
                               arg);
            return -1;
        }
        src->format = arg;
        return 1;
    case HS_CLI_OPT_PLATFORM:
        src->platform = arg;
        return 1;
    case HS_CLI_OPT_SPEED:
        if (hs_load_speeds_check(arg, &err) != HS_OK) {
            hs_cli_usage_error(src->cmd, "--speed: %s", err.msg);
            return -1;
        }
        src->speed = arg;
        return 1;
    case HS_CLI_OPT_BETA:
        if (hs_cli_parse_real(arg, 0, 2, &src->beta) != 0 || src->beta >= 2) {
            hs_cli_usage_error(src->cmd, "--beta wants a number from 0 to less than 2, not "
                               "'%s'", arg);
            return -1;
        }
        src->have_beta = 1;
        return 1;
    case HS_CLI_OPT_BETA_SEED:
        if (hs_cli_parse_whole(arg, 0, ULONG_MAX, &v) != 0) {
            hs_cli_usage_error(src->cmd, "--beta-seed wants a whole number >= 0, not '%s'",
                               arg);
            return -1;
        }
        src->beta_seed = (unsigned long)v;
        src->have_beta_seed = 1;
        return 1;
    default:
        return 0;
    }
}

int hs_cli_source_options_only(hs_cli_source *src, int argc, char **argv,
                               const char **model_path, int *first)
{
    static const struct option longopts[] = {
        {"model", required_argument, NULL, 'm'},
        HS_CLI_SOURCE_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    int c, taken;
    *model_path = NULL;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        if ((taken = hs_cli_source_option(src, c, optarg)) != 0) {
            if (taken < 0)
                return 2;
            continue;
        }
        if (c == 'm')
            *model_path = optarg;
        else if (c == ':')
            return hs_cli_usage_error(src->cmd, "option '%s' needs a value", argv[optind - 1]);
        else
            return hs_cli_usage_error(src->cmd, "unknown option '%s'", argv[optind - 1]);
    }
    *first = optind;
    return 0;
}

const char *hs_cli_source_given(const hs_cli_source *src)
{
    return src->format         ? "--format"
           : src->platform     ? "--platform"
           : src->speed        ? "--speed"
           : src->have_beta    ? "--beta"
           : src->have_beta_seed ? "--beta-seed"
                               : NULL;
}

hs_workload *hs_cli_load_opts(const char *path, const hs_cli_source *src, hs_load_options *lo,
                              int *status)
{
    const char *format = src->format ? src->format : hs_workload_format_of(path);
    hs_workload *w = NULL, *platform = NULL;
    hs_error err = {0};
    if (!format)
        format = "yaml";
    if (src->have_beta_seed && !src->have_beta) {
        *status = hs_cli_usage_error(src->cmd, "--beta-seed is the seed of --beta's draws: "
                                     "give --beta too");
        return NULL;
    }
    if (!hs_workload_format_is_set(format) && (src->platform || src->speed || src->have_beta)) {
        *status = hs_cli_usage_error(src->cmd, "%s is for task-graph sets (stg, wfformat, "
                                     "dot): %s is a YAML workload, with its own platform and "
                                     "costs", src->platform ? "--platform" : src->speed
                                     ? "--speed" : "--beta", path);
        return NULL;
    }
    if (hs_workload_format_is_set(format) && !src->platform) {
        *status = hs_cli_usage_error(src->cmd, "%s is a task-graph set (%s), which carries no "
                                     "platform: give --platform FILE", path, format);
        return NULL;
    }
    if (src->platform && hs_platform_load_file(src->platform, &platform, &err) != HS_OK) {
        *status = hs_cli_fail(&err);
        return NULL;
    }
    lo->format = format;
    lo->platform = platform ? &platform->platform : NULL;
    lo->speeds = src->speed;
    lo->beta = src->beta;
    lo->beta_seed = src->beta_seed;
    lo->suite = src->suite;
    if (hs_workload_load_file_opts(path, lo, &w, &err) != HS_OK) {
        *status = hs_cli_fail(&err);
        w = NULL;
    }
    hs_workload_free(platform);
    return w;
}

hs_workload *hs_cli_load(const char *path, const hs_cli_source *src, int *status)
{
    hs_load_options lo = {0};
    return hs_cli_load_opts(path, src, &lo, status);
}

hs_workload *hs_cli_load_model(const char *path, const hs_cli_source *src,
                               const char *model_path, struct hs_perfmodel **model,
                               int *status)
{
    hs_load_options lo = {.cost_fn = hs_perfmodel_cost_fn, .link_fn = hs_perfmodel_link_fn};
    hs_workload *w;
    hs_error err = {0};
    *model = NULL;
    if (!model_path)
        return hs_cli_load(path, src, status);
    if (hs_perfmodel_load(model_path, model, &err) != HS_OK) {
        *status = hs_cli_fail(&err);
        return NULL;
    }
    lo.cost_ctx = *model;
    if (!(w = hs_cli_load_opts(path, src, &lo, status))) {
        hs_perfmodel_free(*model);
        *model = NULL;
    }
    return w;
}

static void usage(FILE *out)
{
    fputs("usage: hetsched [--version] [--help] COMMAND [ARGS]\n"
          "\n"
          "Maps and runs graphs of kernels on CPUs and GPUs.\n"
          "\n"
          "commands:\n",
          out);
    for (int i = 0; commands[i]; i++)
        fprintf(out, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
    fputs("\n'hetsched COMMAND --help' tells more about one command.\n"
          "Exit status: 0 success, 1 failure while working, 2 bad usage or input.\n",
          out);
}

/* OpenBLAS's idle threads spin 2^28 cycles (a tenth of a second) after each
 * call before they sleep, a setting read once, when the library loads
 * (OPENBLAS_THREAD_TIMEOUT, 2^N cycles).  In a run they hold the cores that
 * the next kernel's threads need: on the H100 host fblock took 2-3 times
 * its calibrated time after a gemm, matadd twice.  The commands that
 * compute start again with the environment variable set, unless the user
 * gave one: 2^BLAS_SPIN cycles (a few tenths of a ms) keep OpenBLAS's
 * threads awake through one kernel's calls (potrf makes many) and no
 * longer. */
#define BLAS_SPIN "20"
static void short_blas_spin(char **argv)
{
    if (getenv("OPENBLAS_THREAD_TIMEOUT") || setenv("OPENBLAS_THREAD_TIMEOUT", BLAS_SPIN, 1) != 0)
        return;
    fflush(NULL);
    execv("/proc/self/exe", argv); /* where it fails, go on with the spin as it is */
}

static int run_command(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
        printf("hetsched %s\n", HS_VERSION);
        return 0;
    }
    for (int i = 0; commands[i]; i++) {
        if (strcmp(argv[1], commands[i]->name) == 0) {
            hs_error err;
            if (hs_cli_wants_help(commands[i], argc - 1, argv + 1))
                return 0;
            if (hs_limits_check(&err) != HS_OK) { /* a bad HETSCHED_MAX_TASKS */
                hs_cli_fail(&err);
                return 2;
            }
            if (commands[i] == &hs_cmd_run || commands[i] == &hs_cmd_calibrate ||
                commands[i] == &hs_cmd_split)
                short_blas_spin(argv);
            return commands[i]->main(argc - 1, argv + 1);
        }
    }
    {
        hs_error err;
        hs_error_set(&err, HS_EUSAGE, "unknown command '%s'", argv[1]);
        hs_cli_fail(&err);
    }
    usage(stderr);
    return 2;
}

/* What went to standard output (the summaries, --help) must have got there:
 * a full disk is a failure (1), not a success.  A command that failed
 * already keeps its status and message. */
static int close_stdout(int status)
{
    int failed;
    errno = 0;
    failed = fflush(stdout) != 0 || ferror(stdout);
    failed |= fclose(stdout) != 0;
    if (failed && status == 0) {
        fprintf(stderr, "hetsched: cannot write standard output: %s\n",
                errno ? strerror(errno) : "write error");
        status = 1;
    }
    return status;
}

int main(int argc, char **argv)
{
    return close_stdout(run_command(argc, argv));
}
