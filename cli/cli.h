/* hetsched command line — one struct per subcommand, a registry in main.c.
 * Exit statuses: 0 success, 1 failure while working, 2 bad usage or input.
 * Data goes to stdout, diagnostics to stderr.  Every output file is written
 * through hetsched/output.h; main checks standard output before it exits.
 * The commands parse and print: they see the library through its public
 * headers only (cli/meson.build gives them no other include directory). */
#ifndef HS_CLI_H
#define HS_CLI_H

#include <signal.h>
#include <stdio.h>

#include "hetsched/hetsched.h"

typedef struct hs_cli_cmd {
    const char *name;
    const char *summary; /* one line for `hetsched --help` */
    const char *usage;   /* full --help text */
    int (*main)(int argc, char **argv); /* argv[0] is the subcommand name */
} hs_cli_cmd;

/* Prints "hetsched: MSG" to stderr and returns the exit status for err. */
int hs_cli_fail(const hs_error *err);
/* Prints "hetsched CMD: MSG\nTry 'hetsched CMD --help'." and returns 2. */
int hs_cli_usage_error(const hs_cli_cmd *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Handles -h/--help given anywhere in argv: prints usage, returns 1 if it did. */
int hs_cli_wants_help(const hs_cli_cmd *cmd, int argc, char **argv);
/* Parses a whole decimal number in [min, max] (no sign); 0, or -1 if `s` is
 * not one. */
int hs_cli_parse_whole(const char *s, unsigned long long min, unsigned long long max,
                       unsigned long long *out);
/* Parses a finite number in [lo, hi]; 0, or -1 if `s` is not one. */
int hs_cli_parse_real(const char *s, double lo, double hi, double *out);
/* Parses --budget-ms (best's time budget, hs_map_options.budget_ms): a
 * number of ms above 0 and at most HS_MAX_BUDGET_MS; 0, or prints the usage
 * error of cmd and returns 2. */
int hs_cli_parse_budget(const hs_cli_cmd *cmd, const char *s, double *out);
/* Parses --predict: "executor" (*executor = 1) or "delay" (0); 0, or
 * prints the usage error of cmd and returns 2. */
int hs_cli_parse_predict(const hs_cli_cmd *cmd, const char *s, int *executor);
/* The depths of w's devices in a real run (hs_run_executor_depths), for
 * hs_map_options.executor_depth, in a new array the caller frees; NULL with
 * *err set on failure. */
int *hs_cli_executor_depths(const hs_workload *w, hs_error *err);
/* "s" when n things are several (or none), "": "1 task", "2 tasks". */
const char *hs_cli_plural(unsigned long long n);
/* 0, or the usage error (status 2) naming the first of --thr, --seed,
 * --budget-ms that was given (have_* nonzero) and that policy p does not
 * read (hs_policy_options). */
int hs_cli_policy_options_check(const hs_cli_cmd *cmd, const hs_policy *p, int have_thr,
                                int have_seed, int have_budget);
/* --split on a workload without a kernel marked splittable splits nothing:
 * says so on stderr ("hetsched CMD: warning: ..."), once; the command goes
 * on. */
void hs_cli_warn_nothing_splittable(const hs_cli_cmd *cmd, const hs_workload *w,
                                    const char *path);
/* The files a schedule is written to (NULL: not asked for; "-": stdout). */
typedef struct hs_cli_outputs {
    const char *json, *dot, *gantt, *trace;
    const char *tasks_csv, *devices_csv; /* hs_schedule_write_tasks_csv, _devices_csv */
} hs_cli_outputs;
/* Writes s to every file asked for (hetsched/output.h: never a half-written
 * file); stops at the first failure. */
int hs_cli_write_outputs(const hs_workload *w, const hs_schedule *s, const hs_cli_outputs *o,
                         hs_error *err);
/* 1 when one of the outputs is stdout: the summary then goes to stderr. */
int hs_cli_outputs_use_stdout(const hs_cli_outputs *o);
/* 0, or the usage error (status 2) when two outputs would share standard
 * output ('-'): those of o, and `extra` (an option of the command, e.g.
 * "--write-lp", NULL for none) with its value extra_path. */
int hs_cli_outputs_check(const hs_cli_cmd *cmd, const hs_cli_outputs *o, const char *extra,
                         const char *extra_path);
/* 1 when a workload written to `path` is written in the JSON form (the
 * path ends in .json), which has no comments; 0: YAML. */
int hs_cli_json_path(const char *path);
/* Writes w to the open file `f` of `path`, in the form hs_cli_json_path
 * says. */
int hs_cli_write_workload(const hs_workload *w, const char *path, FILE *f, hs_error *err);
/* The workload (and s, may be NULL) as DOT at `path` ('-': stdout). */
int hs_cli_write_dot(const hs_workload *w, const hs_schedule *s, const char *path,
                     hs_error *err);
/* How a command reads its WORKLOAD (include/hetsched/load.h, README "Task-graph
 * sets"): the format and, for a set, the platform and how each device's cost
 * derives from a task's one cost.  Every command that loads a workload takes
 * these options: HS_CLI_SOURCE_OPTIONS in its getopt table,
 * hs_cli_source_option first in its loop, HS_CLI_SOURCE_USAGE in its help. */
typedef struct hs_cli_source {
    const hs_cli_cmd *cmd;  /* for usage errors */
    const char *format;     /* --format; NULL: by the file's extension, else yaml */
    const char *platform;   /* --platform FILE */
    const char *speed;      /* --speed KEY=S,... */
    double beta;            /* --beta */
    unsigned long beta_seed; /* --beta-seed */
    int have_beta, have_beta_seed;
    int suite;              /* one of a suite: speeds and beta need not apply to it */
} hs_cli_source;

enum { HS_CLI_OPT_FORMAT = 0x1000, HS_CLI_OPT_PLATFORM, HS_CLI_OPT_SPEED, HS_CLI_OPT_BETA,
       HS_CLI_OPT_BETA_SEED };
#define HS_CLI_SOURCE_OPTIONS                                          \
    {"format", required_argument, NULL, HS_CLI_OPT_FORMAT},            \
    {"platform", required_argument, NULL, HS_CLI_OPT_PLATFORM},        \
    {"speed", required_argument, NULL, HS_CLI_OPT_SPEED},              \
    {"beta", required_argument, NULL, HS_CLI_OPT_BETA},                \
    {"beta-seed", required_argument, NULL, HS_CLI_OPT_BETA_SEED}
#define HS_CLI_SOURCE_USAGE                                                               \
    "\n"                                                                                 \
    "reading WORKLOAD (README: Task-graph sets):\n"                                       \
    "  --format FORMAT\n"                                                                 \
    "      yaml, json, stg, wfformat or dot (default: by the extension, .yaml .yml,\n" \
    "      .stg, .json (json when its first key is \"platform\", else wfformat),\n"     \
    "      .dot .gv; else yaml)\n"                                                      \
    "  --platform FILE\n"                                                                 \
    "      the platform a task-graph set (stg, wfformat, dot) runs on: the platform:\n" \
    "      section of FILE (calibrate --out-platform's, or a workload's YAML)\n"       \
    "  --speed KEY=S[,KEY=S...]\n"                                                        \
    "      a set's task of cost c costs c / S on the device named KEY, or on devices\n" \
    "      of kind KEY (cpu, gpu); a name wins; default 1\n"                            \
    "  --beta B\n"                                                                        \
    "      heterogeneity, 0 <= B < 2 (Topcuoglu et al. 2002): each task's cost on\n"    \
    "      each device is also multiplied by a draw from [1 - B/2, 1 + B/2]\n"          \
    "  --beta-seed N\n"                                                                   \
    "      the seed of those draws (default 0)\n"

/* Handles c when it is one of HS_CLI_SOURCE_OPTIONS: 1 when stored, -1 after
 * printing a usage error (exit status 2); 0 when c is another option. */
int hs_cli_source_option(hs_cli_source *src, int c, const char *arg);
/* Reads argv's options for a command whose only options are the source
 * options and --model FILE (info, validate): sets *model_path (NULL when not
 * given); 0 with *first the index of the first operand (getopt's order; '-'
 * is an operand), or 2 after a usage error (an unknown option, a missing
 * value). */
int hs_cli_source_options_only(hs_cli_source *src, int argc, char **argv,
                               const char **model_path, int *first);
/* The first source option given ("--platform", ...), or NULL: for the
 * modes that load no workload and refuse them. */
const char *hs_cli_source_given(const hs_cli_source *src);

/* Loads a workload or prints the error; returns NULL on failure and sets
 * *status to the exit status. */
hs_workload *hs_cli_load(const char *path, const hs_cli_source *src, int *status);
/* hs_cli_load, and with model_path (not NULL) first loads that performance
 * model (hetsched/perfmodel.h) into *model and lets it give the costs of the
 * workload's typed kernels that cost_us leaves out.  *model is NULL without
 * model_path or on failure; the caller frees it (hs_perfmodel_free) after
 * the workload. */
hs_workload *hs_cli_load_model(const char *path, const hs_cli_source *src,
                               const char *model_path, hs_perfmodel **model,
                               int *status);
/* hs_cli_load with load options of the caller's (a cost provider); the
 * source's fields are filled in. */
hs_workload *hs_cli_load_opts(const char *path, const hs_cli_source *src, hs_load_options *lo,
                              int *status);

/* Interrupting a search (cli/interrupt.c): between hs_cli_catch_interrupt
 * and hs_cli_release_interrupt the first SIGINT sets hs_cli_stop (reset to 0
 * by hs_cli_catch_interrupt) and says on stderr that the search stops; a
 * second one kills the process (status 130).  Outside, SIGINT kills at once. */
extern volatile sig_atomic_t hs_cli_stop;
void hs_cli_catch_interrupt(void);
void hs_cli_release_interrupt(void);

/* Performance models (cli/cmd_model.c).  The table of `hetsched model
 * show`: each history entry beside its fit, then the fits; 0, or 1 when out
 * of memory (said on stderr). */
int hs_cli_model_table(FILE *out, const hs_perfmodel *m);
/* The model at `path` for run --update-model: loaded, or a new empty one
 * when the file does not exist.  NULL on failure, said on stderr, with
 * *status set. */
hs_perfmodel *hs_cli_model_open(const char *path, int *status);
/* Adds the times the run s of w measured to m (hs_perfmodel_add_run),
 * refits, writes m to `path` and says what it did on `out`; returns the
 * exit status. */
int hs_cli_model_update(const char *path, hs_perfmodel *m, const hs_workload *w,
                        const hs_schedule *s, FILE *out);

extern const hs_cli_cmd hs_cmd_info;
extern const hs_cli_cmd hs_cmd_validate;
extern const hs_cli_cmd hs_cmd_dot;
extern const hs_cli_cmd hs_cmd_map;
extern const hs_cli_cmd hs_cmd_compare;
extern const hs_cli_cmd hs_cmd_optimal;
extern const hs_cli_cmd hs_cmd_gen;
extern const hs_cli_cmd hs_cmd_split;
extern const hs_cli_cmd hs_cmd_run;
extern const hs_cli_cmd hs_cmd_calibrate;
extern const hs_cli_cmd hs_cmd_model;
extern const hs_cli_cmd hs_cmd_adversary;

#endif
