/* hetsched dot — the kernel graph of a workload, and optionally a schedule of
 * it, as DOT for Graphviz (hs_dot_write). */
#include <string.h>

#include "cli.h"

static int dot_main(int argc, char **argv);

const hs_cli_cmd hs_cmd_dot = {
    .name = "dot",
    .summary = "write the kernel graph (and a schedule) as DOT",
    .usage = "usage: hetsched dot WORKLOAD [--schedule SCHEDULE] [--model FILE] [-o FILE]\n"
             "\n"
             "Writes the task graph of WORKLOAD as DOT for Graphviz: one cluster per\n"
             "application instance (cluster_APP#I), one node per task named by its id and\n"
             "labelled with its kernel, edges labelled with the bytes they carry (exact\n"
             "bytes in their tooltip and `bytes` attribute), a kernel's input and output\n"
             "bytes on the last line of its label.\n"
             "\n"
             "With a schedule, each node is filled with the colour of the device that ran it\n"
             "and labelled 'kernel / device start-end us'; a split task lists its parts one\n"
             "per line and is striped with its devices' colours; a legend lists the devices.\n"
             "\n"
             "options:\n"
             "  --schedule FILE   a schedule JSON of WORKLOAD (map/optimal --json; '-' stdin)\n"
             "  --model FILE      performance model (JSON): costs of typed kernels\n"
             "                    without cost_us\n"
             "  -o, --output FILE write to FILE instead of stdout\n"
             HS_CLI_SOURCE_USAGE
             "\n"
             "Nodes also carry what `hetsched map w.dot --platform w.yaml` reads back to\n"
             "the same workload: cost_us (each device's cost), input_bytes,\n"
             "output_bytes, type, params, splittable and items.\n"
             "\n"
             "Draw it with e.g.  hetsched dot w.yaml | dot -Tsvg -o w.svg\n",
    .main = dot_main,
};

/* Value of option argv[*i] given as "--opt VALUE" or "--opt=VALUE"; NULL when
 * argv[*i] is not that option.  *missing is set when the value is absent. */
static const char *option_value(int argc, char **argv, int *i, const char *opt, int *missing)
{
    size_t n = strlen(opt);
    if (strncmp(argv[*i], opt, n) != 0)
        return NULL;
    if (argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (argv[*i][n] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        *missing = 1;
        return NULL;
    }
    return argv[++*i];
}

/* The source options (cli.h), spelled as option_value takes them. */
static const struct {
    const char *name;
    int code;
} source_options[] = {
    {"--format", HS_CLI_OPT_FORMAT},       {"--platform", HS_CLI_OPT_PLATFORM},
    {"--speed", HS_CLI_OPT_SPEED},         {"--beta", HS_CLI_OPT_BETA},
    {"--beta-seed", HS_CLI_OPT_BETA_SEED},
};

/* A source option at argv[*i]: 1 when stored, -1 after a usage error, 0
 * when argv[*i] is none (*missing set when its value is absent). */
static int source_option(hs_cli_source *src, int argc, char **argv, int *i, int *missing)
{
    for (size_t k = 0; k < sizeof source_options / sizeof *source_options; k++) {
        const char *v = option_value(argc, argv, i, source_options[k].name, missing);
        if (v)
            return hs_cli_source_option(src, source_options[k].code, v);
        if (*missing)
            return 0;
    }
    return 0;
}

static int dot_main(int argc, char **argv)
{
    hs_cli_source src = {.cmd = &hs_cmd_dot};
    const char *workload = NULL, *schedule = NULL, *output = NULL, *model_path = NULL;
    hs_perfmodel *model = NULL;
    hs_workload *w = NULL;
    hs_schedule *s = NULL;
    hs_error err = {0};
    int status = 0;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int missing = 0, taken;
        if ((taken = source_option(&src, argc, argv, &i, &missing)) < 0)
            return 2;
        if (taken)
            continue;
        if ((v = option_value(argc, argv, &i, "--schedule", &missing)))
            schedule = v;
        else if ((v = option_value(argc, argv, &i, "--model", &missing)))
            model_path = v;
        else if ((v = option_value(argc, argv, &i, "--output", &missing)) ||
                 (v = option_value(argc, argv, &i, "-o", &missing)))
            output = v;
        else if (missing)
            return hs_cli_usage_error(&hs_cmd_dot, "option '%s' needs a FILE", argv[i]);
        else if (argv[i][0] == '-' && argv[i][1] != '\0')
            return hs_cli_usage_error(&hs_cmd_dot, "unknown option '%s'", argv[i]);
        else if (workload)
            return hs_cli_usage_error(&hs_cmd_dot, "expected one WORKLOAD, got '%s' and '%s'",
                                      workload, argv[i]);
        else
            workload = argv[i];
    }
    if (!workload)
        return hs_cli_usage_error(&hs_cmd_dot, "expected a WORKLOAD");
    if (!(w = hs_cli_load_model(workload, &src, model_path, &model, &status)))
        return status;
    /* The schedule is input: failing to read it is bad input (status 2). */
    if (schedule && hs_schedule_read_json(w, schedule, &s, &err) != HS_OK) {
        hs_cli_fail(&err);
        hs_workload_free(w);
        hs_perfmodel_free(model);
        return err.code == HS_ENOMEM ? 1 : 2;
    }
    if (hs_cli_write_dot(w, s, output ? output : "-", &err) != HS_OK)
        status = hs_cli_fail(&err);
    hs_schedule_free(s);
    hs_workload_free(w);
    hs_perfmodel_free(model);
    return status;
}
