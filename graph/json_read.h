/* hetsched — internal: reading JSON documents with jansson, shared by the
 * performance model's reader (mapper/perfmodel.c) and the WfFormat reader
 * (graph/read_wfformat.c); schedules, which can be far larger, are streamed
 * (graph/json_stream.h), under the same cap variable.
 *
 * A document is read whole, up to a size cap, and parsed with duplicate keys
 * refused.  Every error is one line that names the file and where in it:
 *   NAME:LINE:COL: error: WHAT          (syntax, jansson's text)
 *   NAME:LINE:COL: error: PATH: WHAT    (an item, by its JSON path)
 * LINE and COL count from 1, COL in characters as jansson counts them.  PATH
 * reads like `tasks[3].device`; the item is found again in the text to give
 * its position (when it cannot be, the message reads NAME: error: PATH: WHAT).
 * hs_error_set keeps every message printable (no control character, no
 * invalid UTF-8 reaches a terminal).
 */
#ifndef HS_GRAPH_JSON_READ_H
#define HS_GRAPH_JSON_READ_H

#include <stddef.h>

#include <jansson.h>

#include "hetsched/error.h"

/* JSON inputs (schedules, performance models) are refused beyond this size,
 * in MiB, unless the environment variable HETSCHED_JSON_MAX_MIB (a whole
 * number from 1 to 1048576) says otherwise: jansson holds a document in
 * about ten times its size. */
#define HS__JSON_MAX_MIB 256
#define HS__JSON_MAX_ENV "HETSCHED_JSON_MAX_MIB"

typedef struct hs__json_doc {
    const char *name; /* for messages: the path, "<stdin>" for "-" */
    char *data;       /* the text (owned when read from a file) */
    size_t len;
    int owned;
    json_t *root;
} hs__json_doc;

/* Reads `path` ("-": stdin) whole and parses it.  HS_EINPUT for a file that
 * cannot be read ("NAME: cannot read: WHY"), one over the cap ("NAME: error:
 * the file is larger than N MiB (HETSCHED_JSON_MAX_MIB ...)"), a bad
 * HETSCHED_JSON_MAX_MIB, or bad syntax; HS_ENOMEM.  On failure nothing is
 * left to free. */
int hs__json_read_file(const char *path, hs__json_doc *doc, hs_error *err);
/* The same for `len` bytes at `data`, named `name` in messages; data is not
 * copied and must outlive the document.  The cap applies too. */
int hs__json_read_buffer(const char *name, const char *data, size_t len, hs__json_doc *doc,
                         hs_error *err);
void hs__json_doc_free(hs__json_doc *doc);

/* The cap in bytes (HS__JSON_MAX_MIB or HETSCHED_JSON_MAX_MIB), or 0 with err
 * filled when the variable is not a whole number from 1 to 1048576. */
size_t hs__json_max_bytes(hs_error *err);
/* The same with another default, in MiB (graph/json_stream.h's). */
size_t hs__json_max_bytes_or(unsigned long long default_mib, hs_error *err);
/* Fills err with HS_EINPUT and "NAME: error: the file is larger than N MiB
 * (...)" for a file over `max` bytes; returns HS_EINPUT. */
int hs__json_too_big(const char *name, size_t max, hs_error *err);

/* The line and column (from 1, as hs__json_error counts them) of the item
 * at `path`: 1, or 0 when the text holds no such item. */
int hs__json_position(const hs__json_doc *doc, const char *path, int *line, int *col);

/* Fills err with HS_EINPUT and "NAME:LINE:COL: error: PATH: WHAT" for the
 * item at `path` ("" for the top level: "NAME:1:1: error: WHAT"); returns
 * HS_EINPUT.  err->path keeps PATH. */
int hs__json_error(const hs__json_doc *doc, hs_error *err, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* ------------------------------------------------ checked getters
 * Each takes the document and err for messages, the object `obj` at `path`
 * and one of its keys; on a value of the wrong type or range it returns
 * HS_EINPUT through hs__json_error ("PATH.KEY: must be ..."). */

/* "an object", "a string", "a number", ... for messages. */
const char *hs__json_type_name(const json_t *v);

/* `v` at `path` is an object whose keys are among `keys` (NULL-ended), and
 * holds them all but those marked optional by a leading '?' ("?params");
 * `what` names it in messages ("a task", "the top level"). */
int hs__json_keys(const hs__json_doc *doc, hs_error *err, const json_t *v, const char *path,
                  const char *const *keys, const char *what);

enum hs__json_range {
    HS__JSON_FINITE,   /* any finite number */
    HS__JSON_NONNEG,   /* finite, >= 0 */
    HS__JSON_POSITIVE, /* finite, > 0 */
    HS__JSON_FRACTION, /* in (0, 1] */
};
int hs__json_number(const hs__json_doc *doc, hs_error *err, const json_t *obj, const char *key,
                    const char *path, enum hs__json_range range, double *out);
/* A whole number (JSON integer) in [min, max]. */
int hs__json_whole(const hs__json_doc *doc, hs_error *err, const json_t *obj, const char *key,
                   const char *path, long long min, long long max, long long *out);
/* A string, or NULL for JSON null when `nullable`. */
int hs__json_string(const hs__json_doc *doc, hs_error *err, const json_t *obj, const char *key,
                    const char *path, int nullable, const char **out);
/* An array at obj.key. */
int hs__json_array(const hs__json_doc *doc, hs_error *err, const json_t *obj, const char *key,
                   const char *path, const json_t **out);

#endif
