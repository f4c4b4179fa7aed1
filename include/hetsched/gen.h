/* hetsched — workload generators: platforms, random and structured kernel
 * graphs, the Zhou & Liu benchmarks and their compositions, without YAML.
 *
 * Every generator builds through the builder API of graph.h and adds one
 * application to a workload whose platform is already declared (costs and
 * the CCR depend on its devices and links); the caller finalizes:
 *
 *     hs_workload *w = hs_workload_new();
 *     hs_gen_platform(w, "cpu:1,gpu:2", HS_GEN_CPU_CORES, &err);
 *     hs_gen_random_opts o;
 *     hs_gen_random_defaults(&o);
 *     o.tasks = 1000000;
 *     hs_gen_random(w, &o, &err);
 *     hs_workload_finalize(w, &err);
 *
 * Generators return the new application's index (or the first one added),
 * or a negative HS_E* code; on error the workload may hold part of the
 * application and should be freed.  The same options and seed always give
 * the same workload: randomness comes from GSL's MT19937 generator.
 * hs_workload_write_yaml (graph.h) turns any of them into a YAML file.
 */
#ifndef HETSCHED_GEN_H
#define HETSCHED_GEN_H

#include <stddef.h>

#include "hetsched/error.h"
#include "hetsched/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --------------------------------------------------------------- platform */

/* Figures of the generated platform.  A CPU device computes from `host`
 * memory with HS_GEN_CPU_CORES cores unless told otherwise.  GPU k is named
 * gpuK and computes from its own memory gpuK.  host <-> gpuK is a PCIe 3.0
 * x16 link: 15.75 GB/s peak per direction, of which pinned copies reach
 * about 12 GB/s, with about 10 us to launch and complete a copy (the figures
 * of workloads/case-study.yaml).  gpuJ <-> gpuK is a peer-to-peer copy
 * through the PCIe switch: about 10 GB/s, with the same 10 us. */
#define HS_GEN_CPU_CORES 4
#define HS_GEN_PCIE_GBPS 12.0
#define HS_GEN_PCIE_LATENCY_US 10.0
#define HS_GEN_PEER_GBPS 10.0
#define HS_GEN_PEER_LATENCY_US 10.0

/* Declares the devices of `spec`, a comma-separated list of KIND:COUNT with
 * KIND cpu or gpu (e.g. "cpu:1,gpu:2"; each kind at most once, counts
 * 0..64, at least one device in all), and every link between their
 * memories.  CPU devices are named cpu0.., each with `cores` cores (>= 1).
 * A malformed spec is HS_EINPUT naming the bad item. */
int hs_gen_platform(hs_workload *w, const char *spec, int cores, hs_error *err);

/* A cluster's network: InfiniBand EDR, 100 Gb/s = 12.5 GB/s per direction,
 * with about 2 us from one MPI process to another. */
#define HS_GEN_NET_GBPS 12.5
#define HS_GEN_NET_LATENCY_US 2.0

/* Declares a cluster of `nodes` nodes (1..HS_MAX_NODES, and at most
 * HS_MAX_DEVICES devices in all), each with the devices of `spec` linked as
 * hs_gen_platform links them.  Node k is nK; its devices are nK.cpuI and
 * nK.gpuI, its memories nK.host (`host` for n0) and nK.gpuI; every ordered
 * pair of nodes has a network link of HS_GEN_NET_GBPS and
 * HS_GEN_NET_LATENCY_US (not gpu_direct).  The routes are derived before it
 * returns, so that a generator's mean transfer time counts them. */
int hs_gen_cluster(hs_workload *w, const char *spec, int cores, int nodes, hs_error *err);

/* ----------------------------------------------------- analytic kernel cost */

/* Nominal device rates for analytic cost estimates (cholesky, benchmarks,
 * compositions), until calibration measures real ones.  The defaults model
 * the paper's machine (Fig. 6 of Zhou & Liu), single precision:
 *   CPU, Core i7-4770, 4 cores: AVX2 peak 4 x 3.9 GHz x 32 flop = 499
 *     GFLOP/s, of which tuned kernels sustain about 200; dual-channel
 *     DDR3-1600 gives 25.6 GB/s peak, about 20 sustained; 1 us to start a
 *     task;
 *   GPU, GeForce GTX 660: 1.88 TFLOP/s peak, about 1000 sustained; GDDR5
 *     at 144 GB/s peak, about 120 sustained; 5 us to launch a kernel. */
typedef struct hs_gen_rates {
    double cpu_gflops, gpu_gflops;       /* GFLOP/s (1 GFLOP/s = 1000 flop/us) */
    double cpu_gbps, gpu_gbps;           /* device memory bandwidth, GB/s */
    double cpu_overhead_us, gpu_overhead_us; /* per kernel */
} hs_gen_rates;

void hs_gen_rates_defaults(hs_gen_rates *r);
/* Roofline estimate: overhead + max(flops / rate, bytes moved through the
 * device memory / bandwidth), in us. */
double hs_gen_kernel_cost_us(const hs_gen_rates *r, hs_device_kind kind, double flops,
                             double bytes);

/* ----------------------------------------------- random graphs (Topcuoglu) */

/* Random kernel graphs with the parameters of Topcuoglu, Hariri & Wu, "HEFT"
 * (TPDS 2002, Sec. 5.1):
 *   tasks v; shape alpha: levels hold uniformly drawn widths of mean
 *     alpha * sqrt(v), so the graph has about sqrt(v) / alpha levels (alpha
 *     > 1 short and wide, < 1 long and thin);
 *   out_degree: each task but the last level's gets a number of successors
 *     drawn uniformly with this mean (at least one), in the next two levels;
 *     every task below the first level has a predecessor in the level above;
 *   beta: heterogeneity; a task's mean cost w is drawn uniformly in
 *     (0, 2 * mean_cost_us], and its cost on each device uniformly in
 *     w * (1 - beta/2) .. w * (1 + beta/2), then scaled so that GPUs are
 *     gpu_speedup times faster than CPUs while the mean over the devices
 *     stays w;
 *   ccr: communication-to-computation ratio; edge bytes are drawn uniformly
 *     around a mean chosen so that the mean over edges of the mean transfer
 *     time over the platform's links (every ordered pair of devices on
 *     different memories) is ccr times the mean task cost.
 * Kernels are named t0, t1, .. in level order; costs are given per device
 * name, rounded to 1 ns; bytes are whole numbers. */
typedef struct hs_gen_random_opts {
    const char *name;       /* application name, default "random" */
    size_t tasks;           /* 1 <= v <= hs_max_tasks(), default 100 */
    double alpha;           /* > 0, default 1 */
    int out_degree;         /* 1..1000, tasks x out_degree <= hs_max_edges(); default 3 */
    double ccr;             /* >= 0, default 1 */
    double beta;            /* 0 <= beta < 2, default 0.5 */
    double mean_cost_us;    /* w_dag > 0, default 100 */
    double gpu_speedup;     /* > 0, default 4 */
    unsigned long seed;     /* default 1 */
} hs_gen_random_opts;

void hs_gen_random_defaults(hs_gen_random_opts *o);
int hs_gen_random(hs_workload *w, const hs_gen_random_opts *o, hs_error *err);

/* The CCR a graph realises: the mean over w->graph's edges of the mean
 * transfer time over the links (as above) divided by the mean over tasks and
 * devices of the cost.  0 when there is no edge or no link; w finalized. */
double hs_gen_measured_ccr(const hs_workload *w);

/* The random sweep of `compare --random` (Topcuoglu et al. 2002, Sec. 5.2
 * draws its parameters this way): workload i has 20..200 tasks (20 x a
 * whole number in 1..10), alpha 0.5, 1 or 2, out-degree 1..5, CCR 0.1, 1
 * or 5, beta 0.1, 0.25, 0.5, 0.75 or 1, each uniform, and a seed of its
 * own, all drawn from GSL's MT19937 seeded with the sweep's seed; even i
 * on "cpu:1,gpu:1", odd i on "cpu:1,gpu:2" (HS_GEN_CPU_CORES cores). */
typedef struct hs_gen_sweep hs_gen_sweep;

/* NULL when out of memory. */
hs_gen_sweep *hs_gen_sweep_new(unsigned long seed);
/* Draws the sweep's next workload: its options into *o and its devices
 * (static storage) into *devices, then builds and finalizes it into *out.
 * On an error of the build *o and *devices still say what was drawn (to
 * rebuild it with `hetsched gen random`) and *out is NULL. */
int hs_gen_sweep_next(hs_gen_sweep *sw, hs_gen_random_opts *o, const char **devices,
                      hs_workload **out, hs_error *err);
void hs_gen_sweep_free(hs_gen_sweep *sw);

/* -------------------------------------------------------------- fork-join */

/* `depth` stages of `width` parallel kernels, each stage opened by a fork
 * kernel and closed by a join kernel that opens the next stage: fork0 ->
 * s0_0..s0_{W-1} -> join0 -> s1_0.. -> join1 ...  Tasks: 1 + depth * (width
 * + 1); edges: 2 * depth * width, each carrying `bytes`.  Every kernel costs
 * cost_us on a CPU and cost_us / gpu_speedup on a GPU, spread by beta (as
 * in the random graphs, seeded) when beta > 0.  The fork reads `bytes` from
 * host, the last join writes `bytes` back. */
typedef struct hs_gen_forkjoin_opts {
    const char *name;       /* default "fork-join" */
    int width, depth;       /* >= 1, at most hs_max_tasks() tasks and hs_max_edges()
                               edges; defaults 8 and 2 */
    double cost_us;         /* > 0, default 100 */
    double bytes;           /* >= 0, default 1e6 */
    double beta;            /* 0 <= beta < 2, default 0 */
    double gpu_speedup;     /* > 0, default 4 */
    unsigned long seed;     /* default 1 */
} hs_gen_forkjoin_opts;

void hs_gen_forkjoin_defaults(hs_gen_forkjoin_opts *o);
int hs_gen_forkjoin(hs_workload *w, const hs_gen_forkjoin_opts *o, hs_error *err);

/* ---------------------------------------------------------- tiled Cholesky */

/* Right-looking tiled Cholesky of a T x T matrix of nb x nb single-precision
 * tiles.  For k = 0..T-1: potrf_k factors tile (k,k); trsm_i_k (i > k)
 * solves tile (i,k); syrk_i_k (i > k) updates tile (i,i); gemm_i_j_k
 * (i > j > k) updates tile (i,j).  Each depends on the tasks that last wrote
 * the tiles it reads or updates, so there are T potrf, T(T-1)/2 trsm,
 * T(T-1)/2 syrk and T(T-1)(T-2)/6 gemm tasks.  Every edge carries one tile
 * (nb * nb * 4 bytes); the first task to touch a tile reads it from host and
 * the last to write it (potrf, trsm) writes it back.  Costs: roofline of
 * flops (potrf nb^3/3, trsm nb^3, syrk nb^3, gemm 2 nb^3) and the tiles
 * touched on the rates given, by device kind.  Kernels carry the `type:` of
 * workloads/kernels/ and `params: {n: nb}`; gemm also alpha -1, beta 1 and
 * transb 1 (C -= A B^T). */
typedef struct hs_gen_cholesky_opts {
    const char *name;       /* default "cholesky" */
    int tiles;              /* T >= 1, default 4 */
    int tile_size;          /* 1 <= nb <= HS_GEN_MAX_TILE_SIZE, default 512 */
    int instances;          /* >= 1, default 1; instances x
                               hs_gen_cholesky_tasks(T) <= hs_max_tasks() */
    hs_gen_rates rates;     /* default hs_gen_rates_defaults */
} hs_gen_cholesky_opts;

/* The largest tile the kernel types potrf, trsm and syrk take. */
#define HS_GEN_MAX_TILE_SIZE 32768

void hs_gen_cholesky_defaults(hs_gen_cholesky_opts *o);
/* Tasks of one instance of a T x T tiled Cholesky: T + T(T-1) + T(T-1)(T-2)/6
 * (180 tiles make 988260). */
double hs_gen_cholesky_tasks(int tiles);
int hs_gen_cholesky(hs_workload *w, const hs_gen_cholesky_opts *o, hs_error *err);

/* ------------------------------------------- Zhou & Liu benchmarks (Fig. 4) */

typedef enum hs_gen_size { HS_GEN_SMALL = 0, HS_GEN_MEDIUM = 1, HS_GEN_LARGE = 2 } hs_gen_size;

/* "small", "medium", "large" -> size; HS_EINPUT otherwise. */
int hs_gen_size_parse(const char *s, hs_gen_size *out, hs_error *err);
const char *hs_gen_size_name(hs_gen_size size);

/* The seven benchmarks of Fig. 4 of Zhou & Liu as kernel graphs (their
 * shapes are described in workloads/gen.c): xgemm, cg, cholesky, increment,
 * va, pi, fblock; NULL-terminated. */
const char *const *hs_gen_benchmark_names(void);
/* Adds benchmark `name` at `size` as an application of that name with
 * `instances` instances; kernels carry the `type:` and `params:` of
 * workloads/kernels/ (all but pi's final reduce, which has no type), data sizes
 * follow the problem size (4-byte floats) and costs are the roofline
 * estimate on `rates` (NULL: the defaults).  Unknown name: HS_EINPUT. */
int hs_gen_benchmark(hs_workload *w, const char *name, hs_gen_size size, int instances,
                     const hs_gen_rates *rates, hs_error *err);

/* The three compositions of Sec. 5.2: "compute", "data" or "mixed" (see
 * workloads/gen.c for what each holds). Returns the first application's
 * index. */
int hs_gen_composition(hs_workload *w, const char *name, hs_gen_size size,
                       const hs_gen_rates *rates, hs_error *err);

#ifdef __cplusplus
}
#endif
#endif
