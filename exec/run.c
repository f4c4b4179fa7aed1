/* hetsched — hs_run (include/hetsched/run.h): one policy on a real backend,
 * its prediction in the simulator, and the measured schedule. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec/data.h"
#include "exec/engine.h"
#include "exec/mpi.h"
#include "graph/strmap.h"
#include "hetsched/run.h"
#include "mapper/perfmodel.h"
#include "mapper/policy.h"
#include "mapper/split.h"
#include "mapper/split_graph.h"

/* What the options make of the policy: its split options parsed into *sopt,
 * the splitter set in *mopt (a split graph, owned by the caller, or a live
 * splitter pointing at *sopt), the policy wrapped by a split graph in *pol.
 * Refuses what does not apply, before any workload is touched. */
static int prepare(const char *policy, const hs_run_options *opt, hs_split_options *sopt,
                   hs_map_options *mopt, const hs_policy **pol, hs_error *err)
{
    const hs_policy *p = hs_policy_find(policy);
    const hs_backend_ops *ops;
    hs_error inner = {0}; /* a message that the one in *err quotes */
    int rc;
    for (const char *const *kv = opt->split_options; kv && *kv; kv++)
        if (hs_split_option_set(sopt, *kv, &inner) != HS_OK)
            return hs_error_set(err, HS_EUSAGE, "--split-option: %s", inner.msg);
    if (!opt->schedule && !p)
        return hs_error_set(err, HS_EUSAGE, "unknown policy '%s' (see hetsched map -a help)",
                            policy ? policy : "(null)");
    if (opt->schedule && (opt->thr || opt->seed))
        return hs_error_set(err, HS_EUSAGE, "--%s does not apply to --schedule: the schedule "
                            "is run as it is given", opt->thr ? "thr" : "seed");
    if (p && opt->thr && !(hs_policy_options(p) & HS_POLICY_TAKES_THR))
        return hs_error_set(err, HS_EUSAGE, "--thr does not apply to policy %s: it has no "
                            "dispatch threshold", policy);
    if (p && opt->seed && !(hs_policy_options(p) & HS_POLICY_TAKES_SEED))
        return hs_error_set(err, HS_EUSAGE, "--seed does not apply to policy %s: it has no "
                            "random choice", policy);
    if (opt->thr < 0)
        return hs_error_set(err, HS_EUSAGE, "--thr wants a whole number >= 0");
    if (opt->backend && (!(ops = hs_backend_find(opt->backend)) || ops == &hs_backend_sim))
        return hs_error_set(err, HS_EUSAGE, "--backend wants cpu, emu or cuda, not '%s'",
                            opt->backend);
    if ((unsigned)opt->check > HS_CHECK_NONE || (unsigned)opt->predict > HS_PREDICT_DELAY)
        return hs_error_set(err, HS_EUSAGE, "--check or --predict: no such mode");
    if (opt->fail_device && opt->fail_after < 1)
        return hs_error_set(err, HS_EUSAGE, "--fail wants DEVICE:after=N (N >= 1)");
    if (opt->throttle_device && !(opt->throttle > 1 && opt->throttle <= 1e6))
        return hs_error_set(err, HS_EUSAGE, "--throttle wants a FACTOR above 1");
    if (opt->split_planned && !opt->split)
        return hs_error_set(err, HS_EUSAGE, "--split-mode applies to --split only");
    if (opt->split && opt->fail_device && !opt->split_planned)
        return hs_error_set(err, HS_EUSAGE, "--fail does not apply to a split at run time "
                            "(use --split-mode planned)");
    if (opt->split && opt->split_planned &&
        hs_split_graph_new(opt->split, sopt, &mopt->split, &inner) != HS_OK)
        return hs_error_set(err, HS_EUSAGE, "--split: %s", inner.msg);
    if (opt->split && !opt->split_planned) {
        if (!(mopt->live_split = hs_splitter_find(opt->split)))
            return hs_error_set(err, HS_EUSAGE, "--split: unknown splitter '%s' (hetsched "
                                "split -p help lists them)", opt->split);
        if (sopt->wave_rows || sopt->wave_cols)
            return hs_error_set(err, HS_EUSAGE, "--split: a kernel split in a graph has "
                                "independent items: no wavefront");
        mopt->live_split_options = sopt;
    }
    mopt->seed = opt->seed;
    mopt->thr = opt->thr;
    mopt->perfmodel = opt->perfmodel;
    /* the run's policy estimates as its prediction's does */
    mopt->executor_estimates = opt->predict == HS_PREDICT_EXECUTOR;
    /* a schedule is read by hs_run once the devices are chosen */
    rc = opt->schedule ? hs__given_check(policy, mopt, err)
                       : hs__policy_resolve(policy, mopt, pol, err);
    if (rc == HS_OK && opt->schedule)
        *pol = &hs__policy_given;
    if (rc != HS_OK) {
        hs_split_graph_free(mopt->split);
        mopt->split = NULL;
    }
    return rc;
}

int hs_run_check(const char *policy, const hs_run_options *opt, hs_error *err)
{
    static const hs_run_options defaults = {0};
    hs_split_options sopt = {0};
    hs_map_options mopt = {0};
    const hs_policy *pol;
    int rc = prepare(policy, opt ? opt : &defaults, &sopt, &mopt, &pol, err);
    hs_split_graph_free(mopt.split);
    return rc;
}

const char *hs_run_default_backend(const hs_workload *w)
{
    for (int d = 0; d < w->platform.ndevices; d++)
        if (w->platform.devices[d].kind != HS_DEVICE_CPU)
            return hs_cuda_device_count() > 0 ? "cuda" : "emu";
    return "cpu";
}

int hs_workload_select_devices(hs_workload *w, const char *list, hs_error *err)
{
    hs_platform *p = &w->platform;
    char *keep = calloc((size_t)p->ndevices + 1, 1), *names = strdup(list), *save = NULL;
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
                if (d < 0 || keep[d]) /* the key is the workload's (cost_keys) */
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
    hs__strmap_free(p->device_index); /* indices moved: lookups search the list */
    p->device_index = NULL;
    hs_graph_free(&w->graph);
    w->finalized = 0;
    rc = hs_workload_finalize(w, err);
out:
    free(keep);
    free(names);
    return rc;
}

/* The device called `name` of w (kind HS_DEVICE_CPU only when cpu_only)
 * into *d, or the error naming `option`. */
static int find_device(const hs_workload *w, const char *option, const char *name, int cpu_only,
                       int *d, hs_error *err)
{
    *d = hs_platform_find_device(&w->platform, name);
    if (*d < 0 || (cpu_only && w->platform.devices[*d].kind != HS_DEVICE_CPU))
        return hs_error_set(err, HS_EINPUT, "%s: the platform has no %sdevice '%s'", option,
                            cpu_only ? "cpu " : "", name);
    return HS_OK;
}

static int by_device_kernel(const void *a, const void *b)
{
    const hs_run_kernel_row *x = a, *y = b;
    return x->device != y->device ? (x->device > y->device) - (x->device < y->device)
                                  : strcmp(x->kernel, y->kernel);
}

/* res->kernels, res->overhead_us and res->devices from the measured
 * schedule s of w (res->predicted_devices from res->predicted); a part is
 * set beside what `pm` predicts for a part of its size. */
static int kernel_table(const hs_workload *w, const hs_perfmodel *pm, const hs_schedule *s,
                        hs_run_result *res, hs_error *err)
{
    const hs_platform *pf = &w->platform;
    size_t n = s->nplacements, cap = 0;
    int rc = HS_OK;
    res->ndevices = pf->ndevices;
    if (!(res->overhead_us = calloc((size_t)pf->ndevices + 1, sizeof *res->overhead_us)))
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
    for (size_t i = 0; rc == HS_OK && i < n; i++) {
        const hs_placement *p = &s->placements[i];
        const hs_task *t = &w->graph.tasks[p->task];
        const char *type = w->apps[t->app].kernels[t->kernel].type;
        const char *name = type ? type : "cost-only";
        hs_run_kernel_row *row = NULL;
        for (size_t k = 0; k < res->nkernels && !row; k++)
            if (res->kernels[k].device == p->device && strcmp(res->kernels[k].kernel, name) == 0)
                row = &res->kernels[k];
        if (!row) {
            if (res->nkernels == cap) {
                hs_run_kernel_row *g = realloc(res->kernels, (cap = 2 * cap + 8) * sizeof *g);
                if (!g) {
                    rc = hs_error_set(err, HS_ENOMEM, "out of memory");
                    break;
                }
                res->kernels = g;
            }
            row = &res->kernels[res->nkernels++];
            *row = (hs_run_kernel_row){.device = p->device};
            snprintf(row->kernel, sizeof row->kernel, "%s", name);
        }
        row->tasks++;
        row->measured_us += p->end_us - p->start_us;
        row->model_us += p->fraction < 1
                             ? hs__perf_part_kernel_us(pm, w, p->task, p->device, p->fraction)
                             : hs_task_kernel_us(pf, t, p->device);
    }
    if (rc == HS_OK && res->nkernels > 1)
        qsort(res->kernels, res->nkernels, sizeof *res->kernels, by_device_kernel);
    if (rc == HS_OK)
        rc = hs_perfmodel_overheads(w, s, res->overhead_us, NULL, err);
    if (rc == HS_OK &&
        (!(res->devices = calloc((size_t)pf->ndevices + 1, sizeof *res->devices)) ||
         !(res->predicted_devices = calloc((size_t)pf->ndevices + 1, sizeof *res->devices))))
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
    if (rc == HS_OK && (rc = hs_schedule_device_stats(w, s, res->devices, err)) == HS_OK)
        rc = hs_schedule_device_stats(w, res->predicted, res->predicted_devices, err);
    return rc;
}

/* Each output of report r by its hash, in task order (the report's). */
static int output_sums(const hs_run_report *r, hs__output_sum **out, hs_error *err)
{
    if (!(*out = calloc(r->noutputs + 1, sizeof **out)))
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    for (size_t i = 0; i < r->noutputs; i++)
        (*out)[i] = (hs__output_sum){.task = r->outputs[i].task, .bytes = r->outputs[i].bytes,
                                     .hash = r->outputs[i].hash};
    return HS_OK;
}

/* res's outputs from their sums, in task order: the digest hashes each
 * one's task, size and hash. */
static void outputs_digest(const hs__output_sum *sums, size_t n, hs_run_result *res)
{
    uint64_t h = HS__FNV_BASIS;
    res->noutputs = n;
    res->output_bytes = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t task = sums[i].task, bytes = sums[i].bytes, one = sums[i].hash;
        h = hs__fnv(h, &task, sizeof task);
        h = hs__fnv(h, &bytes, sizeof bytes);
        h = hs__fnv(h, &one, sizeof one);
        res->output_bytes += (double)sums[i].bytes;
    }
    res->outputs_digest = h;
}

/* What a run across nodes (hs__mpi_active) refuses, the same on every
 * rank: the options that act on one process's devices.  Every backend
 * runs there (under cuda, a node's k-th gpu device is its CUDA device k,
 * and a result on a GPU goes to the node's host before it is sent). */
static int distributed_check(const hs_run_options *opt, hs_error *err)
{
    const char *what = opt->split            ? "--split"
                       : opt->fail_device     ? "--fail"
                       : opt->throttle_device ? "--throttle"
                       : opt->devices         ? "--devices"
                                              : NULL;
    if (what)
        return hs_error_set(err, HS_EUSAGE, "%s does not apply to a run across nodes (mpirun)",
                            what);
    return HS_OK;
}

int hs_run(hs_workload *w, const char *policy, const hs_run_options *opt, hs_run_result *res,
           hs_error *err)
{
    static const hs_run_options defaults = {0};
    hs_split_options sopt = {0};
    hs_map_options mopt = {0}, popt;
    const hs_policy *pol;
    const hs_backend_ops *ops;
    hs_run_report report = {0};
    hs_backend b = {.state = &report};
    hs_schedule *s = NULL, *pred = NULL, *given = NULL;
    hs__remote *remote = NULL;
    hs__output_sum *sums = NULL;
    size_t nsums = 0, messages = 0;
    double message_bytes = 0;
    int *depth = NULL, rc, distributed = hs__mpi_active();
    memset(res, 0, sizeof *res);
    if (!opt)
        opt = &defaults;
    if ((rc = prepare(policy, opt, &sopt, &mopt, &pol, err)) != HS_OK)
        return rc;
    rc = opt->devices ? hs_workload_select_devices(w, opt->devices, err) : HS_OK;
    b.ops = ops = hs_backend_find(opt->backend ? opt->backend : hs_run_default_backend(w));
    report.device_memory = opt->device_memory;
    report.output_hashes_only = 1;
    report.check = opt->check;
    report.fail_after = opt->fail_device ? opt->fail_after : 0;
    report.throttle = opt->throttle_device ? opt->throttle : 0;
    if (rc == HS_OK && opt->fail_device)
        rc = find_device(w, "--fail", opt->fail_device, 0, &report.fail_device, err);
    if (rc == HS_OK && opt->throttle_device)
        rc = find_device(w, "--throttle", opt->throttle_device, 1, &report.throttle_device,
                         err);
    if (rc == HS_OK && opt->schedule &&
        (rc = hs_schedule_read_given(w, opt->schedule, &given, err)) == HS_OK)
        mopt.schedule = given;
    popt = (hs_map_options){.seed = mopt.seed, .perfmodel = mopt.perfmodel, .split = mopt.split,
                            .live_split = mopt.live_split,
                            .live_split_options = mopt.live_split_options,
                            .schedule = mopt.schedule};
    if (rc == HS_OK && opt->predict == HS_PREDICT_EXECUTOR) {
        /* the prediction: the same policy in the simulator, under the
         * executor's model with the backend's depths */
        if (!(depth = calloc((size_t)w->platform.ndevices + 1, sizeof *depth)))
            rc = hs_error_set(err, HS_ENOMEM, "out of memory");
        else if ((rc = hs_run_executor_depths(w, depth, err)) == HS_OK)
            popt.executor_depth = depth;
    }
    if (rc == HS_OK && distributed)
        rc = distributed_check(opt, err);
    if (rc == HS_OK)
        rc = hs_map(w, policy, &popt, &pred, NULL, err);
    if (rc == HS_OK && distributed) {
        /* every rank runs its node's part of rank 0's mapping, as given */
        if ((rc = hs__mpi_agree(w, pred, policy, err)) == HS_OK &&
            (rc = hs__mpi_remote_new(w, pred, &remote, err)) == HS_OK) {
            report.remote = remote;
            mopt.schedule = pred;
            pol = &hs__policy_given;
        }
    }
    if (rc == HS_OK)
        rc = hs_engine_run(w, pol, &mopt, &b, &s, &res->stats, err);
    if (remote) {
        hs_error ended = {0};
        int rc_end = hs__mpi_remote_end(remote, rc == HS_OK, &ended);
        if (rc == HS_OK && rc_end != HS_OK) {
            *err = ended;
            rc = rc_end;
        }
    }
    if (rc == HS_OK)
        rc = output_sums(&report, &sums, err);
    nsums = rc == HS_OK ? report.noutputs : 0;
    if (rc == HS_OK && remote)
        rc = hs__mpi_gather(w, remote, s, &report, &sums, &nsums, &messages, &message_bytes,
                            err);
    if (rc == HS_OK)
        rc = hs_run_measured_schedule(w, ops->name, &report, s, err);
    hs__mpi_remote_free(remote);
    free(depth);
    hs_split_graph_free(mopt.split);
    hs_schedule_free(given);
    if (rc != HS_OK) {
        hs_run_report_free(&report);
        hs_schedule_free(s);
        hs_schedule_free(pred);
        free(sums);
        memset(res, 0, sizeof *res);
        return rc;
    }
    *res = (hs_run_result){
        .backend = ops->name, .schedule = s, .predicted = pred, .stats = res->stats,
        .typed = report.typed, .checked = report.checked, .untyped = report.untyped,
        .check_us = report.check_us, .setup_us = report.setup_us,
        .inputs_us = report.inputs_us, .buffers_us = report.buffers_us,
        .warmup_us = report.warmup_us, .teardown_us = report.teardown_us,
        .threads = report.threads,
        .processors = report.processors, .nmemories = report.nmemories,
        .link_bytes = report.link_bytes, .link_us = report.link_us,
        .link_copies = report.link_copies, .prefetched = report.prefetched,
        .evictions = report.evictions, .writebacks = report.writebacks,
        .pool_hits = report.pool_hits, .pool_misses = report.pool_misses,
        .pool_reserved = report.pool_reserved, .ranks = distributed ? hs_mpi_size() : 1,
        .messages = messages, .message_bytes = message_bytes};
    outputs_digest(sums, nsums, res);
    free(sums);
    /* the link arrays now belong to *res */
    report.link_bytes = report.link_us = NULL;
    report.link_copies = NULL;
    hs_run_report_free(&report);
    if ((rc = kernel_table(w, mopt.perfmodel, s, res, err)) != HS_OK)
        hs_run_result_free(res);
    return rc;
}

void hs_run_result_free(hs_run_result *res)
{
    if (!res)
        return;
    hs_schedule_free(res->schedule);
    hs_schedule_free(res->predicted);
    free(res->link_bytes);
    free(res->link_us);
    free(res->link_copies);
    free(res->kernels);
    free(res->overhead_us);
    free(res->devices);
    free(res->predicted_devices);
    memset(res, 0, sizeof *res);
}
