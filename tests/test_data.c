/* Tests of the data manager's memory handling under emu (exec/data.h):
 * eviction under a small device memory (with and without write-back), a
 * kernel too big for a memory, prefetch (copies started early, pins, a
 * prefetch for another device, a prefetch cancelled by memory pressure),
 * replica and copy counts on hand-checked cases, and every policy under
 * pressure, parts of a split kernel on an emulated gpu's memory (bytes
 * moved per part).  Every output is compared byte for byte with the cpu backend's
 * run of the same applications on a cpu-only platform (same task indices). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "exec/pool.h"
#include "tests/data_fixture.h"

/* ------------------------------------------------------------------ tests */

/* gpu0 alone with 12000 bytes, eager.  Each va needs all 12000 bytes, so
 * whenever x, y or z starts while an earlier result (x's or y's, waiting
 * for j) is on gpu0, that result is evicted, and since gpu0 holds its only
 * copy it is written back first (gpu0 -> host).  j then fetches each
 * written-back input again (host -> gpu0).  Whatever order eager picks, with
 * W = write-backs >= 1 (the second of x and y always evicts the first) and
 * F = copies of results host -> gpu0 >= W (a prefetch of j before z runs
 * fetches an input that z's start evicts again, without a write-back: host
 * has it), beside the 6 copies of x's, y's and z's generated inputs:
 *   evictions >= W; gpu0 -> host = W + 2 outputs (j, z); replicas = x, y,
 *   j, z on gpu0 + j, z on host + W host copies + F copies back = 6 + W + F.
 * Without prefetch, e.g. order x, y, j, z: W = F = 1, evictions 1.  Checks
 * (after the run) copy to host each of x's and y's results that has no
 * host replica, for its own check and j's: at most 4 copies. */
static void eviction_writes_back(void **state)
{
    hs_workload *w = workload(PF_GPU, join_app);
    hs_run_report r, ref;
    hs_error err = {0};
    (void)state;
    reference(join_app, &ref);
    if (run(w, "eager", &hs_backend_emu, 12000, &r, &err) != 0)
        fail_msg("%s", err.msg);
    assert_true(r.writebacks >= 1);
    assert_true(r.evictions >= r.writebacks);
    assert_true(r.link_copies[0 * 2 + 1] >= 6 + r.writebacks);
    assert_int_equal(r.link_copies[1 * 2 + 0], 2 + r.writebacks);
    assert_int_equal(r.replicas_allocated, r.writebacks + r.link_copies[0 * 2 + 1]);
    assert_true(r.check_copies <= 4);
    assert_true(r.check_bytes == 4000.0 * (double)r.check_copies);
    same_outputs(&r, &ref);
    hs_run_report_free(&r);
    hs_run_report_free(&ref);
    hs_workload_free(w);
}

/* A va of 1000 floats needs 12000 bytes: 11999 cannot hold it, and the
 * run fails with HS_EINPUT naming the kernel, the bytes and the capacity. */
static void kernel_too_big(void **state)
{
    hs_workload *w = workload(PF_GPU, join_app);
    hs_run_report r;
    hs_error err = {0};
    (void)state;
    assert_int_equal(run(w, "eager", &hs_backend_emu, 11999, &r, &err), HS_EINPUT);
    assert_non_null(strstr(err.msg, "join#0/"));
    assert_non_null(strstr(err.msg, "(va)"));
    assert_non_null(strstr(err.msg, "needs 12000 bytes"));
    assert_non_null(strstr(err.msg, "capacity is 11999 bytes"));
    hs_run_report_free(&r);
    hs_workload_free(w);
}

/* Drives the data manager by hand (cpu0 = device 0, gpu0 = device 1):
 *   x, y on cpu0: results on host, no copy.
 *   prefetch j to gpu0: both inputs copied host -> gpu0 at once (emu
 *     copies in the caller): 2 copies, prefetched 2.
 *   prefetch j again: nothing new.
 *   z on gpu0 with 12000 bytes of capacity: needs all of it, so the pinned
 *     prefetch is cancelled and both replicas evicted; host has valid
 *     copies, so no write-back: 2 evictions, 0 write-backs.  Its generated
 *     inputs a and b: host -> gpu0, 2 copies.  z's output: gpu0 -> host 1
 *     copy.
 *   j on gpu0: fetches both again (host -> gpu0: 6 copies in all); output
 *     gpu0 -> host: 2 copies in all.
 * Replicas: x host, y host, x gpu0, y gpu0, z gpu0, z host, x gpu0, y gpu0,
 * j gpu0, j host = 10; outputs j and z keep host copies: 8 freed. */
static void prefetch_pins_and_cancel(void **state)
{
    hs_workload *w = workload(PF_CPU_GPU, join_app);
    hs_run_report in = {.device_memory = 12000, .check = HS_CHECK_FULL}, r = {0}, ref;
    struct timespec t0;
    hs__data *dm;
    hs_error err = {0};
    double s, e;
    (void)state;
    reference(join_app, &ref);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(hs__data_new(w, &w->graph, HS__REAL_EMU, &in, &dm, &err), 0);
    assert_int_equal(hs__data_start(dm, &t0, &err), 0);
    assert_int_equal(hs__data_prefetch(dm, 2, 1, SIZE_MAX, &err), 0); /* x, y not run: nothing */
    assert_int_equal(hs__data_run(dm, 0, 0, 0, &s, &e, &err), 0);
    assert_int_equal(hs__data_run(dm, 1, 0, 0, &s, &e, &err), 0);
    assert_int_equal(hs__data_prefetch(dm, 2, 1, SIZE_MAX, &err), 0);
    assert_int_equal(hs__data_prefetch(dm, 2, 1, SIZE_MAX, &err), 0);
    assert_int_equal(hs__data_run(dm, 3, 1, 0, &s, &e, &err), 0);
    assert_int_equal(hs__data_run(dm, 2, 1, 0, &s, &e, &err), 0);
    assert_int_equal(hs__data_prefetch(dm, 2, 1, SIZE_MAX, &err), 0); /* ran: nothing */
    assert_int_equal(hs__data_verify(dm, &err), 0);
    assert_int_equal(hs__data_report(dm, &r, &err), 0);
    hs__data_free(dm);
    assert_int_equal(r.prefetched, 2);
    assert_int_equal(r.evictions, 2);
    assert_int_equal(r.writebacks, 0);
    assert_int_equal(r.link_copies[0 * 2 + 1], 6);
    assert_int_equal(r.link_copies[1 * 2 + 0], 2);
    assert_true(r.link_bytes[0 * 2 + 1] == 24000.0);
    assert_int_equal(r.replicas_allocated, 10);
    assert_int_equal(r.replicas_freed, 8);
    same_outputs(&r, &ref);
    hs_run_report_free(&r);
    hs_run_report_free(&ref);
    hs_workload_free(w);
}

/* A prefetch for one device, then the task runs on another: the pins are
 * dropped, the prefetched replica stays until its producer's last consumer
 * ended, then goes.  x, y on gpu0, their generated inputs host -> gpu0 (4
 * copies); prefetch j to cpu0 (gpu0 -> host: 2
 * copies); j runs on gpu0 (inputs already there, no copy); its output
 * gpu0 -> host (3 copies in all); z on cpu0, no copy.  Replicas: x gpu0,
 * y gpu0, x host, y host, j gpu0, j host, z host = 7; 5 freed. */
static void prefetch_for_another_device(void **state)
{
    hs_workload *w = workload(PF_CPU_GPU, join_app);
    hs_run_report in = {.check = HS_CHECK_FULL}, r = {0}, ref;
    struct timespec t0;
    hs__data *dm;
    hs_error err = {0};
    double s, e;
    (void)state;
    reference(join_app, &ref);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(hs__data_new(w, &w->graph, HS__REAL_EMU, &in, &dm, &err), 0);
    assert_int_equal(hs__data_start(dm, &t0, &err), 0);
    assert_int_equal(hs__data_run(dm, 0, 1, 0, &s, &e, &err), 0);
    assert_int_equal(hs__data_run(dm, 1, 1, 0, &s, &e, &err), 0);
    assert_int_equal(hs__data_prefetch(dm, 2, 0, SIZE_MAX, &err), 0);
    assert_int_equal(hs__data_run(dm, 2, 1, 0, &s, &e, &err), 0);
    assert_int_equal(hs__data_run(dm, 3, 0, 0, &s, &e, &err), 0);
    assert_int_equal(hs__data_verify(dm, &err), 0);
    assert_int_equal(hs__data_report(dm, &r, &err), 0);
    hs__data_free(dm);
    assert_int_equal(r.prefetched, 2);
    assert_int_equal(r.evictions, 0);
    assert_int_equal(r.link_copies[0 * 2 + 1], 4);
    assert_true(r.link_bytes[0 * 2 + 1] == 16000.0);
    assert_int_equal(r.link_copies[1 * 2 + 0], 3);
    assert_int_equal(r.replicas_allocated, 7);
    assert_int_equal(r.replicas_freed, 5);
    same_outputs(&r, &ref);
    hs_run_report_free(&r);
    hs_run_report_free(&ref);
    hs_workload_free(w);
}

/* Every policy on cpu0 + two gpus, each gpu memory capped at 12000 bytes
 * (one va's buffers): outputs byte-exact against the cpu backend, replicas
 * balanced, every kernel checked; and the cap evicts in at least one run. */
static void every_policy_under_pressure(void **state)
{
    const hs_policy *const *pol = hs_policy_list();
    hs_workload *w = workload(PF_CPU_GPU2, mixed_apps);
    hs_run_report ref;
    size_t evictions = 0;
    (void)state;
    reference(mixed_apps, &ref);
    for (size_t i = 0; pol[i]; i++) {
        const char *name = hs_policy_name(pol[i]);
        hs_run_report r;
        hs_error err = {0};
        if (run(w, name, &hs_backend_emu, 12000, &r, &err) != 0)
            fail_msg("%s: %s", name, err.msg);
        assert_int_equal(r.typed, 13);
        same_outputs(&r, &ref);
        evictions += r.evictions;
        hs_run_report_free(&r);
    }
    assert_true(evictions > 0);
    hs_run_report_free(&ref);
    hs_workload_free(w);
}

/* Without CUDA built in (or without a GPU) the cuda backend refuses with
 * a message; with both, this test has nothing to say (see test_run_cuda). */
static void cuda_backend_refuses_without_gpu(void **state)
{
    hs_workload *w = workload(PF_CPU_GPU, join_app);
    hs_run_report r;
    hs_error err = {0};
    (void)state;
    assert_ptr_equal(hs_backend_find("cuda"), &hs_backend_cuda);
    if (hs_cuda_device_count() == 0) {
        int rc = run(w, "eager", &hs_backend_cuda, 0, &r, &err);
        assert_true(rc == HS_ENOTBUILT || rc == HS_EINPUT);
        assert_non_null(strstr(err.msg, "backend cuda"));
        hs_run_report_free(&r);
    }
    hs_workload_free(w);
}

/* Parts of a split kernel on cpu0 + an emulated gpu0, split by ad-part,
 * hdss and static: gpu0's part runs on copies in gpu0's memory, so the
 * links carry exactly its spans (part_copies_are, from the part's range in
 * the schedule); the whole kernel's check passes on host, and va and
 * increment give the bytes of the cpu backend's whole run.  static, by
 * hand: gpu0 is device 1 and gets items [N/2, N) (fraction 1/2, part 1),
 * so va (N = 100000) moves 2 x 50000 x 4 = 400000 bytes host -> gpu0 in 2
 * copies and 50000 x 4 = 200000 bytes back in 1; gemm rows [32, 64):
 * 32 x 512 + 16384 = 32768 bytes in 3 copies, 32 x 256 = 8192 back.  The
 * cpu backend (cpu0 + cpu1) with the same split moves nothing and gives
 * the same bytes. */
static void emu_parts_run_on_their_memory(void **state)
{
    static const char *const how[] = {"ad-part", "hdss", "static"};
    (void)state;
    for (size_t k = 0; k < sizeof split_cases / sizeof *split_cases; k++) {
        const split_case *sc = &split_cases[k];
        hs_workload *w = workload(PF_CPU_GPU, sc->app), *wc = workload(PF_CPU, sc->app);
        hs_run_report ref;
        reference(sc->app, &ref);
        for (size_t h = 0; h < sizeof how / sizeof *how; h++) {
            hs_run_report r;
            hs_schedule *s;
            hs_error err = {0};
            size_t b = 0, e = 0;
            split_part_run(w, sc, how[h], &hs_backend_emu, &ref, &r, &s, &b, &e);
            if (strcmp(how[h], "static") == 0) {
                assert_int_equal(b, sc->items / 2);
                assert_int_equal(e, sc->items);
                if (k == 0)
                    assert_true(r.link_bytes[1] == 400000.0 && r.link_bytes[2] == 200000.0);
                if (k == 2)
                    assert_true(r.link_bytes[1] == 32768.0 && r.link_bytes[2] == 8192.0);
            }
            hs_run_report_free(&r);
            hs_schedule_free(s);
            if (run_split(wc, how[h], &hs_backend_cpu, 0, &r, &s, &err) != 0)
                fail_msg("%s, %s on cpu: %s", sc->name, how[h], err.msg);
            assert_true(s->nplacements > 1);
            assert_int_equal(r.link_copies[0], 0);
            if (sc->exact)
                same_outputs(&r, &ref);
            assert_int_equal(r.checked, 1);
            hs_run_report_free(&r);
            hs_schedule_free(s);
        }
        hs_run_report_free(&ref);
        hs_workload_free(w);
        hs_workload_free(wc);
    }
}

/* ad-part with a 1 µs threshold on cpu0 + an emulated gpu0 splits every
 * kernel of the mixed applications that can be cut, fed ones too, and
 * leaves potrf whole: all 13 checked, outputs the cpu backend's, some part
 * moved bytes to gpu0. */
static void emu_ad_part_splits_everything(void **state)
{
    hs_workload *w = workload(PF_CPU_GPU, mixed_apps_even);
    hs_run_report r, ref;
    hs_schedule *s;
    hs_error err = {0};
    (void)state;
    reference(mixed_apps, &ref); /* the same kernels: costs change no output */
    if (run_split(w, "ad-part", &hs_backend_emu, 0, &r, &s, &err) != 0)
        fail_msg("%s", err.msg);
    assert_true(s->nplacements > w->graph.ntasks);
    potrf_whole(w, s);
    assert_int_equal(r.typed, 13);
    same_outputs(&r, &ref);
    assert_true(r.link_copies[0 * 2 + 1] > 0);
    hs_run_report_free(&r);
    hs_run_report_free(&ref);
    hs_schedule_free(s);
    hs_workload_free(w);
}

/* A part needs room for all its kernel's buffers on its memory: va's
 * 3 x 400000 bytes on a gpu0 capped at 1000000, HS_EINPUT naming it. */
static void emu_part_too_big(void **state)
{
    hs_workload *w = workload(PF_CPU_GPU, split_va);
    hs_run_report r;
    hs_schedule *s;
    hs_error err = {0};
    (void)state;
    assert_int_equal(run_split(w, "static", &hs_backend_emu, 1000000, &r, &s, &err), HS_EINPUT);
    assert_non_null(strstr(err.msg, "needs 1200000 bytes on memory 'gpu0'"));
    hs_run_report_free(&r);
    hs_schedule_free(s);
    hs_workload_free(w);
}

/* ------------------------------------------------------------- the pool */

/* A memory for the pool's test: malloc, counting allocations and frees,
 * refusing once `limit` blocks are out; events are ints, 1 when happened. */
typedef struct countmem {
    int allocs, frees, out, limit, syncs;
} countmem;

static int cm_alloc(void *ctx, int m, size_t bytes, void **p, hs_error *err)
{
    countmem *cm = ctx;
    (void)m;
    if (cm->out >= cm->limit)
        return hs_error_set(err, HS_ENOMEM, "full");
    cm->allocs++;
    cm->out++;
    *p = malloc(bytes);
    return HS_OK;
}

static void cm_free(void *ctx, int m, void *p)
{
    countmem *cm = ctx;
    (void)m;
    cm->frees++;
    cm->out--;
    free(p);
}

static int cm_ready(void *ctx, void *ev)
{
    (void)ctx;
    return !ev || *(int *)ev;
}

static int cm_sync(void *ctx, void *ev, hs_error *err)
{
    (void)err;
    ((countmem *)ctx)->syncs++;
    if (ev)
        *(int *)ev = 1;
    return HS_OK;
}

/* Blocks come back by size, those whose last use has happened first; the
 * memory allocates only on a miss; a refusal gives the idle blocks back and
 * retries; the pool frees everything at the end. */
static void pool_reuses_blocks(void **state)
{
    const hs__mem_ops ops = {.alloc = cm_alloc, .free = cm_free, .ready = cm_ready,
                             .sync = cm_sync};
    countmem cm = {.limit = 4};
    hs__pool *p;
    hs__pool_stats st;
    hs_error err = {0};
    void *a, *b, *c, *x;
    int missed, pending = 0;
    (void)state;
    assert_int_equal(hs__pool_new(&ops, &cm, 1, &p, &err), 0);
    assert_int_equal(hs__pool_reserve(p, 100, 2, &err), 0);
    assert_int_equal(cm.allocs, 2);
    assert_int_equal(hs__pool_get(p, 100, &a, &missed, &err), 0);
    assert_int_equal(missed, 0);
    assert_int_equal(hs__pool_get(p, 100, &b, &missed, &err), 0);
    assert_int_equal(missed, 0);
    assert_int_equal(hs__pool_get(p, 100, &c, &missed, &err), 0); /* bin empty */
    assert_int_equal(missed, 1);
    assert_int_equal(cm.allocs, 3);
    hs__pool_put(p, a, 100, &pending); /* still in use by a copy */
    hs__pool_put(p, b, 100, NULL);
    assert_int_equal(hs__pool_get(p, 100, &x, &missed, &err), 0);
    assert_ptr_equal(x, b); /* the one whose last use happened */
    assert_int_equal(cm.syncs, 0);
    assert_int_equal(hs__pool_get(p, 100, &x, &missed, &err), 0);
    assert_ptr_equal(x, a); /* waited for */
    assert_int_equal(pending, 1);
    hs__pool_put(p, a, 100, NULL);
    hs__pool_put(p, b, 100, NULL);
    /* 3 out of 4 (a, b idle, c in use): 200 bytes need a 4th, then a 5th
     * that the memory refuses until the pool gives a and b back */
    assert_int_equal(hs__pool_get(p, 200, &x, &missed, &err), 0);
    assert_int_equal(hs__pool_get(p, 200, &a, &missed, &err), 0);
    hs__pool_get_stats(p, &st);
    assert_int_equal(st.trims, 1);
    assert_int_equal(st.hits, 4);
    assert_int_equal(st.misses, 3);
    assert_int_equal(st.reserved, 2);
    assert_true(st.held_bytes == 100 + 200 + 200);
    assert_true(st.peak_bytes == 100 + 100 + 100 + 200);
    hs__pool_put(p, x, 200, NULL);
    hs__pool_put(p, a, 200, NULL);
    hs__pool_put(p, c, 100, NULL);
    hs__pool_free(p);
    assert_int_equal(cm.out, 0);
    assert_int_equal(cm.allocs, cm.frees);
}

/* A run takes its buffers from the pools: the mixed applications on cpu0 +
 * two emulated gpus reuse blocks and, with blocks made ahead for every size
 * they use, make none during the run. */
static void runs_reuse_pool_blocks(void **state)
{
    hs_workload *w = workload(PF_CPU_GPU2, mixed_apps);
    hs_run_report r;
    hs_error err = {0};
    (void)state;
    if (run(w, "eager", &hs_backend_emu, 0, &r, &err) != 0)
        fail_msg("%s", err.msg);
    assert_true(r.pool_reserved > 0);
    assert_true(r.pool_hits > 0);
    assert_int_equal(r.pool_misses, 0);
    hs_run_report_free(&r);
    hs_workload_free(w);
}

/* 16 independent va (n = 1000: a and b read, c written, 4000 bytes
 * each), all for gpu0: dmda queues every one there and prefetches its
 * inputs, so gpu0 holds up to 48 blocks of one size, more than the 8 a
 * device once had made ahead per size.  Blocks made ahead cover them:
 * none is made during the run. */
static void many_queued_inputs(hs_workload *w)
{
    hs_error err = {0};
    int a = hs_workload_add_app(w, "many", 16, &err);
    kernel(w, a, "va", "va", "n", 1000, NULL, 0, 1000, 10);
}

static void runs_make_blocks_ahead_for_queued_inputs(void **state)
{
    hs_workload *w = workload(PF_CPU_GPU, many_queued_inputs);
    hs_run_report r;
    hs_error err = {0};
    (void)state;
    if (run(w, "dmda", &hs_backend_emu, 0, &r, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(r.typed, 16);
    assert_true(r.prefetched > 8);
    assert_int_equal(r.pool_misses, 0);
    hs_run_report_free(&r);
    hs_workload_free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pool_reuses_blocks),
        cmocka_unit_test(runs_reuse_pool_blocks),
        cmocka_unit_test(runs_make_blocks_ahead_for_queued_inputs),
        cmocka_unit_test(eviction_writes_back),
        cmocka_unit_test(kernel_too_big),
        cmocka_unit_test(prefetch_pins_and_cancel),
        cmocka_unit_test(prefetch_for_another_device),
        cmocka_unit_test(every_policy_under_pressure),
        cmocka_unit_test(cuda_backend_refuses_without_gpu),
        cmocka_unit_test(emu_parts_run_on_their_memory),
        cmocka_unit_test(emu_part_too_big),
        cmocka_unit_test(emu_ad_part_splits_everything),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
