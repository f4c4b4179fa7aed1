/* Tests of the cuda backend (exec/cuda.c) on a real GPU; exits 77 (skipped)
 * when CUDA finds no device.  GPU floats differ from the CPU's, so: on a
 * platform with a CPU, every kernel's own check must pass; on GPUs alone,
 * the outputs must be byte-identical to a serial run of the same kernels on
 * CUDA device 0 (hs_krun_cuda, the rule of exec/data.h), i.e. the copies
 * lose nothing.  Also: workloads/run-small.yaml, eviction under a small
 * capacity, a kernel too big, peer copies when two GPUs exist, and parts of
 * split kernels run on the GPU (bytes moved per part, outputs). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cuda_runtime.h>

#include "mapper/split.h"
#include "tests/data_fixture.h"
#include "workloads/kernels/kernel.h"

#define CK(call) assert_int_equal((call), cudaSuccess)

static int ngpus;

/* The serial GPU reference: every typed task in index order on CUDA device
 * 0, inputs generated with seed task + 1, each edge feeding the buffer its
 * binding names (the `feeds` finalize resolved by the rule of exec/data.h,
 * which tests/test_run.c checks on the CPU).  Fills ref->outputs with the
 * results of typed sinks (the report's order: by task). */
static void gpu_reference(void (*apps)(hs_workload *), hs_run_report *ref)
{
    hs_workload *w = workload(PF_GPU, apps);
    const hs_graph *g = &w->graph;
    void **res = calloc(g->ntasks, sizeof *res);
    size_t *rsize = calloc(g->ntasks, sizeof *rsize);
    hs_kcuda *ctx;
    cudaStream_t st;
    hs_error err = {0};
    assert_true(res && rsize);
    assert_int_equal(hs_kcuda_new(0, &ctx, &err), 0);
    CK(cudaStreamCreate(&st));
    memset(ref, 0, sizeof *ref);
    ref->outputs = calloc(g->ntasks, sizeof *ref->outputs);
    for (size_t t = 0; t < g->ntasks; t++) {
        const hs_kernel *k = &w->apps[g->tasks[t].app].kernels[g->tasks[t].kernel];
        void *h[HS_KMAX_BUFS] = {0}, *d[HS_KMAX_BUFS] = {0};
        int result = -1;
        const hs_edge *ed;
        hs_kconf c;
        if (!k->type)
            continue;
        assert_int_equal(hs_kconf_init(&c, k->type, k->params, k->nparams, &err), 0);
        c.seed = t + 1;
        for (int i = 0; i < c.nbufs; i++) {
            h[i] = calloc(1, c.bufs[i].bytes);
            if (c.bufs[i].mode & HS_KWRITE)
                result = i;
        }
        hs_kfill(&c, h);
        HS_GRAPH_PRED_FOREACH(g, t, ed)
        {
            int i = hs_edge_origin(w, g, ed)->feeds;
            if (i < 0)
                continue;
            assert_non_null(res[ed->from]);
            assert_int_equal(rsize[ed->from], c.bufs[i].bytes);
            memcpy(h[i], res[ed->from], rsize[ed->from]);
        }
        for (int i = 0; i < c.nbufs; i++) {
            CK(cudaMalloc(&d[i], c.bufs[i].bytes));
            CK(cudaMemcpy(d[i], h[i], c.bufs[i].bytes, cudaMemcpyHostToDevice));
        }
        CK(cudaDeviceSynchronize()); /* the DMA has landed (test_kernels_cuda.c) */
        if (hs_krun_cuda(&c, d, 0, c.items, ctx, st, &err) != 0)
            fail_msg("%s", err.msg);
        CK(cudaStreamSynchronize(st));
        CK(cudaMemcpy(h[result], d[result], c.bufs[result].bytes, cudaMemcpyDeviceToHost));
        for (int i = 0; i < c.nbufs; i++) {
            CK(cudaFree(d[i]));
            if (i != result)
                free(h[i]);
        }
        res[t] = h[result];
        rsize[t] = c.bufs[result].bytes;
        if (g->succ_off[t + 1] == g->succ_off[t]) {
            ref->outputs[ref->noutputs++] =
                (hs_run_output){.task = t, .bytes = rsize[t], .data = res[t]};
            res[t] = NULL;
        }
    }
    for (size_t t = 0; t < g->ntasks; t++)
        free(res[t]);
    free(res);
    free(rsize);
    CK(cudaStreamDestroy(st));
    hs_kcuda_free(ctx);
    hs_workload_free(w);
}

/* cpu0 + gpu0, every policy: each kernel's check passes, replicas are
 * balanced, and the run moves bytes between host and gpu0 in at least one
 * policy. */
static void every_policy_cpu_gpu(void **state)
{
    const hs_policy *const *pol = hs_policy_list();
    hs_workload *w = workload(PF_CPU_GPU, mixed_apps);
    double moved = 0;
    (void)state;
    for (size_t i = 0; pol[i]; i++) {
        hs_run_report r;
        hs_error err = {0};
        if (run(w, hs_policy_name(pol[i]), &hs_backend_cuda, 0, &r, &err) != 0)
            fail_msg("%s: %s", hs_policy_name(pol[i]), err.msg);
        assert_int_equal(r.typed, 13);
        assert_int_equal(r.checked, 13);
        assert_int_equal(r.replicas_allocated - r.replicas_freed, r.noutputs);
        moved += r.link_bytes[0 * 2 + 1] + r.link_bytes[1 * 2 + 0];
        hs_run_report_free(&r);
    }
    assert_true(moved > 0);
    hs_workload_free(w);
}

/* gpu0 alone: the outputs are the serial GPU run's, byte for byte. */
static void gpu_alone_byte_exact(void **state)
{
    hs_workload *w = workload(PF_GPU, mixed_apps);
    hs_run_report r, ref;
    hs_error err = {0};
    (void)state;
    gpu_reference(mixed_apps, &ref);
    if (run(w, "heft", &hs_backend_cuda, 0, &r, &err) != 0)
        fail_msg("%s", err.msg);
    same_outputs(&r, &ref);
    assert_true(r.check_copies > 0); /* checks read the GPU's buffers back */
    hs_run_report_free(&r);
    hs_run_report_free(&ref);
    hs_workload_free(w);
}

/* Eviction on the GPU: gpu0 capped at 12000 bytes (one va's buffers), as
 * in tests/test_data.c's eviction_writes_back: W >= 1 write-backs, each an
 * eviction, fetched back (counts as there); outputs byte-exact.  11999 bytes: the
 * kernel cannot fit, HS_EINPUT. */
static void gpu_eviction(void **state)
{
    hs_workload *w = workload(PF_GPU, join_app);
    hs_run_report r, ref;
    hs_error err = {0};
    (void)state;
    gpu_reference(join_app, &ref);
    if (run(w, "eager", &hs_backend_cuda, 12000, &r, &err) != 0)
        fail_msg("%s", err.msg);
    assert_true(r.writebacks >= 1);
    assert_true(r.evictions >= r.writebacks);
    assert_true(r.link_copies[0 * 2 + 1] >= 6 + r.writebacks);
    assert_int_equal(r.link_copies[1 * 2 + 0], r.writebacks + 2);
    assert_int_equal(r.replicas_allocated, r.writebacks + r.link_copies[0 * 2 + 1]);
    same_outputs(&r, &ref);
    hs_run_report_free(&r);
    assert_int_equal(run(w, "eager", &hs_backend_cuda, 11999, &r, &err), HS_EINPUT);
    assert_non_null(strstr(err.msg, "needs 12000 bytes"));
    hs_run_report_free(&r);
    hs_run_report_free(&ref);
    hs_workload_free(w);
}

/* workloads/run-small.yaml with heft: 6 typed kernels checked, 2 slept. */
static void run_small_yaml(void **state)
{
    const char *root = getenv("HS_SOURCE_ROOT");
    char path[4096];
    hs_workload *w;
    hs_run_report r;
    hs_error err = {0};
    (void)state;
    snprintf(path, sizeof path, "%s/workloads/run-small.yaml", root ? root : ".");
    assert_int_equal(hs_workload_load_file(path, &w, &err), 0);
    if (run(w, "heft", &hs_backend_cuda, 0, &r, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(r.typed, 6);
    assert_int_equal(r.checked, 6);
    assert_int_equal(r.untyped, 2);
    hs_run_report_free(&r);
    hs_workload_free(w);
}

/* A cost-only task that gpu0 holds behind its kernels sleeps only once they
 * ended: a GPU runs one task at a time, as the executor's model has it
 * (its worker launched it while the kernels were still running, and the
 * measured schedule had it overlap them).  Three va kernels and a nap,
 * independent, all on gpu0, which holds 4 started tasks (heft commits them
 * ahead, the kernels first: their rank is higher): the nap starts
 * after the last kernel's end, up to the mapping of the GPU's clock onto
 * the host's (a few us). */
static void cost_only_after_gpu_kernels(void **state)
{
    static const char yaml[] =
        "platform:\n"
        "  devices:\n"
        "    - {name: gpu0, kind: gpu, memory: gpu0}\n"
        "  links:\n"
        "    - {from: host, to: gpu0, bandwidth_gbps: 10.0, latency_us: 5}\n"
        "    - {from: gpu0, to: host, bandwidth_gbps: 10.0, latency_us: 5}\n"
        "applications:\n"
        "  - name: chain\n"
        "    kernels:\n"
        "      - {name: a, type: va, params: {n: 4000000}, cost_us: {gpu: 200}}\n"
        "      - {name: b, type: va, params: {n: 4000000}, cost_us: {gpu: 200}}\n"
        "      - {name: c, type: va, params: {n: 4000000}, cost_us: {gpu: 200}}\n"
        "      - {name: nap, cost_us: {gpu: 100}}\n";
    hs_workload *w;
    hs_run_result res;
    hs_run_options o = {.backend = "cuda", .check = HS_CHECK_NONE};
    hs_error err = {0};
    double kernels_end = 0, nap_start = -1;
    (void)state;
    assert_int_equal(hs_workload_load_buffer("nap.yaml", yaml, sizeof yaml - 1, &w, &err), 0);
    if (hs_run(w, "heft", &o, &res, &err) != HS_OK)
        fail_msg("%s", err.msg);
    for (size_t i = 0; i < res.schedule->nplacements; i++) {
        const hs_placement *p = &res.schedule->placements[i];
        if (w->graph.tasks[p->task].kernel == 3)
            nap_start = p->start_us;
        else if (p->end_us > kernels_end)
            kernels_end = p->end_us;
    }
    assert_true(nap_start >= 0);
    assert_true(nap_start > kernels_end - 5.0);
    hs_run_result_free(&res);
    hs_workload_free(w);
}

/* workloads/split-small.yaml with every splitter splitting its 4 kernels
 * at run time over cpu0, cpu1 and gpu0: every chunk on the GPU runs its
 * items in gpu0's memory, each kernel's check passes on host, the measured
 * schedule is valid. */
static void live_split_on_the_gpu(void **state)
{
    const char *root = getenv("HS_SOURCE_ROOT");
    const hs_splitter *const *sp = hs_splitter_list();
    char path[4096];
    hs_workload *w;
    hs_error err = {0};
    (void)state;
    snprintf(path, sizeof path, "%s/workloads/split-small.yaml", root ? root : ".");
    assert_int_equal(hs_workload_load_file(path, &w, &err), 0);
    for (size_t i = 0; sp[i]; i++) {
        hs_map_options opt = {.live_split = sp[i]};
        hs_map_stats st = {0};
        hs_run_report r = {.check = HS_CHECK_FULL};
        hs_backend b = {.ops = &hs_backend_cuda, .state = &r};
        hs_schedule *s = NULL;
        if (hs_engine_run(w, hs_policy_find("heft"), &opt, &b, &s, &st, &err) != 0)
            fail_msg("%s: %s", sp[i]->name, err.msg);
        assert_int_equal(st.live_splits, 4);
        assert_int_equal(r.typed, 3);
        assert_int_equal(r.checked, 3);
        assert_int_equal(r.replicas_allocated - r.replicas_freed, r.noutputs);
        assert_int_equal(hs_run_measured_schedule(w, "cuda", &r, s, &err), 0);
        if (hs_schedule_validate(w, s, &err) != HS_OK)
            fail_msg("%s: measured schedule: %s", sp[i]->name, err.msg);
        hs_run_report_free(&r);
        hs_schedule_free(s);
    }
    hs_workload_free(w);
}

/* Two gpu devices: with one CUDA device, HS_EINPUT naming both counts;
 * with two, every policy but cpu-only on gpu0 + gpu1 gives the serial GPU run's bytes
 * and some policy copies between the two GPUs (peer or staged). */
static void two_gpus(void **state)
{
    const hs_policy *const *pol = hs_policy_list();
    hs_workload *w = workload(PF_GPU2, mixed_apps);
    hs_run_report ref;
    double peer = 0;
    (void)state;
    if (ngpus < 2) {
        hs_run_report r;
        hs_error err = {0};
        assert_int_equal(run(w, "eager", &hs_backend_cuda, 0, &r, &err), HS_EINPUT);
        assert_non_null(strstr(err.msg, "2 gpu devices but CUDA finds 1"));
        hs_run_report_free(&r);
        hs_workload_free(w);
        return;
    }
    gpu_reference(mixed_apps, &ref);
    for (size_t i = 0; pol[i]; i++) {
        hs_run_report r;
        hs_error err = {0};
        if (strcmp(hs_policy_name(pol[i]), "cpu-only") == 0)
            continue; /* needs a cpu device */
        if (run(w, hs_policy_name(pol[i]), &hs_backend_cuda, 0, &r, &err) != 0)
            fail_msg("%s: %s", hs_policy_name(pol[i]), err.msg);
        same_outputs(&r, &ref);
        peer += r.link_bytes[1 * 3 + 2] + r.link_bytes[2 * 3 + 1];
        hs_run_report_free(&r);
    }
    printf("bytes copied between gpu0 and gpu1 over all policies: %.0f\n", peer);
    assert_true(peer > 0);
    hs_run_report_free(&ref);
    hs_workload_free(w);
}

/* Parts of a split kernel on cpu0 + gpu0 (the split_cases of
 * tests/data_fixture.h: va, increment, gemm with beta 1; split by ad-part,
 * hdss and static), as test_data.c's emu_parts_run_on_their_memory on a
 * real GPU: gpu0's part runs hs_krun_cuda on its range in gpu0's memory,
 * so the links carry exactly its spans (derived there), the whole
 * kernel's check passes on host, and va and increment, which round alike
 * on both (__fadd_rn), give the bytes of the cpu backend's whole run. */
static void split_parts_on_the_gpu(void **state)
{
    static const char *const how[] = {"ad-part", "hdss", "static"};
    (void)state;
    for (size_t k = 0; k < sizeof split_cases / sizeof *split_cases; k++) {
        const split_case *sc = &split_cases[k];
        hs_workload *w = workload(PF_CPU_GPU, sc->app);
        hs_run_report ref;
        reference(sc->app, &ref);
        for (size_t h = 0; h < sizeof how / sizeof *how; h++) {
            hs_run_report r;
            hs_schedule *s;
            size_t b = 0, e = 0;
            split_part_run(w, sc, how[h], &hs_backend_cuda, &ref, &r, &s, &b, &e);
            printf("%s, %s: gpu0 items [%zu, %zu), %.0f bytes in, %.0f out\n", sc->name,
                   how[h], b, e, r.link_bytes[1], r.link_bytes[2]);
            if (!sc->exact)
                assert_int_equal(r.replicas_allocated - r.replicas_freed, r.noutputs);
            hs_run_report_free(&r);
            hs_schedule_free(s);
        }
        hs_run_report_free(&ref);
        hs_workload_free(w);
    }
}

/* ad-part with a 1 µs threshold splits every kernel of the mixed
 * applications that can be cut (fed ones too; potrf stays whole): all 13
 * checked, replicas balanced, bytes moved.
 * A gpu0 capped below a part's buffers (va: 3 x 400000 bytes): HS_EINPUT. */
static void split_everything_on_the_gpu(void **state)
{
    hs_workload *w = workload(PF_CPU_GPU, mixed_apps_even), *wv = workload(PF_CPU_GPU, split_va);
    hs_run_report r;
    hs_schedule *s;
    hs_error err = {0};
    (void)state;
    if (run_split(w, "ad-part", &hs_backend_cuda, 0, &r, &s, &err) != 0)
        fail_msg("%s", err.msg);
    assert_true(s->nplacements > w->graph.ntasks);
    potrf_whole(w, s);
    assert_int_equal(r.typed, 13);
    assert_int_equal(r.checked, 13);
    assert_int_equal(r.replicas_allocated - r.replicas_freed, r.noutputs);
    assert_true(r.link_copies[0 * 2 + 1] > 0 && r.link_copies[1 * 2 + 0] > 0);
    hs_run_report_free(&r);
    hs_schedule_free(s);
    assert_int_equal(run_split(wv, "static", &hs_backend_cuda, 1000000, &r, &s, &err),
                     HS_EINPUT);
    assert_non_null(strstr(err.msg, "needs 1200000 bytes on memory 'gpu0'"));
    hs_run_report_free(&r);
    hs_schedule_free(s);
    hs_workload_free(w);
    hs_workload_free(wv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_policy_cpu_gpu),
        cmocka_unit_test(gpu_alone_byte_exact),
        cmocka_unit_test(gpu_eviction),
        cmocka_unit_test(run_small_yaml),
        cmocka_unit_test(cost_only_after_gpu_kernels),
        cmocka_unit_test(live_split_on_the_gpu),
        cmocka_unit_test(two_gpus),
        cmocka_unit_test(split_parts_on_the_gpu),
        cmocka_unit_test(split_everything_on_the_gpu),
    };
    cudaError_t e = cudaGetDeviceCount(&ngpus);
    if (e != cudaSuccess || ngpus == 0) {
        printf("no CUDA device (%s): skipped\n", e != cudaSuccess ? cudaGetErrorName(e) : "0");
        return 77;
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
