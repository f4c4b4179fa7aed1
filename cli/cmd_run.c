/* hetsched run — executes a workload with one policy on the real backends
 * (exec/data.h), checks every typed kernel, and sets the measured makespan
 * beside the one the same policy gets in the simulator. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "exec/data.h"
#include "exec/engine.h"
#include "mapper/perfmodel.h"
#include "mapper/policy.h"
#include "mapper/split.h"
#include "mapper/split_graph.h"

static int run_main(int argc, char **argv);

const hs_cli_cmd hs_cmd_run = {
    .name = "run",
    .summary = "execute a workload with one policy for real (cpu, emu or cuda backend)",
    .usage = "usage: hetsched run -a ALGO WORKLOAD [options]\n"
             "\n"
             "Executes WORKLOAD with policy ALGO: typed kernels run for real on host\n"
             "buffers and are checked against their reference, cost-only kernels sleep\n"
             "their cost.  Prints the measured makespan, the makespan the same policy\n"
             "predicts in the simulator and their ratio, each device's busy time and the\n"
             "bytes moved on each link.  Exit status 1 when a kernel's check fails.\n"
             "\n"
             "options:\n"
             "  -a, --algorithm ALGO  the policy (required; `hetsched map -a help`)\n"
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
             "  --gantt FILE          draw it, FILE.png or FILE.svg\n"
             "  --seed N              seed of the `random` policy (default 0)\n"
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
             "                        task's input copies start when it is started and\n"
             "                        queue on their link, outputs go back to host on\n"
             "                        theirs); delay is the delay model of map and optimal\n"
             "  --fail DEVICE:after=N the device fails when it is about to run its N-th\n"
             "                        task: it runs nothing more, the tasks it held run on\n"
             "                        the others (each where it is predicted to end first),\n"
             "                        and the results only its memory held are saved to\n"
             "                        host first (a test of surviving a device's loss)\n"
             "  --check MODE          which typed kernels are checked against their\n"
             "                        reference, after the run (never on a device's\n"
             "                        path): sample (default) the first of each type\n"
             "                        and params on each memory; full every one (while\n"
             "                        what they hold, inputs and results, exceeds an\n"
             "                        eighth of the memory, some are checked during the\n"
             "                        run, on a thread of their own); none\n"
             "  -h, --help            this text\n"
             "\n"
             "The schedule is the measured one (\"model\": \"measured\"): a placement spans\n"
             "its kernel (on a GPU, between CUDA events), a transfer is a copy the run\n"
             "made between memories (a generated input from host, a result to a task\n"
             "that reads it, an output or an evicted replica to host), and the makespan\n"
             "is the end of the last kernel or copy.  A device holds up to 2 started\n"
             "tasks (the next one's inputs are prefetched while the current one runs);\n"
             "the environment variable HETSCHED_DEPTH (1..16) changes that.  When a file\n"
             "goes to stdout, the summary goes to stderr (one file at most may go there).\n",
    .main = run_main,
};

/* Per-device busy time, task count and time idle while holding work, then
 * the links that moved bytes. */
static int summarise(FILE *out, const hs_workload *w, const hs_schedule *s,
                     const hs_run_report *r, hs_error *err)
{
    const hs_platform *p = &w->platform;
    hs_device_stats *st = calloc((size_t)p->ndevices + 1, sizeof *st);
    double ms = s->makespan_us > 0 ? s->makespan_us : 1;
    int width = 6;
    size_t copies = 0;
    if (!st || hs_schedule_device_stats(w, s, st, err) != HS_OK) {
        free(st);
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    }
    for (int i = 0; i < r->nmemories * r->nmemories; i++)
        copies += r->link_copies[i];
    for (int d = 0; d < p->ndevices; d++)
        if ((int)strlen(p->devices[d].name) > width)
            width = (int)strlen(p->devices[d].name);
    for (int d = 0; d < p->ndevices; d++)
        fprintf(out, "  %-*s %s  busy %12.3f us  %5.1f%%  %zu tasks; idle holding work %.3f us "
                "(%.1f%%)\n", width, p->devices[d].name, hs_device_kind_name(p->devices[d].kind),
                st[d].busy_us, 100.0 * st[d].busy_us / ms, st[d].tasks, st[d].held_idle_us,
                100.0 * st[d].held_idle_us / ms);
    free(st);
    fprintf(out, "bytes moved per link:%s\n", copies ? "" : " none");
    for (int a = 0; a < r->nmemories; a++)
        for (int b = 0; b < r->nmemories; b++) {
            size_t i = (size_t)a * (size_t)r->nmemories + (size_t)b;
            if (!r->link_copies[i])
                continue;
            fprintf(out, "  %s -> %s  %.0f bytes in %zu copies, %.3f us (%.3f GB/s)\n",
                    p->memories[a], p->memories[b], r->link_bytes[i], r->link_copies[i],
                    r->link_us[i],
                    r->link_us[i] > 0 ? r->link_bytes[i] / r->link_us[i] / 1e3 : 0.0);
        }
    return HS_OK;
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

/* Keeps only the devices of `list` (comma-separated names, each once) in
 * w's platform and builds its graph again: costs resolve for the devices
 * left, and a cost given for a device left out is dropped.  Memories and
 * links stay as declared.  HS_EINPUT for an unknown or repeated name. */
static int select_devices(hs_workload *w, const char *list, hs_error *err)
{
    hs_platform *p = &w->platform;
    char *keep = calloc((size_t)p->ndevices, 1), *names = strdup(list), *save = NULL;
    int n = 0, rc = HS_OK;
    if (!keep || !names) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
        goto out;
    }
    for (char *tok = strtok_r(names, ",", &save); tok && rc == HS_OK;
         tok = strtok_r(NULL, ",", &save)) {
        int d = hs_platform_find_device(p, tok);
        if (d < 0)
            rc = hs_error_set(err, HS_EINPUT, "--devices: the platform has no device '%s'",
                              tok);
        else if (keep[d])
            rc = hs_error_set(err, HS_EINPUT, "--devices: '%s' is named twice", tok);
        else
            keep[d] = 1;
    }
    if (rc != HS_OK)
        goto out;
    for (int a = 0; a < w->napps; a++)
        for (int k = 0; k < w->apps[a].nkernels; k++) {
            hs_kernel *kn = &w->apps[a].kernels[k];
            int c = 0;
            for (int i = 0; i < kn->ncosts; i++) {
                int d = hs_platform_find_device(p, kn->costs[i].key);
                if (d >= 0 && !keep[d])
                    free(kn->costs[i].key);
                else
                    kn->costs[c++] = kn->costs[i];
            }
            kn->ncosts = c;
        }
    for (int d = 0; d < p->ndevices; d++) {
        if (keep[d])
            p->devices[n++] = p->devices[d];
        else
            free(p->devices[d].name);
    }
    p->ndevices = n;
    hs_graph_free(&w->graph);
    w->finalized = 0;
    rc = hs_workload_finalize(w, err);
out:
    free(keep);
    free(names);
    return rc;
}

/* The device name arg holds before `at`, in buf (cut to its size: no
 * platform has a longer name). */
static const char *device_arg(char *buf, size_t size, const char *arg, const char *at)
{
    snprintf(buf, size, "%.*s", (int)(at - arg), arg);
    return buf;
}

static int run_main(int argc, char **argv)
{
    enum { OPT_JSON = 256, OPT_GANTT, OPT_TRACE, OPT_SEED, OPT_MODEL, OPT_BACKEND,
           OPT_DEVICES, OPT_DEVMEM, OPT_SPLIT, OPT_SPLIT_OPTION, OPT_CHECK, OPT_PREDICT, OPT_UPDATE_MODEL, OPT_FAIL,
           OPT_SPLIT_MODE, OPT_THROTTLE };
    static const char *const check_modes[] = {"sample", "full", "none"};
    static const struct option longopts[] = {
        {"algorithm", required_argument, NULL, 'a'},
        {"backend", required_argument, NULL, OPT_BACKEND},
        {"json", required_argument, NULL, OPT_JSON},
        {"gantt", required_argument, NULL, OPT_GANTT},
        {"trace", required_argument, NULL, OPT_TRACE},
        {"seed", required_argument, NULL, OPT_SEED},
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
        {NULL, 0, NULL, 0},
    };
    const char *algo = NULL, *bname = NULL, *model_path = NULL, *devices = NULL;
    const char *update_path = NULL;
    size_t devmem = 0;
    const hs_backend_ops *ops = NULL;
    const hs_policy *pol;
    hs_cli_outputs out = {0};
    hs_perfmodel *model = NULL, *update = NULL;
    hs_map_options opt = {0}, popt = {0};
    hs_map_stats stats = {0};
    char fail_buf[128], throttle_buf[128]; /* device names */
    const char *fail_name = NULL, *throttle_name = NULL;
    int planned = 0;
    int *depth = NULL, predict_executor = 1;
    const char *split = NULL;
    hs_split_options sopt = {0};
    hs_schedule *s = NULL, *pred = NULL;
    hs_run_report report = {0};
    hs_backend b = {0};
    hs_workload *w;
    hs_error err = {0};
    int c, status = 0, rc;
    unsigned long long v;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":a:", longopts, NULL)) != -1) {
        switch (c) {
        case 'a': algo = optarg; break;
        case OPT_BACKEND: bname = optarg; break;
        case OPT_JSON: out.json = optarg; break;
        case OPT_GANTT: out.gantt = optarg; break;
        case OPT_TRACE: out.trace = optarg; break;
        case OPT_MODEL: model_path = optarg; break;
        case OPT_UPDATE_MODEL: update_path = optarg; break;
        case OPT_DEVICES: devices = optarg; break;
        case OPT_SPLIT: split = optarg; break;
        case OPT_FAIL: {
            const char *at = strstr(optarg, ":after=");
            if (!at || at == optarg ||
                hs_cli_parse_whole(at + 7, 1, ULONG_MAX, &v) != 0)
                return hs_cli_usage_error(&hs_cmd_run, "--fail wants DEVICE:after=N (N >= 1), "
                                          "not '%s'", optarg);
            fail_name = device_arg(fail_buf, sizeof fail_buf, optarg, at);
            report.fail_after = (size_t)v;
            break;
        }
        case OPT_SPLIT_MODE:
            if (strcmp(optarg, "live") != 0 && strcmp(optarg, "planned") != 0)
                return hs_cli_usage_error(&hs_cmd_run, "--split-mode wants live or planned, "
                                          "not '%s'", optarg);
            planned = strcmp(optarg, "planned") == 0;
            break;
        case OPT_THROTTLE: {
            const char *at = strrchr(optarg, ':');
            char *end;
            double f = at ? strtod(at + 1, &end) : 0;
            if (!at || at == optarg || end == at + 1 || *end || !(f > 1) || f > 1e6)
                return hs_cli_usage_error(&hs_cmd_run, "--throttle wants DEVICE:FACTOR with "
                                          "a FACTOR above 1, not '%s'", optarg);
            throttle_name = device_arg(throttle_buf, sizeof throttle_buf, optarg, at);
            report.throttle = f;
            break;
        }
        case OPT_PREDICT:
            if (strcmp(optarg, "executor") != 0 && strcmp(optarg, "delay") != 0)
                return hs_cli_usage_error(&hs_cmd_run, "--predict wants executor or delay, not "
                                          "'%s'", optarg);
            predict_executor = strcmp(optarg, "executor") == 0;
            break;
        case OPT_CHECK: {
            int k = 0;
            while (k < 3 && strcmp(optarg, check_modes[k]) != 0)
                k++;
            if (k == 3)
                return hs_cli_usage_error(&hs_cmd_run, "--check wants sample, full or none, "
                                          "not '%s'", optarg);
            report.check = (hs_check_mode)k;
            break;
        }
        case OPT_SPLIT_OPTION:
            if (hs_split_option_set(&sopt, optarg, &err) != HS_OK)
                return hs_cli_usage_error(&hs_cmd_run, "--split-option: %s", err.msg);
            break;
        case OPT_DEVMEM:
            if (parse_bytes(optarg, &devmem) != 0)
                return hs_cli_usage_error(&hs_cmd_run, "--device-memory wants a number of "
                                          "bytes > 0 (suffix K, M or G), not '%s'", optarg);
            break;
        case OPT_SEED:
            if (hs_cli_parse_whole(optarg, 0, ULONG_MAX, &v) != 0)
                return hs_cli_usage_error(&hs_cmd_run, "--seed wants a whole number >= 0, "
                                          "not '%s'", optarg);
            opt.seed = v;
            break;
        case ':':
            return hs_cli_usage_error(&hs_cmd_run, "option '%s' needs a value",
                                      argv[optind - 1]);
        default:
            return hs_cli_usage_error(&hs_cmd_run, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (!algo)
        return hs_cli_usage_error(&hs_cmd_run, "no policy: give -a ALGO");
    if ((status = hs_cli_outputs_check(&hs_cmd_run, &out, NULL, NULL)) != 0)
        return status;
    if (!hs_policy_find(algo)) {
        hs_error_set(&err, HS_EUSAGE, "unknown policy '%s' (see hetsched map -a help)", algo);
        fprintf(stderr, "hetsched run: %s\n", err.msg);
        return 2;
    }
    if (bname && (!(ops = hs_backend_find(bname)) || ops == &hs_backend_sim))
        return hs_cli_usage_error(&hs_cmd_run, "--backend wants cpu, emu or cuda, not '%s'",
                                  bname);
    if (argc - optind != 1)
        return hs_cli_usage_error(&hs_cmd_run, "expected one WORKLOAD, got %d arguments",
                                  argc - optind);
    if (update_path && (!update_path[0] || strcmp(update_path, "-") == 0))
        return hs_cli_usage_error(&hs_cmd_run, "--update-model wants a file (it is read and "
                                  "written back), not '%s'", update_path);
    if (planned && !split)
        return hs_cli_usage_error(&hs_cmd_run, "--split-mode applies to --split only");
    if (split && fail_name && !planned)
        return hs_cli_usage_error(&hs_cmd_run, "--fail does not apply to a split at run time "
                                  "(use --split-mode planned)");
    if (split && planned && hs_split_graph_new(split, &sopt, &opt.split, &err) != HS_OK)
        return hs_cli_usage_error(&hs_cmd_run, "--split: %s", err.msg);
    if (split && !planned) {
        if (!(opt.live_split = hs_splitter_find(split)))
            return hs_cli_usage_error(&hs_cmd_run, "--split: unknown splitter '%s' (hetsched "
                                      "split -p help lists them)", split);
        if (sopt.wave_rows || sopt.wave_cols)
            return hs_cli_usage_error(&hs_cmd_run, "--split: a kernel split in a graph has "
                                      "independent items: no wavefront");
        opt.live_split_options = &sopt;
    }
    if (hs__policy_resolve(algo, &opt, &pol, &err) != HS_OK) {
        hs_split_graph_free(opt.split);
        return hs_cli_usage_error(&hs_cmd_run, "%s", err.msg);
    }
    if (!(w = hs_cli_load_model(argv[optind], model_path, &model, &status)) ||
        (update_path && !(update = hs_cli_model_open(update_path, &status)))) {
        hs_workload_free(w);
        hs_perfmodel_free(model);
        hs_split_graph_free(opt.split);
        return status;
    }
    opt.perfmodel = model;
    rc = devices ? select_devices(w, devices, &err) : HS_OK;
    if (!ops) {
        ops = &hs_backend_cpu;
        for (int d = 0; d < w->platform.ndevices; d++)
            if (w->platform.devices[d].kind != HS_DEVICE_CPU)
                ops = hs_cuda_device_count() > 0 ? &hs_backend_cuda : &hs_backend_emu;
    }
    b.ops = ops;
    b.state = &report;
    report.device_memory = devmem;
    if (rc == HS_OK && fail_name &&
        (report.fail_device = hs_platform_find_device(&w->platform, fail_name)) < 0)
        rc = hs_error_set(&err, HS_EINPUT, "--fail: the platform has no device '%s'", fail_name);
    if (rc == HS_OK && throttle_name &&
        ((report.throttle_device = hs_platform_find_device(&w->platform, throttle_name)) < 0 ||
         w->platform.devices[report.throttle_device].kind != HS_DEVICE_CPU))
        rc = hs_error_set(&err, HS_EINPUT, "--throttle: the platform has no cpu device '%s'",
                          throttle_name);
    if (rc == HS_OK && predict_executor) {
        /* the prediction: the same policy in the simulator, under the
         * executor's model with the backend's depths */
        if (!(depth = calloc((size_t)w->platform.ndevices + 1, sizeof *depth)))
            rc = hs_error_set(&err, HS_ENOMEM, "out of memory");
        else if ((rc = hs_run_depths(w, ops, depth, &err)) == HS_OK)
            popt.executor_depth = depth;
    }
    popt = (hs_map_options){.seed = opt.seed, .thr = opt.thr, .perfmodel = opt.perfmodel,
                            .split = opt.split, .executor_depth = popt.executor_depth,
                            .live_split = opt.live_split,
                            .live_split_options = opt.live_split_options};
    if (rc == HS_OK)
        rc = hs_map(w, algo, &popt, &pred, NULL, &err);
    if (rc == HS_OK)
        rc = hs_engine_run(w, pol, &opt, &b, &s, &stats, &err);
    if (rc == HS_OK && (rc = hs_run_measured_schedule(w, ops->name, &report, s, &err)) == HS_OK)
        rc = hs_cli_write_outputs(w, s, &out, &err);
    if (rc == HS_OK) {
        FILE *o = hs_cli_outputs_use_stdout(&out) ? stderr : stdout;
        fprintf(o, "policy %s on %s, backend %s: measured makespan %.3f us\n", algo,
                argv[optind], ops->name, s->makespan_us);
        fprintf(o, "predicted makespan %.3f us (%s model; measured / predicted %.3f)\n",
                pred->makespan_us, predict_executor ? "executor" : "delay",
                pred->makespan_us > 0 ? s->makespan_us / pred->makespan_us : 0.0);
        fprintf(o, "checked %zu of %zu typed kernels (%s, %.3f ms after the run); %zu "
                "cost-only tasks slept their cost\n", report.checked, report.typed,
                check_modes[report.check], report.check_us / 1e3, report.untyped);
        if (report.threads > report.processors)
            fprintf(o, "note: %d threads compute or drive on %d processors (each cpu "
                    "device's cores, a worker per GPU, the engine): kernels may run slower "
                    "than calibrated\n", report.threads, report.processors);
        rc = summarise(o, w, s, &report, &err);
        if (report.evictions || report.prefetched)
            fprintf(o, "prefetched %zu input copies; evicted %zu replicas (%zu written back "
                    "to host first)\n", report.prefetched, report.evictions,
                    report.writebacks);
        fprintf(o, "buffers: %zu reused, %zu made during the run, %zu made ahead\n",
                report.pool_hits, report.pool_misses, report.pool_reserved);
        if (opt.live_split)
            fprintf(o, "split at run time by %s: %zu kernel%s in %zu chunks\n", split,
                    stats.live_splits, stats.live_splits == 1 ? "" : "s", stats.chunks);
        if (throttle_name)
            fprintf(o, "device %s ran %g times slower (--throttle)\n", throttle_name,
                    report.throttle);
        if (fail_name)
            fprintf(o, "device %s failed at its task %zu (--fail): %s; %zu task%s it held ran "
                    "elsewhere\n", fail_name, report.fail_after,
                    stats.failed_devices ? "it ran nothing more" : "it never got that far",
                    stats.rerun, stats.rerun == 1 ? "" : "s");
        if (rc == HS_OK && update)
            status = hs_cli_model_update(update_path, update, w, s, o);
    }
    if (rc != HS_OK)
        status = hs_cli_fail(&err);
    hs_run_report_free(&report);
    hs_schedule_free(s);
    hs_schedule_free(pred);
    free(depth);
    hs_workload_free(w);
    hs_perfmodel_free(model);
    hs_perfmodel_free(update);
    hs_split_graph_free(opt.split);
    return status;
}
