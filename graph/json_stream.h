/* hetsched — internal: reading a JSON document as a stream of events with
 * yajl, for documents too large to hold as a tree (schedules of millions of
 * tasks: graph/schedule_json.c).
 *
 * The text is read in chunks of HS__JSON_CHUNK bytes and handed to yajl,
 * whose events reach the caller's callback one at a time; nothing but the
 * current and the previous chunk is kept, so the reader's memory is what the
 * caller builds from the events.  The same cap as graph/json_read.h's
 * (HETSCHED_JSON_MAX_MIB) applies, with its own default.
 *
 * Every error is one line that names the file and where in it:
 *   NAME:LINE:COL: error: invalid JSON: WHAT   (syntax, yajl's text)
 *   NAME:LINE:COL: error: PATH: WHAT           (an item, from the callback)
 * LINE and COL count from 1, COL in characters (bytes that do not continue
 * a UTF-8 sequence), as graph/json_read.h counts them.  An item is located
 * at the first byte of its value.  A position before the kept chunks is
 * found by reading a regular file again from its start; from a pipe it
 * cannot be, and the message then reads NAME: error: PATH: WHAT.
 */
#ifndef HS_GRAPH_JSON_STREAM_H
#define HS_GRAPH_JSON_STREAM_H

#include <stddef.h>
#include <stdio.h>

#include "hetsched/error.h"

/* A streamed document holds nothing but the caller's records, about half
 * the size of the text for a schedule, so the default cap is larger than
 * that of a document read whole (HS__JSON_MAX_MIB). */
#define HS__JSON_STREAM_MAX_MIB 4096
#define HS__JSON_CHUNK (1u << 20)

enum hs__jtype {
    HS__J_NULL,
    HS__J_BOOL,
    HS__J_NUMBER,    /* text: the number as written (JSON syntax checked) */
    HS__J_STRING,    /* text: decoded, valid UTF-8, may hold NUL bytes */
    HS__J_KEY,       /* the same, for an object's key */
    HS__J_MAP,       /* '{' */
    HS__J_MAP_END,   /* '}' */
    HS__J_ARRAY,     /* '[' */
    HS__J_ARRAY_END, /* ']' */
    HS__J_END,       /* the end of the text (hs__jpull_next only) */
};

typedef struct hs__jevent {
    enum hs__jtype type;
    const char *text; /* NUMBER, STRING, KEY: not NUL-terminated */
    size_t len;
    int boolean;      /* BOOL: 0 or 1 */
} hs__jevent;

typedef struct hs__jstream hs__jstream;

/* The callbacks: `event` for each event in document order, `finish` (may be
 * NULL) once the text is read whole and is valid JSON, `pause` (may be
 * NULL) each time yajl has handed out the events of the text fed to it so
 * far (after each chunk, and at the end), before anything else is
 * reported: a syntax error further on, a file that cannot be read or is
 * over the cap.  A handler that leaves some of its work on the events for
 * later (a batch of look-ups) does it in `pause`, so that its errors come
 * in document order, located while the text they point at is kept.  Each
 * returns HS_OK to go on, or an error code with err filled
 * (hs__jstream_error). */
typedef struct hs__jhandler {
    int (*event)(void *ctx, hs__jstream *js, const hs__jevent *e);
    int (*finish)(void *ctx, hs__jstream *js);
    int (*pause)(void *ctx, hs__jstream *js);
    void *ctx;
} hs__jhandler;

/* Reads `path` ("-": stdin) through h.  HS_EINPUT for a file that cannot be
 * read ("NAME: cannot read: WHY"), one over the cap ("NAME: error: the file
 * is larger than N MiB (...)"), bad syntax, or whatever a callback
 * returns; HS_ENOMEM. */
int hs__jstream_read_file(const char *path, const hs__jhandler *h, hs_error *err);
/* The same for `len` bytes at `data`, named `name` in messages. */
int hs__jstream_read_buffer(const char *name, const char *data, size_t len,
                            const hs__jhandler *h, hs_error *err);

/* Byte offset in the text of the first byte of the event's token (the
 * opening quote of a string), for hs__jstream_error; valid only inside the
 * callback of that event. */
long long hs__jstream_offset(const hs__jstream *js, const hs__jevent *e);

/* hs__jstream_offset in two halves, for a reader that locates an event
 * only when it turns out to be wrong: hs__jstream_end(js) in the event's
 * callback (cheap), hs__jstream_start(js, e, end) later, until the
 * handler's `pause` returns (e: the event's type and length; its text is
 * not read). */
long long hs__jstream_end(const hs__jstream *js);
long long hs__jstream_start(const hs__jstream *js, const hs__jevent *e, long long end);

/* Fills err with HS_EINPUT and "NAME:LINE:COL: error: PATH: WHAT" for the
 * byte at `offset` (-1 or a place not found: "NAME: error: PATH: WHAT";
 * PATH "" leaves out "PATH: ").  err->path keeps PATH.  Returns HS_EINPUT. */
int hs__jstream_error(hs__jstream *js, long long offset, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The error the callbacks fill (for HS_ENOMEM and the like). */
hs_error *hs__jstream_err(hs__jstream *js);


/* ------------------------------------------------------------ pulling
 * The same events one at a time, for a reader that asks for the next one
 * (graph/load.c's one pass over a workload).  The text is handed to yajl a
 * slice at a time (HS__JPULL_SLICE bytes); the events of one slice are
 * queued and handed out before the next slice is read, so that the slice an
 * event came from is still kept when an error about it is located.  The
 * caller checks the size cap. */
#define HS__JPULL_SLICE (64u << 10)

typedef struct hs__jpull hs__jpull;

/* Reads `len` bytes at `data` (`f` NULL), or the open file `f` (a regular
 * file is read again to locate an error far behind), named `name` in
 * messages.  HS_ENOMEM with err filled. */
int hs__jpull_open(hs__jpull **out, const char *name, const char *data, size_t len, FILE *f,
                   hs_error *err);
/* The next event into *e (its text, NUL-terminated, valid until the next
 * call); after the document, HS__J_END.  A syntax error or a file that
 * cannot be read is HS_EINPUT with err filled, once the events before it
 * are handed out; HS_ENOMEM. */
int hs__jpull_next(hs__jpull *p, hs__jevent *e, hs_error *err);
/* The line and column (from 1) of the first byte of the event handed out
 * last (HS__J_END: the end of the text; none yet: the first byte): 1, or 0
 * where it cannot be found (see above). */
int hs__jpull_where(hs__jpull *p, long *line, long *col);
void hs__jpull_close(hs__jpull *p);

#endif
