/* hetsched — a run across the nodes of a cluster platform, one MPI process
 * (rank) per node (exec/mpi.c with Open MPI, exec/mpi_none.c without):
 * what hs_run (exec/run.c) asks of MPI.  DESIGN.md, "Running across nodes".
 */
#ifndef HS_EXEC_MPI_H
#define HS_EXEC_MPI_H

#include <stdint.h>

#include "exec/data.h"
#include "exec/remote.h"
#include "hetsched/graph.h"
#include "hetsched/schedule.h"

/* 1 when hs_mpi_init started MPI: hs_run then runs node k on rank k. */
int hs__mpi_active(void);

/* Every rank: refuses (HS_EUSAGE) a platform whose nodes are not one per
 * rank, and a mapping of `policy` that splits kernels into parts on any
 * rank; then makes `mapping` rank 0's on every rank: rank 0 broadcasts its
 * placements (task, device, start, end) and the others take them, so that
 * a policy whose mapping depends on time (best's budget) still runs one
 * mapping everywhere.  Collective. */
int hs__mpi_agree(const hs_workload *w, hs_schedule *mapping, const char *policy,
                  hs_error *err);

/* The hook of exec/remote.h for running `mapping` (whole tasks of w's
 * graph) on this rank's node; message passing starts with its start op. */
int hs__mpi_remote_new(const hs_workload *w, const hs_schedule *mapping, hs__remote **out,
                       hs_error *err);
/* After the run on this rank: stops message passing, once every message it
 * sent was received when `drain` (the run succeeded here), else at once
 * (the job is about to end: hs_mpi_abort).  HS_EIO when it failed. */
int hs__mpi_remote_end(hs__remote *r, int drain, hs_error *err);
void hs__mpi_remote_free(hs__remote *r);

/* FNV-1a, 64 bits: HS__FNV_BASIS, then hs__fnv over each piece in turn
 * (the mapping's hash, the outputs' digest). */
#define HS__FNV_BASIS 0xcbf29ce484222325ULL
static inline uint64_t hs__fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

/* An output of the run, by its hash (the digest of hs_run_result). */
typedef struct hs__output_sum {
    size_t task;
    size_t bytes;
    unsigned long long hash;
} hs__output_sum;

/* Collective, after hs__mpi_remote_end: rank 0 gets every rank's measured
 * times of its own tasks into s (a placement per whole task), their copies
 * and events, counters and outputs (*sums, sorted by task, *nsums) added to
 * its report; the others keep theirs.  *messages and *message_bytes: the
 * messages between ranks, all ranks'. */
int hs__mpi_gather(const hs_workload *w, hs__remote *r, hs_schedule *s, hs_run_report *report,
                   hs__output_sum **sums, size_t *nsums, size_t *messages,
                   double *message_bytes, hs_error *err);

#endif
