/* hetsched — the MILP's model written as a CPLEX LP file (hetsched optimal
 * --write-lp), through hetsched/output.h like every other output.
 *
 * GLPK writes only by file name, and drops the error of its last flush (a
 * full disk goes unnoticed, the file cut short).  So it writes into an
 * anonymous file in memory, where writing cannot run out of disk, and the
 * bytes are copied from there to the output, every write checked. */
#define _GNU_SOURCE /* memfd_create */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hetsched/output.h"
#include "milp/milp_int.h"

int hs__milp_write_lp(glp_prob *lp, const char *path, hs_error *err)
{
    char name[64], buf[65536];
    ssize_t n;
    hs_output o;
    int fd = memfd_create("hetsched-lp", MFD_CLOEXEC), rc;
    if (fd < 0)
        return hs_error_set(err, HS_EIO, "cannot write %s: %s", path, strerror(errno));
    snprintf(name, sizeof name, "/proc/self/fd/%d", fd);
    if (glp_write_lp(lp, NULL, name) != 0 || lseek(fd, 0, SEEK_SET) != 0) {
        close(fd);
        return hs_error_set(err, HS_EIO, "cannot write %s: GLPK could not write the model",
                            path);
    }
    if ((rc = hs_output_open(&o, path, err)) == HS_OK) {
        while ((n = read(fd, buf, sizeof buf)) > 0 && fwrite(buf, 1, (size_t)n, o.f) == (size_t)n)
            ;
        rc = hs_output_close(&o, n == 0 ? HS_OK : hs_output_error(&o, err), err);
    }
    close(fd);
    return rc;
}
