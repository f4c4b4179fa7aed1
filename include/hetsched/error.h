/* hetsched — one error type for the whole library.
 *
 * Every fallible function returns 0 on success or a negative HS_E* code, and
 * when given a non-NULL `hs_error *` fills it with the code and one line of
 * text that says what went wrong and where (FILE:LINE:COL or an item path).
 * A function that fails leaves its outputs untouched or freed: never half
 * built.  The command line maps HS_EINPUT and HS_EUSAGE to exit status 2 and
 * every other error to 1 (see hs_error_exit_status).
 */
#ifndef HETSCHED_ERROR_H
#define HETSCHED_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

/* X(name, value, description): the enum, the names and the messages come
 * from this one table, as libuv's UV_ERRNO_MAP does. */
#define HS_ERROR_MAP(X)                                                    \
    X(EINPUT, -1, "bad input")                                             \
    X(EUSAGE, -2, "bad usage")                                             \
    X(ENOMEM, -3, "out of memory")                                         \
    X(EIO, -4, "input/output error")                                       \
    X(EINVALID, -5, "schedule violates the model")                         \
    X(ENOTBUILT, -6, "feature not built in")                               \
    X(ESOLVER, -7, "solver failure")                                       \
    X(EINTERNAL, -8, "internal error")                                     \
    X(ECHECK, -9, "kernel result check failed")

typedef enum hs_errcode {
    HS_OK = 0,
#define HS__ERRCODE(name, value, text) HS_##name = value,
    HS_ERROR_MAP(HS__ERRCODE)
#undef HS__ERRCODE
} hs_errcode;

#define HS_ERROR_MSG_MAX 1024

typedef struct hs_error {
    int code;                       /* HS_OK or an HS_E* value */
    char msg[HS_ERROR_MSG_MAX];     /* one line, no trailing newline */
    char path[256];                 /* item path of a semantic error, e.g.
                                       "applications[1].edges[0].to", or "" */
} hs_error;

/* Name ("EINPUT") and description ("bad input") of a code. */
const char *hs_strerror_name(int code);
const char *hs_strerror(int code);

/* Fills `err` (when non-NULL) with `code` and a printf-style message and
 * returns `code`, so callers can write `return hs_error_set(err, ...)`. */
int hs_error_set(hs_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The same for a semantic error about the item at `path`: the message reads
 * "PATH: TEXT" and err->path keeps PATH. */
int hs_error_at(hs_error *err, int code, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Exit status for the command line: 0 for HS_OK, 2 for bad input or usage,
 * 1 otherwise. */
int hs_error_exit_status(int code);

#ifdef __cplusplus
}
#endif
#endif
