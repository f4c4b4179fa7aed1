/* hetsched — running a workload for real (public API): what `hetsched run`
 * does, for a program of its own.
 *
 * hs_run executes every task of a finalized workload with one policy on a
 * real backend (DESIGN.md §6): `cpu` (one worker thread per device, all on
 * host memory; cpu devices only), `emu` (each memory a separate memory
 * space, inputs really copied to it) or `cuda` (the k-th gpu device is CUDA
 * device k).  Typed kernels run on real buffers and are checked against
 * their reference after the run; cost-only kernels sleep their cost.  It
 * gives the measured schedule (model "measured": placements span kernels,
 * transfers are the copies the run made) beside the schedule the same
 * policy gets in the simulator, and what the run did (checks, copies per
 * link, buffers).
 *
 * Messages name the options by the command line's names (--split,
 * --devices, ...): each field below says which it is.
 */
#ifndef HETSCHED_RUN_H
#define HETSCHED_RUN_H

#include <stddef.h>

#include "hetsched/error.h"
#include "hetsched/graph.h"
#include "hetsched/mapper.h"
#include "hetsched/schedule.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which typed kernels a run checks against their reference (hs_kcheck).
 * Checks never run on a worker's path: what a check needs (the inputs as
 * the kernel read them, its result) is held until the run has ended and
 * checked then, on every processor, outside the measured makespan. */
typedef enum hs_check_mode {
    HS_CHECK_SAMPLE = 0, /* the first kernel of each type and params on each
                            memory: every kernel configuration the run used,
                            checked once where it ran */
    HS_CHECK_FULL,       /* every typed kernel; beyond the check budget, a
                            checker thread checks the oldest held ones during
                            the run */
    HS_CHECK_NONE,       /* none */
} hs_check_mode;

/* The simulator's model for the predicted schedule (--predict). */
typedef enum hs_run_predict {
    HS_PREDICT_EXECUTOR = 0, /* the executor's model with the backend's depths
                                (hs_map_options.executor_depth) */
    HS_PREDICT_DELAY = 1,    /* the delay model of hs_map and the MILP */
} hs_run_predict;

/* Zero-initialise: every field left 0 or NULL is the default. */
typedef struct hs_run_options {
    const char *backend;       /* --backend: "cpu", "emu" or "cuda"; NULL: the
                                  default, hs_run_default_backend */
    const char *devices;       /* --devices: comma-separated device names to run
                                  on (hs_workload_select_devices); NULL: all */
    size_t device_memory;      /* --device-memory: bytes of each memory but host
                                  under emu and cuda; 0: emu unlimited, cuda
                                  the GPU's free memory - 512 MiB */
    hs_check_mode check;       /* --check */
    unsigned long seed;        /* --seed: of random and of best's local search;
                                  refused (not 0) for a policy without
                                  HS_POLICY_TAKES_SEED */
    int thr;                   /* --thr: dispatch threshold of h-ratio, d-rank,
                                  ad-part and best; 0: the policy's; refused
                                  for a policy without HS_POLICY_TAKES_THR */
    const struct hs_perfmodel *perfmodel; /* --model: costs of typed kernels
                                  (the workload's cost provider must be set
                                  from it too); NULL: none */
    const char *split;         /* --split: a chunk splitter's name (`hetsched
                                  split -p help`) that splits every splittable
                                  kernel; NULL: none */
    int split_planned;         /* --split-mode planned: fractions fixed before
                                  the run; 0: live, sized from measured chunks */
    const char *const *split_options; /* --split-option: "KEY=VALUE" strings,
                                  NULL-terminated; NULL: none */
    const char *fail_device;   /* --fail: this device fails when it is about to */
    size_t fail_after;         /* run its fail_after-th task (>= 1) */
    const char *throttle_device; /* --throttle: this cpu device runs each kernel */
    double throttle;           /* `throttle` times slower (> 1, <= 1e6) */
    hs_run_predict predict;    /* --predict */
    const char *schedule;      /* --schedule: the file of a schedule to run
                                  instead of a policy's (policy NULL), read
                                  once the devices are chosen
                                  (hs_schedule_read_given); NULL: none */
} hs_run_options;

/* Kernel times of a run against the model that predicted them: one row per
 * kernel type (untyped kernels: "cost-only") and device. */
typedef struct hs_run_kernel_row {
    char kernel[32];           /* the type's name, or "cost-only" */
    int device;
    size_t tasks;              /* placements (a chunk counts as one) */
    double measured_us;        /* the sum of their measured spans */
    double model_us;           /* the sum of their kernels' predicted costs
                                  (hs_task_kernel_us, times the fraction) */
} hs_run_kernel_row;

/* What a run gave.  hs_run fills it; free with hs_run_result_free. */
typedef struct hs_run_result {
    const char *backend;       /* the backend that ran ("cpu", "emu", "cuda") */
    hs_schedule *schedule;     /* the measured schedule (passes
                                  hs_schedule_validate for model "measured") */
    hs_schedule *predicted;    /* the same policy in the simulator */
    hs_map_stats stats;        /* events, failed devices, splits at run time */
    size_t typed, checked;     /* typed tasks run; those whose check passed */
    size_t untyped;            /* cost-only tasks, run by sleeping cost_us */
    double check_us;           /* time the checks took after the run */
    double setup_us;           /* before the run's clock: the backend's memories
                                  and contexts, inputs, buffers, warm-up */
    double inputs_us, buffers_us, warmup_us; /* of it: making the typed tasks'
                                  inputs, the buffers made ahead, running each
                                  kernel configuration once */
    double teardown_us;        /* after the run (and its checks): the backend's
                                  end, its buffers freed */
    int threads;               /* threads that compute or drive during the run:
                                  each cpu device's kernel threads, a worker
                                  per GPU and the engine's */
    int processors;            /* online processors: more threads than these
                                  slow the kernels down */
    int nmemories;             /* the platform's memories */
    double *link_bytes;        /* [from * nmemories + to]: bytes copied */
    double *link_us;           /* time spent copying on that link, µs */
    size_t *link_copies;       /* number of copies */
    size_t prefetched;         /* input copies started ahead of their task */
    size_t evictions, writebacks; /* replicas evicted; of those, copied to host */
    size_t pool_hits, pool_misses, pool_reserved; /* buffers: reused, made
                                  during the run, made ahead */
    hs_run_kernel_row *kernels; /* [nkernels], by device then kernel */
    size_t nkernels;
    int ndevices;              /* the devices run on (the workload's, after
                                  --devices) */
    double *overhead_us;       /* [ndevices]: each device's per-task overhead
                                  as measured (the mean time from when a task
                                  could start, the device free and its inputs
                                  there, to its start), to set beside the
                                  platform's overhead_us */
    size_t noutputs;           /* the run's outputs (typed tasks without
                                  successors, exec/data.h), */
    double output_bytes;       /* their bytes */
    unsigned long long outputs_digest; /* FNV-1a (64 bits) over each output's
                                  task index, size and bytes in task order:
                                  equal digests, byte-exact outputs */
    int ranks;                 /* MPI processes that ran it (1: this one alone) */
    size_t messages;           /* a distributed run's messages between ranks */
    double message_bytes;      /* and their payload bytes */
    hs_device_stats *devices;  /* [ndevices]: each device's busy time, tasks and
                                  time idle while it held work, measured */
    hs_device_stats *predicted_devices; /* [ndevices]: the same in the prediction
                                  (idle while holding work: under the executor's
                                  model only, the copies the schedule waits for) */
} hs_run_result;

/* Checks what hs_run would refuse before it touches a workload: the policy
 * name (NULL with a schedule, and only then), the backend name, the split
 * options and their combinations (the split mode without a splitter, a
 * device failure under a split at run time, a wavefront, a policy that
 * splits kernels itself, a split with a schedule), a seed or a threshold
 * for a policy that has none (or with a schedule).  HS_EUSAGE or HS_EINPUT
 * with the message hs_run would give. */
int hs_run_check(const char *policy, const hs_run_options *opt, hs_error *err);

/* The backend hs_run uses when none is named: cpu when every device of w
 * is a cpu, else cuda when CUDA finds a GPU, else emu. */
const char *hs_run_default_backend(const hs_workload *w);

/* How many started tasks each device of w's platform holds in a run, on
 * any real backend (a GPU of emu or cuda more than a CPU; the environment's
 * HETSCHED_DEPTH, when set, for every device) into depth[0 .. ndevices):
 * what hs_map_options.executor_depth wants to predict a run without
 * running it (`map --predict executor`).  HS_EINPUT for a bad
 * HETSCHED_DEPTH. */
int hs_run_executor_depths(const hs_workload *w, int *depth, hs_error *err);

/* Keeps only the devices of `list` (comma-separated names, each once) in
 * w's platform and builds its graph again: costs resolve for the devices
 * left, and a cost given for a device left out is dropped.  Memories and
 * links stay as declared.  HS_EINPUT for an unknown or repeated name (w is
 * then unchanged). */
int hs_workload_select_devices(hs_workload *w, const char *list, hs_error *err);

/* Runs the finalized workload w with the named policy, or with policy NULL
 * the schedule of opt->schedule (each task on its device there, each
 * device's tasks in their order there: hs_map_options.schedule), on a real
 * backend (opt may be NULL: every default).  With opt->devices, w keeps
 * only those devices first (hs_workload_select_devices), and the schedules
 * refer to that platform.  On HS_OK *res holds the measured and the
 * predicted schedules and the counters; on an error *res is empty.
 * Errors: those of hs_run_check, HS_EINPUT for a device that is not there
 * or a schedule that is not of w (located: hs_schedule_read_given),
 * HS_ENOTBUILT for cuda without CUDA, HS_ECHECK when a kernel's result
 * fails its check. */
int hs_run(hs_workload *w, const char *policy, const hs_run_options *opt, hs_run_result *res,
           hs_error *err);
void hs_run_result_free(hs_run_result *res);

/* Runs across the nodes of a cluster platform (the mpi feature, Open MPI;
 * DESIGN.md, "Running across nodes"): started by `mpirun -np N`, each of
 * the N processes calls hs_mpi_init, then hs_run on the same workload with
 * the same options, then hs_mpi_finalize.  Process (rank) k owns node k's
 * devices and runs the tasks mapped to them; every rank maps the workload
 * with the policy in the simulator, the ranks check that they agree (a
 * hash of the mapping), and each runs its node's part of that mapping as
 * `--schedule` would; results cross nodes as MPI messages.  Rank 0's
 * *res holds what a one-process run gives, measured on every rank; the
 * others' hold their own part only.
 *
 * hs_mpi_init starts MPI when the process was started by mpirun (Open MPI's
 * environment says so) and does nothing otherwise: hs_mpi_size is then 1.
 * HS_ENOTBUILT when mpirun started it but MPI is not built in; HS_EIO when
 * MPI fails to start or gives less than MPI_THREAD_SERIALIZED. */
int hs_mpi_init(hs_error *err);
int hs_mpi_rank(void);
int hs_mpi_size(void);
/* 1 once the ranks of a distributed hs_run agreed on the mapping: an error
 * after that is this rank's alone, and the others wait for it (end the
 * job with hs_mpi_abort); an error before is every rank's. */
int hs_mpi_started(void);
/* Ends MPI (nothing without it). */
void hs_mpi_finalize(void);
/* Ends every rank of the job with `status` (MPI_Abort). */
void hs_mpi_abort(int status);

#ifdef __cplusplus
}
#endif
#endif
