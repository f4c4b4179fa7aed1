/* hetsched validate — checks a schedule JSON (DESIGN.md §4) against a
 * workload and the delay model (DESIGN.md §1), and recomputes its makespan. */
#include <getopt.h>

#include "cli.h"

static int validate_main(int argc, char **argv);

const hs_cli_cmd hs_cmd_validate = {
    .name = "validate",
    .summary = "check a schedule JSON against a workload and the model",
    .usage = "usage: hetsched validate WORKLOAD SCHEDULE [options]\n"
             "\n"
             "Checks SCHEDULE (the JSON that map, optimal and run write with --json; '-' reads\n"
             "it from stdin) against WORKLOAD: its \"model\" is \"delay\" and its \"workload\"\n"
             "names WORKLOAD's file (the same file, or the same file name when it cannot be\n"
             "found from here), every task placed once or as parts whose fractions sum to 1,\n"
             "durations equal to costs (a part: at least its fraction of the cost), one task\n"
             "at a time per device, no task starting before its input data can arrive, the\n"
             "listed transfers possible and carrying the bytes the model sends, and the\n"
             "makespan recomputed.  A real run's schedule (run --json: \"model\":\n"
             "\"measured\") took the times its devices took: it is checked for the tasks\n"
             "and devices as above, one task at a time per device, each task after every\n"
             "predecessor, each copy leaving after the task whose data it moves and ending\n"
             "before the task it served, and the makespan at the end of the last task or\n"
             "copy.\n"
             "\n"
             "Two times agree when they differ by at most 0.001 us or 1e-9 of the larger\n"
             "(what a schedule printed with 3 decimals still carries); byte counts within\n"
             "half a byte or 1e-9; the fractions of a task within 1e-9 of 1.\n"
             "\n"
             "Prints 'valid: makespan M us (N tasks, T transfers)' and exits 0, or names the\n"
             "first constraint that fails and exits 1.  A file that cannot be read or parsed\n"
             "exits 2 (schedules over 4096 MiB and models over 256 MiB are refused; the\n"
             "environment variable HETSCHED_JSON_MAX_MIB=N sets another limit for both).\n"
             "\n"
             "options:\n"
             "  --model FILE   performance model (JSON): costs of typed kernels without\n"
             "                 cost_us, as map --model gave them\n"
             "  -h, --help     this text\n"
             HS_CLI_SOURCE_USAGE,
    .main = validate_main,
};

static int validate_main(int argc, char **argv)
{
    hs_cli_source src = {.cmd = &hs_cmd_validate};
    const char *model_path = NULL;
    hs_perfmodel *model = NULL;
    hs_workload *w = NULL;
    hs_schedule *s = NULL;
    hs_error err = {0};
    int status, first;
    if ((status = hs_cli_source_options_only(&src, argc, argv, &model_path, &first)) != 0)
        return status;
    if (argc - first != 2)
        return hs_cli_usage_error(&hs_cmd_validate,
                                  "expected WORKLOAD and SCHEDULE, got %d argument%s",
                                  argc - first, hs_cli_plural((unsigned)(argc - first)));
    if (!(w = hs_cli_load_model(argv[first], &src, model_path, &model, &status)))
        return status;
    if (hs_schedule_read_json(w, argv[first + 1], &s, &err) != HS_OK) {
        status = hs_cli_fail(&err);
    } else if (hs_schedule_validate(w, s, &err) == HS_OK) {
        printf("valid: makespan %.3f us (%zu task%s, %zu transfer%s)\n", s->makespan_us,
               s->nplacements, hs_cli_plural(s->nplacements), s->ntransfers,
               hs_cli_plural(s->ntransfers));
        status = 0;
    } else if (err.code == HS_EINVALID) {
        fprintf(stderr, "hetsched: invalid schedule: %s\n", err.msg);
        status = 1;
    } else {
        status = hs_cli_fail(&err);
    }
    hs_schedule_free(s);
    hs_workload_free(w);
    hs_perfmodel_free(model);
    return status;
}
