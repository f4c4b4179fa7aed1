/* hetsched — without MPI (the mpi feature off): a process is the whole run;
 * one that mpirun started among several is refused (exec/mpi.h). */
#include <stdlib.h>

#include "exec/mpi.h"
#include "hetsched/run.h"

int hs_mpi_init(hs_error *err)
{
    const char *n = getenv("OMPI_COMM_WORLD_SIZE");
    if (n && atoi(n) > 1)
        return hs_error_set(err, HS_ENOTBUILT, "mpirun started %s processes, but hetsched was "
                            "built without MPI (install Open MPI and build with -Dmpi=enabled)",
                            n);
    return HS_OK;
}

int hs_mpi_rank(void)
{
    return 0;
}

int hs_mpi_size(void)
{
    return 1;
}

int hs_mpi_started(void)
{
    return 0;
}

void hs_mpi_finalize(void)
{
}

void hs_mpi_abort(int status)
{
    exit(status);
}

int hs__mpi_active(void)
{
    return 0;
}

int hs__mpi_agree(const hs_workload *w, hs_schedule *mapping, const char *policy,
                  hs_error *err)
{
    (void)w;
    (void)mapping;
    (void)policy;
    return hs_error_set(err, HS_ENOTBUILT, "built without MPI");
}

int hs__mpi_remote_new(const hs_workload *w, const hs_schedule *mapping, hs__remote **out,
                       hs_error *err)
{
    (void)w;
    (void)mapping;
    *out = NULL;
    return hs_error_set(err, HS_ENOTBUILT, "built without MPI");
}

int hs__mpi_remote_end(hs__remote *r, int drain, hs_error *err)
{
    (void)r;
    (void)drain;
    (void)err;
    return HS_OK;
}

void hs__mpi_remote_free(hs__remote *r)
{
    (void)r;
}

int hs__mpi_gather(const hs_workload *w, hs__remote *r, hs_schedule *s, hs_run_report *report,
                   hs__output_sum **sums, size_t *nsums, size_t *messages,
                   double *message_bytes, hs_error *err)
{
    (void)w;
    (void)r;
    (void)s;
    (void)report;
    (void)sums;
    (void)nsums;
    (void)messages;
    (void)message_bytes;
    return hs_error_set(err, HS_ENOTBUILT, "built without MPI");
}
