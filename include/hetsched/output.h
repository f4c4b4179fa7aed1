/* hetsched — output files (public API): the one way every output file is
 * written (schedules, DOT, traces, pictures, performance models, platforms,
 * generated workloads, chunk logs, LP models, a program's own reports), so
 * that a failed write never leaves a broken file behind, nor removes one
 * the program did not create.
 *
 *   "-"               standard output: flushed and checked, never closed;
 *   a regular file, or a name that does not exist yet: written to a
 *                     temporary file beside it (the same directory, so that
 *                     the rename is atomic), renamed over it on success and
 *                     removed on failure; a file replaced keeps its
 *                     permission bits (one the user may not write is
 *                     refused), a new one gets 0666 less the umask;
 *                     a symbolic link keeps pointing at the file replaced;
 *   anything else     (a device such as /dev/full or /dev/null, a FIFO,
 *                     /dev/stdout): written directly, never replaced or
 *                     removed.
 * Every write, the flush and the close are checked: a failure is HS_EIO with
 * one line "cannot write PATH: WHY" ("standard output" for "-").
 */
#ifndef HETSCHED_OUTPUT_H
#define HETSCHED_OUTPUT_H

#include <stdio.h>

#include "hetsched/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hs_output {
    FILE *f;            /* write here */
    const char *path;   /* as given, for messages */
    char *tmp;          /* the temporary file, or NULL when writing directly */
    char *target;       /* the file tmp replaces */
} hs_output;

/* Opens `path` for writing as above.  HS_EIO ("cannot write PATH: WHY") when
 * it cannot be opened; then nothing is left to close. */
int hs_output_open(hs_output *o, const char *path, hs_error *err);

/* Ends the output.  `rc` is the writer's result: HS_OK puts the file in
 * place (flush, close, rename) and returns HS_OK or HS_EIO; anything else
 * throws the temporary file away and returns rc (err as the writer left
 * it). */
int hs_output_close(hs_output *o, int rc, hs_error *err);

/* hs_output_close's message for the writer's own write failures:
 * HS_EIO "cannot write PATH: WHY" with errno's WHY (or "write error"). */
int hs_output_error(const hs_output *o, hs_error *err);

#ifdef __cplusplus
}
#endif
#endif
