/* hetsched run — executes a workload with one policy on the real backends
 * (exec/data.h), checks every typed kernel, and sets the measured makespan
 * beside the one the same policy gets in the simulator. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static int run_main(int argc, char **argv);

const hs_cli_cmd hs_cmd_run = {
    .name = "run",
    .summary = "execute a workload with one policy for real (cpu, emu or cuda backend)",
    .usage = "usage: hetsched run -a ALGO WORKLOAD [options]\n"
             "       hetsched run --schedule FILE WORKLOAD [options]\n"
             "\n"
             "Executes WORKLOAD with policy ALGO, or as the schedule FILE maps and orders\n"
             "it: typed kernels run for real on host buffers and are checked against\n"
             "their reference, cost-only kernels sleep their cost.  Prints the measured\n"
             "makespan, the makespan the same policy predicts in the simulator and their\n"
             "ratio, each device's busy time and the bytes moved on each link.  Exit\n"
             "status 1 when a kernel's check fails.\n"
             "\n"
             "options:\n"
             "  -a, --algorithm ALGO  the policy (`hetsched map -a help`; required unless\n"
             "                        --schedule)\n"
             "  --schedule FILE       instead of a policy, run the schedule FILE (JSON of\n"
             "                        map --json, optimal --json or run --json; '-' for\n"
             "                        stdin): each task on its device there, each device's\n"
             "                        tasks in their start order there, a task waiting\n"
             "                        for its device's previous task and its inputs.  It\n"
             "                        must place every task of WORKLOAD once, whole, on\n"
             "                        the devices run uses (--devices)\n"
             "  --backend NAME        cpu: one worker thread per device, all on host\n"
             "                        memory (cpu devices only); emu: each memory is a\n"
             "                        separate memory space and inputs are copied to it;\n"
             "                        cuda: gpu devices are CUDA GPUs, the k-th gpu device\n"
             "                        being CUDA device k (default: cpu when every device\n"
             "                        is a cpu, else cuda when CUDA finds a GPU, else emu)\n"
             "  --devices LIST        run on these devices of the platform only (names,\n"
             "                        comma-separated; default: all)\n"
             "  --device-memory BYTES capacity of each memory but host under emu and cuda\n"
             "                        (suffix K, M or G: powers of 1024); least recently\n"
             "                        used data are evicted to stay under it (default:\n"
             "                        emu unlimited, cuda the GPU's free memory - 512M)\n"
             "  --json FILE           write the measured schedule as JSON ('-' for stdout)\n"
             "  --trace FILE          write it as a Chrome trace ('-' for stdout)\n"
             "  --predicted-trace FILE  the predicted schedule as a Chrome trace ('-' for\n"
             "                        stdout), to set beside the measured one: under the\n"
             "                        executor model its workers' lanes show how long\n"
             "                        each device holds a task before its kernel starts\n"
             "  --gantt FILE          draw it, FILE.png or FILE.svg\n"
             "  --seed N              seed of random, and of best's local search\n"
             "                        (default 0)\n"
             "  --thr N               dispatch threshold of h-ratio, d-rank and ad-part\n"
             "                        (and of those inside best; default: the policy's)\n"
             "  --model FILE          performance model (JSON) for typed kernels' costs\n"
             "  --update-model FILE   after the run, add each typed task's measured time\n"
             "                        to the history of the model FILE (created when\n"
             "                        missing) and refit it, so that a run with --model\n"
             "                        FILE is predicted from this one; a part of a split\n"
             "                        kernel counts at its share of the kernel's flops\n"
             "  --split SPLITTER      split every kernel marked splittable across the\n"
             "                        devices with a chunk splitter (`split -p help`):\n"
             "                        at run time, each device that is free joins the\n"
             "                        kernel and the splitter sizes its chunks from the\n"
             "                        chunks' measured times (the policy sees the kernel\n"
             "                        run whole on the device it chose)\n"
             "  --split-mode MODE     live (default, as above) or planned: the fractions\n"
             "                        are fixed before the run by the chunk simulator on\n"
             "                        the model's costs (as `map --split`)\n"
             "  --split-option K=V    an option of that splitter (repeatable)\n"
             "  --throttle DEVICE:F   cpu device DEVICE runs every kernel F (> 1) times\n"
             "                        slower: its worker sleeps F - 1 times the kernel's\n"
             "                        time after it (a test of adapting to a loaded\n"
             "                        device; the prediction does not know)\n"
             "  --predict MODEL       the simulator's model for the predicted makespan:\n"
             "                        executor (default) runs the policy as the backend\n"
             "                        does (each device holds as many started tasks, a\n"
             "                        task's input copies start when it is started or\n"
             "                        prefetched (dmda, dmdar) and queue on their link,\n"
             "                        outputs go back to host on theirs); delay is the\n"
             "                        delay model of map and optimal\n"
             "  --fail DEVICE:after=N the device fails when it is about to run its N-th\n"
             "                        task: it runs nothing more, the tasks it held run on\n"
             "                        the others (each where it is predicted to end first),\n"
             "                        and the results only its memory held are saved to\n"
             "                        host first (a test of surviving a device's loss)\n"
             "  --check MODE          which typed kernels are checked against their\n"
             "                        reference, after the run (never on a device's\n"
             "                        path): sample (default) the first of each type\n"
             "                        and params on each memory (of a chain of one\n"
             "                        kernel updating its input in place, the last\n"
             "                        link, against the links before it run again on\n"
             "                        the CPU); full every one (while what they hold,\n"
             "                        inputs and results, exceeds an eighth of the\n"
             "                        memory, some are checked during the run, on a\n"
             "                        thread of their own); none\n"
             "  -h, --help            this text\n"
             HS_CLI_SOURCE_USAGE
             "\n"
             "The schedule is the measured one (\"model\": \"measured\"): a placement spans\n"
             "its kernel (on a GPU, between CUDA events), a transfer is a copy the run\n"
             "made between memories (a generated input from host, a result to a task\n"
             "that reads it, an output or an evicted replica to host), and the makespan\n"
             "is the end of the last kernel or copy.  A device holds up to 2 started\n"
             "tasks (the next one's inputs are prefetched while the current one runs);\n"
             "the environment variable HETSCHED_DEPTH (1..16) changes that.  When a file\n"
             "goes to stdout, the summary goes to stderr (one file at most may go there).\n"
             "\n"
             "Across the nodes of a cluster platform (built with MPI): `mpirun -np N\n"
             "hetsched run ...` with N the platform's nodes runs node k's devices on rank k.\n"
             "Every rank maps the workload with ALGO in the simulator (the ranks check\n"
             "that they agree), runs its node's tasks of that mapping as --schedule\n"
             "would, and sends each result to the nodes whose tasks read it; rank 0\n"
             "prints and writes what a one-process run does (--split, --fail,\n"
             "--throttle, --devices and --update-model do not apply).\n",
    .main = run_main,
};

/* Per-device busy time, task count and time idle while holding work, the
 * gap between tasks beside the platform's overhead, the kernels' measured
 * time beside the model's, then the links that moved bytes. */
static void summarise(FILE *out, const hs_workload *w, const hs_run_result *r, int executor)
{
    const hs_platform *p = &w->platform;
    const hs_device_stats *st = r->devices, *pst = r->predicted_devices;
    double ms = r->schedule->makespan_us > 0 ? r->schedule->makespan_us : 1;
    double pms = r->predicted->makespan_us > 0 ? r->predicted->makespan_us : 1;
    int width = 6;
    size_t copies = 0;
    for (int i = 0; i < r->nmemories * r->nmemories; i++)
        copies += r->link_copies[i];
    for (int d = 0; d < p->ndevices; d++)
        if ((int)strlen(p->devices[d].name) > width)
            width = (int)strlen(p->devices[d].name);
    for (int d = 0; d < p->ndevices; d++) {
        fprintf(out, "  %-*s %s  busy %12.3f us  %5.1f%%  %zu tasks; idle holding work %.3f us "
                "(%.1f%%)", width, p->devices[d].name, hs_device_kind_name(p->devices[d].kind),
                st[d].busy_us, 100.0 * st[d].busy_us / ms, st[d].tasks, st[d].held_idle_us,
                100.0 * st[d].held_idle_us / ms);
        /* the executor's model holds tasks as the run does: what of that
         * idle time the schedule itself causes (copies it waits for) */
        if (executor)
            fprintf(out, ", predicted %.1f%%", 100.0 * pst[d].held_idle_us / pms);
        /* of which with the held task's inputs there: the executor's own */
        fprintf(out, "; inputs there %.3f us (%.1f%%)", st[d].ready_idle_us,
                100.0 * st[d].ready_idle_us / ms);
        if (executor)
            fprintf(out, ", predicted %.1f%%", 100.0 * pst[d].ready_idle_us / pms);
        fprintf(out, "\n");
    }
    /* why: a ready task held back behind one waiting for copies (the model
     * holds back too), or the worker still launching (the model has no
     * launches: a device's overhead_us is in each of its tasks' costs) */
    fprintf(out, "inputs there, of it: behind a held task still waiting for its inputs; its "
                 "worker launching (the model has no launches, only overhead_us in each cost):\n");
    for (int d = 0; d < p->ndevices; d++) {
        fprintf(out, "  %-*s behind %.3f us (%.1f%%)", width, p->devices[d].name,
                st[d].behind_idle_us, 100.0 * st[d].behind_idle_us / ms);
        if (executor)
            fprintf(out, ", predicted %.1f%%", 100.0 * pst[d].behind_idle_us / pms);
        fprintf(out, "; launching %.3f us (%.1f%%)\n", st[d].launch_idle_us,
                100.0 * st[d].launch_idle_us / ms);
    }
    fprintf(out, "overhead per task, measured (from when a task could start to its start) "
            "beside the platform's overhead_us:\n");
    for (int d = 0; d < p->ndevices; d++)
        fprintf(out, "  %-*s %9.3f us  %9.3f us\n", width, p->devices[d].name,
                r->overhead_us[d], p->devices[d].overhead_us);
    fprintf(out, "kernel time, measured beside the model's:\n");
    for (size_t k = 0; k < r->nkernels; k++) {
        const hs_run_kernel_row *row = &r->kernels[k];
        fprintf(out, "  %-12s %-*s %7zu task%s %14.3f us %14.3f us", row->kernel, width,
                p->devices[row->device].name, row->tasks, row->tasks == 1 ? " " : "s",
                row->measured_us, row->model_us);
        if (row->model_us > 0)
            fprintf(out, "  x%.3f", row->measured_us / row->model_us);
        fprintf(out, "\n");
    }
    fprintf(out, "bytes moved per link:%s\n", copies ? "" : " none");
    for (int a = 0; a < r->nmemories; a++)
        for (int b = 0; b < r->nmemories; b++) {
            size_t i = (size_t)a * (size_t)r->nmemories + (size_t)b;
            if (!r->link_copies[i])
                continue;
            fprintf(out, "  %s -> %s  %.0f bytes in %zu cop%s, %.3f us (%.3f GB/s; predicted "
                    "at %.3f GB/s)\n", p->memories[a], p->memories[b], r->link_bytes[i],
                    r->link_copies[i], r->link_copies[i] == 1 ? "y" : "ies", r->link_us[i],
                    r->link_us[i] > 0 ? r->link_bytes[i] / r->link_us[i] / 1e3 : 0.0,
                    p->links[i].bandwidth_gbps);
        }
}

/* "64M" -> 64 x 2^20 into *out; suffixes K, M, G (powers of 1024); > 0. */
static int parse_bytes(const char *s, size_t *out)
{
    static const char units[] = "KMG";
    char *end;
    unsigned long long v;
    const char *u;
    if (!*s || *s == '-' || *s == '+')
        return -1;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno || end == s || v == 0)
        return -1;
    if (*end) {
        if (end[1] || !(u = strchr(units, *end)))
            return -1;
        for (long i = 0; i <= u - units; i++) {
            if (v > SIZE_MAX / 1024)
                return -1;
            v *= 1024;
        }
    }
    if (v > SIZE_MAX)
        return -1;
    *out = (size_t)v;
    return 0;
}

/* The device name arg holds before `at`, in buf (cut to its size: no
 * platform has a longer name). */
static const char *device_arg(char *buf, size_t size, const char *arg, const char *at)
{
    snprintf(buf, size, "%.*s", (int)(at - arg), arg);
    return buf;
}

/* Gives stderr back to a rank that was quiet (*loud: the saved stderr, or
 * -1). */
static void speak(int *loud)
{
    if (*loud >= 0) {
        dup2(*loud, 2);
        close(*loud);
        *loud = -1;
    }
}

static int run_main(int argc, char **argv)
{
    enum { OPT_JSON = 256, OPT_GANTT, OPT_TRACE, OPT_SEED, OPT_THR, OPT_MODEL, OPT_BACKEND,
           OPT_DEVICES, OPT_DEVMEM, OPT_SPLIT, OPT_SPLIT_OPTION, OPT_CHECK, OPT_PREDICT,
           OPT_UPDATE_MODEL, OPT_FAIL, OPT_SPLIT_MODE, OPT_THROTTLE, OPT_SCHEDULE,
           OPT_PREDICTED_TRACE };
    static const char *const check_modes[] = {"sample", "full", "none"};
    static const struct option longopts[] = {
        {"algorithm", required_argument, NULL, 'a'},
        {"backend", required_argument, NULL, OPT_BACKEND},
        {"json", required_argument, NULL, OPT_JSON},
        {"gantt", required_argument, NULL, OPT_GANTT},
        {"trace", required_argument, NULL, OPT_TRACE},
        {"predicted-trace", required_argument, NULL, OPT_PREDICTED_TRACE},
        {"seed", required_argument, NULL, OPT_SEED},
        {"thr", required_argument, NULL, OPT_THR},
        {"model", required_argument, NULL, OPT_MODEL},
        {"update-model", required_argument, NULL, OPT_UPDATE_MODEL},
        {"devices", required_argument, NULL, OPT_DEVICES},
        {"device-memory", required_argument, NULL, OPT_DEVMEM},
        {"split", required_argument, NULL, OPT_SPLIT},
        {"split-option", required_argument, NULL, OPT_SPLIT_OPTION},
        {"check", required_argument, NULL, OPT_CHECK},
        {"predict", required_argument, NULL, OPT_PREDICT},
        {"fail", required_argument, NULL, OPT_FAIL},
        {"split-mode", required_argument, NULL, OPT_SPLIT_MODE},
        {"throttle", required_argument, NULL, OPT_THROTTLE},
        {"schedule", required_argument, NULL, OPT_SCHEDULE},
        HS_CLI_SOURCE_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    hs_cli_source src = {.cmd = &hs_cmd_run};
    const char *algo = NULL, *model_path = NULL, *update_path = NULL, *predicted_trace = NULL;
    hs_cli_outputs out = {0};
    hs_perfmodel *model = NULL, *update = NULL;
    hs_run_options ro = {0};
    hs_run_result res = {0};
    /* the --split-option values, NULL-terminated, each also parsed here so
     * that a bad one is refused where it is given */
    const char **split_options = calloc((size_t)argc + 1, sizeof *split_options);
    size_t nsplit_options = 0;
    hs_split_options sopt = {0};
    char fail_buf[128], throttle_buf[128]; /* device names */
    hs_workload *w = NULL;
    hs_error err = {0};
    int c, status = 0, rc, have_seed = 0, have_thr = 0, loud = -1, follower = 0;
    unsigned long long v;
    if (!split_options) {
        fprintf(stderr, "hetsched: out of memory\n");
        return 1;
    }
    ro.split_options = split_options;
    if (hs_mpi_init(&err) != HS_OK) {
        status = hs_cli_fail(&err);
        goto out;
    }
    /* a rank but the first says nothing until the run starts: what fails
     * before fails alike on every rank, and rank 0 says it */
    follower = hs_mpi_size() > 1 && hs_mpi_rank() != 0;
    if (follower && (loud = dup(2)) >= 0) {
        int quiet = open("/dev/null", O_WRONLY);
        if (quiet >= 0) {
            dup2(quiet, 2);
            close(quiet);
        }
    }
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":a:", longopts, NULL)) != -1) {
        int taken = hs_cli_source_option(&src, c, optarg);
        if (taken < 0) {
            status = 2;
            goto out;
        }
        if (taken)
            continue;
        switch (c) {
        case 'a': algo = optarg; break;
        case OPT_BACKEND: ro.backend = optarg; break;
        case OPT_JSON: out.json = optarg; break;
        case OPT_GANTT: out.gantt = optarg; break;
        case OPT_TRACE: out.trace = optarg; break;
        case OPT_PREDICTED_TRACE: predicted_trace = optarg; break;
        case OPT_MODEL: model_path = optarg; break;
        case OPT_UPDATE_MODEL: update_path = optarg; break;
        case OPT_DEVICES: ro.devices = optarg; break;
        case OPT_SPLIT: ro.split = optarg; break;
        case OPT_SCHEDULE: ro.schedule = optarg; break;
        case OPT_FAIL: {
            const char *at = strstr(optarg, ":after=");
            if (!at || at == optarg ||
                hs_cli_parse_whole(at + 7, 1, ULONG_MAX, &v) != 0) {
                status = hs_cli_usage_error(&hs_cmd_run, "--fail wants DEVICE:after=N (N >= "
                                            "1), not '%s'", optarg);
                goto out;
            }
            ro.fail_device = device_arg(fail_buf, sizeof fail_buf, optarg, at);
            ro.fail_after = (size_t)v;
            break;
        }
        case OPT_SPLIT_MODE:
            if (strcmp(optarg, "live") != 0 && strcmp(optarg, "planned") != 0) {
                status = hs_cli_usage_error(&hs_cmd_run, "--split-mode wants live or planned, "
                                            "not '%s'", optarg);
                goto out;
            }
            ro.split_planned = strcmp(optarg, "planned") == 0;
            break;
        case OPT_THROTTLE: {
            const char *at = strrchr(optarg, ':');
            char *end;
            double f = at ? strtod(at + 1, &end) : 0;
            if (!at || at == optarg || end == at + 1 || *end || !(f > 1) || f > 1e6) {
                status = hs_cli_usage_error(&hs_cmd_run, "--throttle wants DEVICE:FACTOR with "
                                            "a FACTOR above 1, not '%s'", optarg);
                goto out;
            }
            ro.throttle_device = device_arg(throttle_buf, sizeof throttle_buf, optarg, at);
            ro.throttle = f;
            break;
        }
        case OPT_PREDICT: {
            int executor;
            if ((status = hs_cli_parse_predict(&hs_cmd_run, optarg, &executor)) != 0)
                goto out;
            ro.predict = executor ? HS_PREDICT_EXECUTOR : HS_PREDICT_DELAY;
            break;
        }
        case OPT_CHECK: {
            int k = 0;
            while (k < 3 && strcmp(optarg, check_modes[k]) != 0)
                k++;
            if (k == 3) {
                status = hs_cli_usage_error(&hs_cmd_run, "--check wants sample, full or none, "
                                            "not '%s'", optarg);
                goto out;
            }
            ro.check = (hs_check_mode)k;
            break;
        }
        case OPT_SPLIT_OPTION:
            if (hs_split_option_set(&sopt, optarg, &err) != HS_OK) {
                status = hs_cli_usage_error(&hs_cmd_run, "--split-option: %s", err.msg);
                goto out;
            }
            split_options[nsplit_options++] = optarg;
            break;
        case OPT_DEVMEM:
            if (parse_bytes(optarg, &ro.device_memory) != 0) {
                status = hs_cli_usage_error(&hs_cmd_run, "--device-memory wants a number of "
                                            "bytes > 0 (suffix K, M or G), not '%s'", optarg);
                goto out;
            }
            break;
        case OPT_SEED:
            if (hs_cli_parse_whole(optarg, 0, ULONG_MAX, &v) != 0) {
                status = hs_cli_usage_error(&hs_cmd_run, "--seed wants a whole number >= 0, "
                                            "not '%s'", optarg);
                goto out;
            }
            ro.seed = v;
            have_seed = 1;
            break;
        case OPT_THR:
            if (hs_cli_parse_whole(optarg, 0, INT_MAX, &v) != 0) {
                status = hs_cli_usage_error(&hs_cmd_run, "--thr wants a whole number >= 0, "
                                            "not '%s'", optarg);
                goto out;
            }
            ro.thr = (int)v;
            have_thr = 1;
            break;
        case ':':
            status = hs_cli_usage_error(&hs_cmd_run, "option '%s' needs a value",
                                        argv[optind - 1]);
            goto out;
        default:
            status = hs_cli_usage_error(&hs_cmd_run, "unknown option '%s'", argv[optind - 1]);
            goto out;
        }
    }
    if (!algo && !ro.schedule) {
        status = hs_cli_usage_error(&hs_cmd_run, "no policy: give -a ALGO or --schedule FILE");
        goto out;
    }
    if ((status = hs_cli_outputs_check(&hs_cmd_run, &out, "--predicted-trace",
                                       predicted_trace)) != 0)
        goto out;
    if (algo && !hs_policy_find(algo)) {
        fprintf(stderr, "hetsched run: unknown policy '%s' (see hetsched map -a help)\n", algo);
        status = 2;
        goto out;
    }
    if ((status = hs_cli_policy_options_check(&hs_cmd_run, hs_policy_find(algo), have_thr,
                                              have_seed, 0)) != 0)
        goto out;
    /* the backend's name first, then the arguments, then the rest */
    if (ro.backend &&
        hs_run_check(algo, &(hs_run_options){.backend = ro.backend, .schedule = ro.schedule},
                     &err)) {
        status = hs_cli_usage_error(&hs_cmd_run, "%s", err.msg);
        goto out;
    }
    if (argc - optind != 1) {
        status = hs_cli_usage_error(&hs_cmd_run, "expected one WORKLOAD, got %d arguments",
                                    argc - optind);
        goto out;
    }
    if (update_path && (!update_path[0] || strcmp(update_path, "-") == 0)) {
        status = hs_cli_usage_error(&hs_cmd_run, "--update-model wants a file (it is read and "
                                    "written back), not '%s'", update_path);
        goto out;
    }
    if (hs_run_check(algo, &ro, &err) != HS_OK) {
        status = hs_cli_usage_error(&hs_cmd_run, "%s", err.msg);
        goto out;
    }
    if (!(w = hs_cli_load_model(argv[optind], &src, model_path, &model, &status)) ||
        (update_path && !(update = hs_cli_model_open(update_path, &status))))
        goto out;
    if (update_path && hs_mpi_size() > 1) {
        status = hs_cli_usage_error(&hs_cmd_run, "--update-model does not apply to a run "
                                    "across nodes (mpirun)");
        goto out;
    }
    ro.perfmodel = model;
    rc = hs_run(w, algo, &ro, &res, &err);
    speak(&loud);
    if (rc != HS_OK && hs_mpi_started()) { /* this rank's alone: end the job */
        fprintf(stderr, "hetsched: rank %d: %s\n", hs_mpi_rank(), err.msg);
        hs_mpi_abort(hs_error_exit_status(err.code));
    }
    if (follower) { /* rank 0 prints and writes */
        status = hs_error_exit_status(rc);
        goto out;
    }
    if (rc == HS_OK)
        rc = hs_cli_write_outputs(w, res.schedule, &out, &err);
    if (rc == HS_OK && predicted_trace)
        rc = hs_trace_write(w, res.predicted, predicted_trace, &err);
    if (rc == HS_OK) {
        FILE *o = hs_cli_outputs_use_stdout(&out) ||
                          (predicted_trace && strcmp(predicted_trace, "-") == 0) ? stderr : stdout;
        const hs_schedule *s = res.schedule, *pred = res.predicted;
        fprintf(o, "%s %s on %s, backend %s: measured makespan %.3f us\n",
                algo ? "policy" : "schedule", algo ? algo : ro.schedule, argv[optind],
                res.backend, s->makespan_us);
        fprintf(o, "predicted makespan %.3f us (%s model; measured / predicted %.3f)\n",
                pred->makespan_us, ro.predict == HS_PREDICT_EXECUTOR ? "executor" : "delay",
                pred->makespan_us > 0 ? s->makespan_us / pred->makespan_us : 0.0);
        fprintf(o, "checked %zu of %zu typed kernels (%s, %.3f ms after the run); %zu "
                "cost-only tasks slept their cost\n", res.checked, res.typed,
                check_modes[ro.check], res.check_us / 1e3, res.untyped);
        fprintf(o, "outputs: %zu results, %.0f bytes, digest %016llx\n", res.noutputs,
                res.output_bytes, res.outputs_digest);
        fprintf(o, "set-up before the clock %.3f s (inputs %.3f s, buffers made ahead %.3f s, "
                "warm-up %.3f s); after the run %.3f s to stop and free\n", res.setup_us / 1e6,
                res.inputs_us / 1e6, res.buffers_us / 1e6, res.warmup_us / 1e6,
                res.teardown_us / 1e6);
        if (res.ranks > 1)
            fprintf(o, "across %d MPI ranks (node k on rank k): %zu messages, %.0f bytes "
                    "between nodes\n", res.ranks, res.messages, res.message_bytes);
        if (getenv("OPENBLAS_THREAD_TIMEOUT"))
            fprintf(o, "OpenBLAS's idle threads sleep after 2^%s cycles "
                    "(OPENBLAS_THREAD_TIMEOUT)\n", getenv("OPENBLAS_THREAD_TIMEOUT"));
        if (res.threads > res.processors)
            fprintf(o, "note: %d threads compute or drive on %d processors (each cpu "
                    "device's cores, a worker per GPU, the engine): kernels may run slower "
                    "than calibrated\n", res.threads, res.processors);
        summarise(o, w, &res, ro.predict == HS_PREDICT_EXECUTOR);
        if (res.evictions || res.prefetched)
            fprintf(o, "prefetched %zu input copies; evicted %zu replicas (%zu written back "
                    "to host first)\n", res.prefetched, res.evictions, res.writebacks);
        fprintf(o, "buffers: %zu reused, %zu made during the run, %zu made ahead\n",
                res.pool_hits, res.pool_misses, res.pool_reserved);
        if (ro.split && !ro.split_planned)
            fprintf(o, "split at run time by %s: %zu kernel%s in %zu chunks\n", ro.split,
                    res.stats.live_splits, res.stats.live_splits == 1 ? "" : "s",
                    res.stats.chunks);
        if (ro.throttle_device)
            fprintf(o, "device %s ran %g times slower (--throttle)\n", ro.throttle_device,
                    ro.throttle);
        if (ro.fail_device)
            fprintf(o, "device %s failed at its task %zu (--fail): %s; %zu task%s it held ran "
                    "elsewhere\n", ro.fail_device, ro.fail_after,
                    res.stats.failed_devices ? "it ran nothing more" : "it never got that far",
                    res.stats.rerun, res.stats.rerun == 1 ? "" : "s");
        if (rc == HS_OK && update)
            status = hs_cli_model_update(update_path, update, w, res.schedule, o);
    }
    if (rc != HS_OK)
        status = hs_cli_fail(&err);
out:
    speak(&loud);
    hs_mpi_finalize();
    hs_run_result_free(&res);
    hs_workload_free(w);
    hs_perfmodel_free(model);
    hs_perfmodel_free(update);
    free(split_options);
    return status;
}
