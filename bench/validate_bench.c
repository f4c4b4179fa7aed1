/* validate_bench — how reading and validating a schedule grows with the parts
 * of split tasks.
 *
 * The workload is a chain a -> k -> m -> b on cpu0, cpu1 (host memory), gpu0
 * and gpu1 (memories of their own), every edge carrying data; k and m are
 * split in P parts each, dealt round-robin over the four devices, every part
 * starting when all its inputs can have arrived (a valid schedule, not a
 * tight one).  The schedule lists each part's input and output transfers and
 * the transfers from a and to b (4P + O(1)); the P x P transfers from k to m
 * are left out (listed transfers are optional), so the file stays linear in P.
 * For each P it prints the wall and CPU time of hs_schedule_validate on the
 * schedule built in memory, of writing its JSON and of reading it back (with
 * the reader's checks of every id), and how the CPU time of read + validate
 * grew since the previous P (sizes 10x apart: about 1.1-1.3 for n log n, 10
 * for n^2, 100 for n^3).
 *
 *   validate_bench [--parts N,N..]      (default 1000,10000,100000)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "hetsched/hetsched.h"

#define MAX_SIZES 16

static void die(const char *what, const hs_error *err)
{
    fprintf(stderr, "validate_bench: %s: %s\n", what, err->msg);
    exit(1);
}

static hs_workload *chain(hs_error *err)
{
    hs_workload *w = hs_workload_new();
    const char *mems[] = {"host", "gpu0", "gpu1"}, *kernels[] = {"a", "k", "m", "b"};
    if (!w || hs_platform_add_device(w, "cpu0", HS_DEVICE_CPU, "host", 1, err) < 0 ||
        hs_platform_add_device(w, "cpu1", HS_DEVICE_CPU, "host", 1, err) < 0 ||
        hs_platform_add_device(w, "gpu0", HS_DEVICE_GPU, "gpu0", 0, err) < 0 ||
        hs_platform_add_device(w, "gpu1", HS_DEVICE_GPU, "gpu1", 0, err) < 0 ||
        hs_workload_add_app(w, "chain", 1, err) < 0)
        return NULL;
    for (int q = 0; q < 3; q++)
        for (int r = 0; r < 3; r++)
            if (q != r && hs_platform_add_link(w, mems[q], mems[r], 10, 5, err) < 0)
                return NULL;
    for (int k = 0; k < 4; k++)
        if (hs_app_add_kernel(w, 0, kernels[k], err) != k ||
            hs_kernel_set_cost(w, 0, k, "cpu", 1000, err) != 0 ||
            hs_kernel_set_cost(w, 0, k, "gpu", 250, err) != 0 ||
            hs_kernel_set_bytes(w, 0, k, 1e6, 1e6, err) != 0 ||
            (k > 0 && hs_app_add_edge(w, 0, kernels[k - 1], kernels[k], 1e6, err) < 0))
            return NULL;
    return hs_workload_finalize(w, err) == HS_OK ? w : NULL;
}

static int memory_of(const hs_workload *w, int d)
{
    return d == HS_HOST_DEVICE ? HS_HOST_MEMORY : w->platform.devices[d].memory;
}

/* Adds the transfer of `bytes` between two placements (HS_NONE: host) when
 * their memories differ, leaving at `start`. */
static void transfer(const hs_workload *w, hs_schedule *s, long from, long to, double bytes,
                     double start, hs_error *err)
{
    int fd = from == HS_NONE ? HS_HOST_DEVICE : s->placements[from].device;
    int td = to == HS_NONE ? HS_HOST_DEVICE : s->placements[to].device;
    hs_transfer t = {.from_placement = from, .to_placement = to, .from_device = fd,
                     .to_device = td, .bytes = bytes, .start_us = start};
    if (memory_of(w, fd) == memory_of(w, td))
        return;
    t.end_us = start + hs_transfer_us(&w->platform, memory_of(w, fd), memory_of(w, td), bytes);
    if (hs_schedule_add_transfer(s, &t, err) < 0)
        die("add transfer", err);
}

/* The placements of task t in `parts` parts from `ready` on, each after
 * `ready` plus the slowest transfer of its share of `bytes` (and its input);
 * returns when the last one ends. */
static double place_parts(const hs_workload *w, hs_schedule *s, size_t t, size_t parts,
                          double ready, double bytes, double *free_at, hs_error *err)
{
    double last = 0, f = 1.0 / (double)parts;
    for (size_t k = 0; k < parts; k++) {
        int d = (int)(k % 4);
        double in = hs_transfer_us(&w->platform, HS_HOST_MEMORY, memory_of(w, d), 1e6 * f);
        double data = ready + hs_transfer_us(&w->platform, 1, 2, bytes * f);
        hs_placement p = {.task = t, .part = parts > 1 ? (int)k : 0, .nparts = (int)parts,
                          .fraction = parts > 1 ? f : 1.0, .device = d};
        p.start_us = fmax(fmax(free_at[d], in), data);
        p.end_us = p.start_us + w->graph.tasks[t].cost_us[d] * p.fraction;
        free_at[d] = p.end_us;
        last = fmax(last, p.end_us);
        if (hs_schedule_add_placement(s, &p, err) < 0)
            die("add placement", err);
    }
    return last;
}

static hs_schedule *build(const hs_workload *w, size_t parts, hs_error *err)
{
    hs_schedule *s = hs_schedule_new("chain", "validate_bench");
    double free_at[4] = {0}, end;
    size_t k0, m0, b0;
    if (!s)
        die("schedule", &(hs_error){.msg = "out of memory"});
    end = place_parts(w, s, 0, 1, 0, 0, free_at, err);        /* a on cpu0 */
    k0 = s->nplacements;
    end = place_parts(w, s, 1, parts, end, 1e6, free_at, err); /* k */
    m0 = s->nplacements;
    end = place_parts(w, s, 2, parts, end, 1e6 / (double)parts, free_at, err); /* m */
    b0 = s->nplacements;
    place_parts(w, s, 3, 1, end, 1e6, free_at, err); /* b on cpu0 */
    for (size_t i = 0; i < s->nplacements; i++) {
        const hs_placement *p = &s->placements[i];
        transfer(w, s, HS_NONE, (long)i, 1e6 * p->fraction, 0, err);
        transfer(w, s, (long)i, HS_NONE, 1e6 * p->fraction, p->end_us, err);
        if (i >= k0 && i < m0) /* a -> k */
            transfer(w, s, 0, (long)i, 1e6 * p->fraction, s->placements[0].end_us, err);
        if (i >= m0 && i < b0) /* m -> b */
            transfer(w, s, (long)i, (long)b0, 1e6 * p->fraction, p->end_us, err);
    }
    s->makespan_us = hs_schedule_makespan(w, s);
    return s;
}

int main(int argc, char **argv)
{
    size_t sizes[MAX_SIZES] = {1000, 10000, 100000};
    int nsizes = 3;
    double prev_cpu = 0;
    char path[] = "/tmp/validate_bench_XXXXXX";
    hs_error err = {0};
    hs_workload *w;
    int fd;
    if (argc == 3 && strcmp(argv[1], "--parts") == 0) {
        char *list = argv[2], *tok, *save = NULL;
        nsizes = 0;
        for (tok = strtok_r(list, ",", &save); tok && nsizes < MAX_SIZES;
             tok = strtok_r(NULL, ",", &save))
            if (!(sizes[nsizes++] = bench_number(tok)))
                nsizes = MAX_SIZES + 1;
        if (nsizes > MAX_SIZES)
            argc = 0;
    } else if (argc != 1) {
        argc = 0;
    }
    if (argc == 0) {
        fputs("usage: validate_bench [--parts N,N..]  (see bench/validate_bench.c)\n", stderr);
        return 2;
    }
    if (!(w = chain(&err)))
        die("workload", &err);
    if ((fd = mkstemp(path)) < 0) {
        perror("validate_bench: mkstemp");
        return 1;
    }
    close(fd);
    printf("%10s %12s %12s %12s %12s %12s %12s %8s\n", "parts", "transfers", "validate ms",
           "(cpu ms)", "write ms", "read ms", "(cpu ms)", "growth");
    for (int i = 0; i < nsizes; i++) {
        hs_schedule *s = build(w, sizes[i], &err), *back = NULL;
        double t0, c0, validate_s, validate_cpu, write_s, read_s, read_cpu;
        t0 = bench_clock_s(CLOCK_MONOTONIC);
        c0 = bench_clock_s(CLOCK_PROCESS_CPUTIME_ID);
        if (hs_schedule_validate(w, s, &err) != HS_OK)
            die("validate", &err);
        validate_s = bench_clock_s(CLOCK_MONOTONIC) - t0;
        validate_cpu = bench_clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
        t0 = bench_clock_s(CLOCK_MONOTONIC);
        if (hs_schedule_write_json(w, s, path, &err) != HS_OK)
            die("write", &err);
        write_s = bench_clock_s(CLOCK_MONOTONIC) - t0;
        t0 = bench_clock_s(CLOCK_MONOTONIC);
        c0 = bench_clock_s(CLOCK_PROCESS_CPUTIME_ID);
        if (hs_schedule_read_json(w, path, &back, &err) != HS_OK)
            die("read", &err);
        read_s = bench_clock_s(CLOCK_MONOTONIC) - t0;
        read_cpu = bench_clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
        if (hs_schedule_validate(w, back, &err) != HS_OK)
            die("validate what was read", &err);
        printf("%10zu %12zu %12.1f %12.1f %12.1f %12.1f %12.1f", sizes[i], s->ntransfers,
               1e3 * validate_s, 1e3 * validate_cpu, 1e3 * write_s, 1e3 * read_s,
               1e3 * read_cpu);
        if (prev_cpu > 0)
            printf(" %8.2f", (validate_cpu + read_cpu) / prev_cpu);
        printf("\n");
        fflush(stdout);
        prev_cpu = validate_cpu + read_cpu;
        hs_schedule_free(back);
        hs_schedule_free(s);
    }
    unlink(path);
    hs_workload_free(w);
    return 0;
}
