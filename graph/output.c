/* hetsched — writing output files (hetsched/output.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hetsched/output.h"

static const char *shown(const hs_output *o)
{
    return strcmp(o->path, "-") == 0 ? "standard output" : o->path;
}

int hs_output_error(const hs_output *o, hs_error *err)
{
    return hs_error_set(err, HS_EIO, "cannot write %s: %s", shown(o),
                        errno ? strerror(errno) : "write error");
}

/* Creates a new file beside `target` (".NAME.PID.N.tmp" in its directory)
 * with permission bits `mode` (before the umask); its name into *tmp. */
static int create_beside(const char *target, mode_t mode, char **tmp)
{
    static unsigned counter;
    const char *slash = strrchr(target, '/');
    size_t dir = slash ? (size_t)(slash - target) + 1 : 0, size = strlen(target) + 64;
    if (!(*tmp = malloc(size)))
        return -1;
    for (int attempt = 0; attempt < 100; attempt++) {
        int fd;
        snprintf(*tmp, size, "%.*s.%s.%ld.%u.tmp", (int)dir, target, target + dir, (long)getpid(),
                 counter++);
        if ((fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)) >= 0)
            return fd;
        if (errno != EEXIST)
            break;
    }
    free(*tmp);
    *tmp = NULL;
    return -1;
}

int hs_output_open(hs_output *o, const char *path, hs_error *err)
{
    struct stat st, lst;
    int fd = -1, exists, e;
    *o = (hs_output){.path = path};
    if (strcmp(path, "-") == 0) {
        o->f = stdout;
        return HS_OK;
    }
    if (!path[0]) {
        errno = ENOENT;
        return hs_output_error(o, err);
    }
    errno = 0;
    exists = stat(path, &st) == 0;
    if ((exists && !S_ISREG(st.st_mode)) ||
        (!exists && errno == ENOENT && lstat(path, &lst) == 0)) {
        /* a device, a FIFO, ... or a dangling symbolic link: written as it is */
        if (!(o->f = fopen(path, "w")))
            return hs_output_error(o, err);
        return HS_OK;
    }
    /* a file the user may not write stays so, though its directory would
     * let a rename replace it */
    if (exists && access(path, W_OK) != 0)
        return hs_output_error(o, err);
    if (exists && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))
        o->target = realpath(path, NULL);
    else
        o->target = strdup(path);
    if (o->target)
        fd = create_beside(o->target, exists ? st.st_mode & 07777 : 0666, &o->tmp);
    if (fd >= 0 && exists) /* the umask may have dropped some; best effort */
        (void)!fchmod(fd, st.st_mode & 07777);
    if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
        e = errno;
        if (fd >= 0) {
            close(fd);
            unlink(o->tmp);
        }
        free(o->tmp);
        free(o->target);
        *o = (hs_output){.path = path};
        errno = e;
        return hs_output_error(o, err);
    }
    return HS_OK;
}

int hs_output_close(hs_output *o, int rc, hs_error *err)
{
    int failed;
    if (!o->f)
        return rc;
    errno = 0;
    failed = fflush(o->f) != 0 || ferror(o->f);
    if (o->f != stdout || o->tmp)
        failed |= fclose(o->f) != 0;
    if (rc == HS_OK && failed)
        rc = hs_output_error(o, err);
    if (rc == HS_OK && o->tmp && rename(o->tmp, o->target) != 0)
        rc = hs_output_error(o, err);
    if (rc != HS_OK && o->tmp)
        unlink(o->tmp); /* ours: the target is left as it was */
    free(o->tmp);
    free(o->target);
    *o = (hs_output){.path = o->path};
    return rc;
}
