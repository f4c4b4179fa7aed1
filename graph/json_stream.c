/* hetsched — reading a JSON document as a stream of events with yajl
 * (graph/json_stream.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <yajl/yajl_parse.h>

#include "graph/json_read.h"
#include "graph/json_stream.h"

/* A piece of the text, with the line and column of its first byte. */
typedef struct chunk {
    const unsigned char *data;
    size_t len;
    long long at; /* offset of data[0] in the text */
    long line, col;
} chunk;

struct hs__jstream {
    const char *name;
    hs_error *err;
    const hs__jhandler *h;
    yajl_handle yajl;
    FILE *f;         /* a regular file, read again to find old positions; else NULL */
    const unsigned char *whole; /* or the whole text, when it is held (whole_len bytes) */
    size_t whole_len;
    chunk cur, prev; /* the chunk yajl reads and the one before (prev.data NULL: none) */
    long long total; /* bytes handed to yajl */
    int finishing;   /* in yajl_complete_parse, whose offsets are of a buffer of its own */
    int rc;          /* what the callback that stopped yajl returned */
};

/* ------------------------------------------------------------ positions */

/* Line and column after `n` bytes of `data`, from *line, *col. */
static void advance(const unsigned char *data, size_t n, long *line, long *col)
{
    const unsigned char *end = data + n, *p = data, *nl;
    while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
        ++*line;
        *col = 1;
        p = nl + 1;
    }
    for (; p < end; p++)
        *col += (*p & 0xc0) != 0x80;
}

/* Finds the line and column of byte `offset` by reading the file again
 * from its start; 0 when it cannot. */
static int reread(hs__jstream *js, long long offset, long *line, long *col)
{
    unsigned char buf[65536];
    long long at = 0;
    if (!js->f || fseeko(js->f, 0, SEEK_SET) != 0)
        return 0;
    *line = *col = 1;
    while (at < offset) {
        size_t want = offset - at < (long long)sizeof buf ? (size_t)(offset - at) : sizeof buf;
        size_t n = fread(buf, 1, want, js->f);
        if (n == 0)
            return 0;
        advance(buf, n, line, col);
        at += (long long)n;
    }
    return 1;
}

static int position(hs__jstream *js, long long offset, long *line, long *col)
{
    const chunk *in[] = {&js->cur, &js->prev};
    if (offset < 0)
        return 0;
    for (int i = 0; i < 2; i++) {
        const chunk *c = in[i];
        if (c->data && offset >= c->at && offset <= c->at + (long long)c->len) {
            *line = c->line;
            *col = c->col;
            advance(c->data, (size_t)(offset - c->at), line, col);
            return 1;
        }
    }
    if (js->whole && offset <= (long long)js->whole_len) {
        *line = *col = 1;
        advance(js->whole, (size_t)offset, line, col);
        return 1;
    }
    return reread(js, offset, line, col);
}

/* The byte at `offset` if a kept chunk holds it, else -1. */
static int byte_at(const hs__jstream *js, long long offset)
{
    const chunk *in[] = {&js->cur, &js->prev};
    for (int i = 0; i < 2; i++)
        if (in[i]->data && offset >= in[i]->at && offset < in[i]->at + (long long)in[i]->len)
            return in[i]->data[offset - in[i]->at];
    return -1;
}

/* Offset just past the token yajl read last. */
static long long token_end(const hs__jstream *js)
{
    return js->finishing ? js->total : js->cur.at + (long long)yajl_get_bytes_consumed(js->yajl);
}

/* Offset of the first byte of event e's token, which ends before `end`. */
static long long token_start(const hs__jstream *js, const hs__jevent *e, long long end)
{
    switch (e->type) {
    case HS__J_NULL: return end - 4;
    case HS__J_BOOL: return end - (e->boolean ? 4 : 5);
    case HS__J_NUMBER: return end - (long long)e->len;
    case HS__J_STRING:
    case HS__J_KEY:
        /* back from the closing quote to the first quote that no odd run
         * of backslashes escapes (the text is valid JSON: yajl read it) */
        for (long long i = end - 2; byte_at(js, i) >= 0; i--) {
            long long j = i - 1;
            if (byte_at(js, i) != '"')
                continue;
            while (byte_at(js, j) == '\\')
                j--;
            if ((i - 1 - j) % 2 == 0)
                return i;
        }
        return end - (long long)e->len - 2; /* the string began before the kept chunks */
    default: return end - 1;
    }
}

long long hs__jstream_offset(const hs__jstream *js, const hs__jevent *e)
{
    return token_start(js, e, token_end(js));
}

long long hs__jstream_end(const hs__jstream *js)
{
    return token_end(js);
}

long long hs__jstream_start(const hs__jstream *js, const hs__jevent *e, long long end)
{
    return token_start(js, e, end);
}

static int error_v(hs__jstream *js, long long offset, const char *path, const char *fmt,
                   va_list ap)
{
    char what[HS_ERROR_MSG_MAX], where[64] = "";
    long line, col;
    if (!js->err)
        return HS_EINPUT;
    vsnprintf(what, sizeof what, fmt, ap);
    if (position(js, offset, &line, &col))
        snprintf(where, sizeof where, ":%ld:%ld", line, col);
    hs_error_set(js->err, HS_EINPUT, "%s%s: error: %s%s%s", js->name, where, path,
                 *path ? ": " : "", what);
    snprintf(js->err->path, sizeof js->err->path, "%s", path);
    return HS_EINPUT;
}

int hs__jstream_error(hs__jstream *js, long long offset, const char *path, const char *fmt, ...)
{
    va_list ap;
    int rc;
    va_start(ap, fmt);
    rc = error_v(js, offset, path, fmt, ap);
    va_end(ap);
    return rc;
}

hs_error *hs__jstream_err(hs__jstream *js)
{
    return js->err;
}

/* ------------------------------------------------------------- events */

static int emit(hs__jstream *js, hs__jevent e)
{
    js->rc = js->h->event(js->h->ctx, js, &e);
    return js->rc == HS_OK; /* yajl: 1 goes on, 0 stops */
}

static int on_null(void *ctx)
{
    return emit(ctx, (hs__jevent){.type = HS__J_NULL});
}

static int on_boolean(void *ctx, int b)
{
    return emit(ctx, (hs__jevent){.type = HS__J_BOOL, .boolean = b != 0});
}

static int on_number(void *ctx, const char *s, size_t n)
{
    return emit(ctx, (hs__jevent){.type = HS__J_NUMBER, .text = s, .len = n});
}

static int on_string(void *ctx, const unsigned char *s, size_t n)
{
    return emit(ctx, (hs__jevent){.type = HS__J_STRING, .text = (const char *)s, .len = n});
}

static int on_key(void *ctx, const unsigned char *s, size_t n)
{
    return emit(ctx, (hs__jevent){.type = HS__J_KEY, .text = (const char *)s, .len = n});
}

static int on_map(void *ctx)
{
    return emit(ctx, (hs__jevent){.type = HS__J_MAP});
}

static int on_map_end(void *ctx)
{
    return emit(ctx, (hs__jevent){.type = HS__J_MAP_END});
}

static int on_array(void *ctx)
{
    return emit(ctx, (hs__jevent){.type = HS__J_ARRAY});
}

static int on_array_end(void *ctx)
{
    return emit(ctx, (hs__jevent){.type = HS__J_ARRAY_END});
}

static const yajl_callbacks callbacks = {
    .yajl_null = on_null,
    .yajl_boolean = on_boolean,
    .yajl_number = on_number,
    .yajl_string = on_string,
    .yajl_start_map = on_map,
    .yajl_map_key = on_key,
    .yajl_end_map = on_map_end,
    .yajl_start_array = on_array,
    .yajl_end_array = on_array_end,
};

/* --------------------------------------------------------------- driving */

static int begin(hs__jstream *js, const char *name, const hs__jhandler *h, hs_error *err)
{
    *js = (hs__jstream){.name = name, .err = err, .h = h};
    js->cur = (chunk){.data = (const unsigned char *)"", .line = 1, .col = 1};
    if (!(js->yajl = yajl_alloc(&callbacks, NULL, js)))
        return hs_error_set(err, HS_ENOMEM, "%s: out of memory", name);
    return HS_OK;
}

/* What yajl's status means: HS_OK, the callback's error, or the syntax
 * error located where yajl stopped. */
static int status(hs__jstream *js, yajl_status st)
{
    unsigned char *text;
    const char *what;
    long long at;
    size_t n;
    int rc;
    if (st == yajl_status_ok)
        return HS_OK;
    if (st == yajl_status_client_canceled)
        return js->rc;
    if (!(text = yajl_get_error(js->yajl, 0, NULL, 0)))
        return hs_error_set(js->err, HS_ENOMEM, "%s: out of memory", js->name);
    /* "lexical error: invalid char in json text.\n": the part after
     * "error: ", without the full stop and newline */
    what = strstr((char *)text, "error: ") ? strstr((char *)text, "error: ") + 7
                                           : (char *)text;
    n = strcspn(what, "\n");
    if (n > 0 && what[n - 1] == '.')
        n--;
    /* at the last byte yajl read, as jansson's messages point */
    at = token_end(js);
    rc = hs__jstream_error(js, at > 0 ? at - 1 : 0, "", "invalid JSON: %.*s", (int)n, what);
    yajl_free_error(js->yajl, text);
    return rc;
}

/* yajl's status st, once the handler's `pause` has caught up with the
 * events it handed out (unless a callback stopped it). */
static int paused_status(hs__jstream *js, yajl_status st)
{
    if (st != yajl_status_client_canceled && js->h->pause) {
        int rc = js->h->pause(js->h->ctx, js);
        if (rc != HS_OK)
            return rc;
    }
    return status(js, st);
}

/* Hands the chunk at `data` to yajl. */
static int feed(hs__jstream *js, const unsigned char *data, size_t n)
{
    long line = js->cur.line, col = js->cur.col;
    advance(js->cur.data, js->cur.len, &line, &col);
    js->prev = js->cur;
    js->cur = (chunk){.data = data, .len = n, .at = js->total, .line = line, .col = col};
    js->total += (long long)n;
    return paused_status(js, yajl_parse(js->yajl, data, n));
}

static int end(hs__jstream *js, int rc)
{
    if (rc == HS_OK) {
        js->finishing = 1;
        rc = paused_status(js, yajl_complete_parse(js->yajl));
        js->finishing = 0;
    }
    if (rc == HS_OK && js->h->finish)
        rc = js->h->finish(js->h->ctx, js);
    yajl_free(js->yajl);
    return rc;
}

int hs__jstream_read_buffer(const char *name, const char *data, size_t len,
                            const hs__jhandler *h, hs_error *err)
{
    hs__jstream js;
    size_t max = hs__json_max_bytes_or(HS__JSON_STREAM_MAX_MIB, err);
    int rc;
    if (max == 0)
        return HS_EINPUT;
    if (len > max)
        return hs__json_too_big(name, max, err);
    if ((rc = begin(&js, name, h, err)) != HS_OK)
        return rc;
    js.whole = (const unsigned char *)data;
    js.whole_len = len;
    return end(&js, len ? feed(&js, (const unsigned char *)data, len) : HS_OK);
}

int hs__jstream_read_file(const char *path, const hs__jhandler *h, hs_error *err)
{
    int from_stdin = strcmp(path, "-") == 0, rc, e;
    const char *name = from_stdin ? "<stdin>" : path;
    size_t max = hs__json_max_bytes_or(HS__JSON_STREAM_MAX_MIB, err);
    unsigned char *buf[2] = {NULL, NULL};
    hs__jstream js;
    struct stat st;
    FILE *f;
    if (max == 0)
        return HS_EINPUT;
    if (!(f = from_stdin ? stdin : fopen(path, "rb")))
        return hs_error_set(err, HS_EINPUT, "%s: cannot read: %s", path, strerror(errno));
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && (unsigned long long)st.st_size > max)
        rc = hs__json_too_big(name, max, err);
    else if (!(buf[0] = malloc(HS__JSON_CHUNK)) || !(buf[1] = malloc(HS__JSON_CHUNK)))
        rc = hs_error_set(err, HS_ENOMEM, "%s: out of memory", name);
    else
        rc = begin(&js, name, h, err);
    if (rc != HS_OK)
        goto done;
    js.f = !from_stdin && S_ISREG(st.st_mode) ? f : NULL;
    /* at most max bytes: a larger file, or an endless pipe, is refused
     * without being read whole */
    for (int k = 0; rc == HS_OK; k ^= 1) {
        size_t n = fread(buf[k], 1, HS__JSON_CHUNK, f);
        if (n == 0)
            break;
        if ((unsigned long long)js.total + n > max)
            rc = hs__json_too_big(name, max, err);
        else
            rc = feed(&js, buf[k], n);
    }
    e = errno;
    if (rc == HS_OK && ferror(f))
        rc = hs_error_set(err, HS_EINPUT, "%s: cannot read: %s", name, strerror(e));
    rc = end(&js, rc);
done:
    if (!from_stdin)
        fclose(f);
    else
        clearerr(f);
    free(buf[0]);
    free(buf[1]);
    return rc;
}

/* --------------------------------------------------------------- pulling */

/* An event waiting in the queue: its text at `text` in the pull's text,
 * its token ending before `end` (where it starts is found only for a
 * message, hs__jpull_where). */
typedef struct queued {
    enum hs__jtype type;
    int boolean;
    size_t text, len;
    long long end;
} queued;

struct hs__jpull {
    hs__jstream js;
    hs__jhandler h;
    queued *q;         /* the events of the slice fed last */
    size_t nq, cap, next;
    char *text;        /* their texts, each NUL-terminated */
    size_t ntext, textcap;
    const unsigned char *data; /* the text held whole (len bytes), or NULL */
    size_t len;
    FILE *f;           /* or the file, read HS__JSON_CHUNK bytes at a time */
    unsigned char *buf[2];
    int k;             /* buf[k] holds `have` bytes, `used` of them fed */
    size_t have, used;
    int done;          /* yajl has read the whole text */
    int at_end;        /* HS__J_END was handed out */
    int rc;            /* the error to hand out once the queue is empty */
    hs_error pending;  /* its message */
};

/* yajl's events go to the queue. */
static int enqueue(void *ctx, hs__jstream *js, const hs__jevent *e)
{
    hs__jpull *p = ctx;
    queued *x;
    if (p->nq == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 4096;
        queued *q = realloc(p->q, cap * sizeof *q);
        if (!q)
            return hs_error_set(js->err, HS_ENOMEM, "%s: out of memory", js->name);
        p->q = q;
        p->cap = cap;
    }
    if (p->ntext + e->len + 1 > p->textcap) {
        size_t cap = p->textcap ? p->textcap : 65536;
        char *t;
        while (cap < p->ntext + e->len + 1)
            cap *= 2;
        if (!(t = realloc(p->text, cap)))
            return hs_error_set(js->err, HS_ENOMEM, "%s: out of memory", js->name);
        p->text = t;
        p->textcap = cap;
    }
    x = &p->q[p->nq++];
    *x = (queued){.type = e->type, .boolean = e->boolean, .text = p->ntext, .len = e->len,
                  .end = token_end(js)};
    if (e->len)
        memcpy(p->text + p->ntext, e->text, e->len);
    p->text[p->ntext + e->len] = '\0';
    p->ntext += e->len + 1;
    return HS_OK;
}

int hs__jpull_open(hs__jpull **out, const char *name, const char *data, size_t len, FILE *f,
                   hs_error *err)
{
    hs__jpull *p = calloc(1, sizeof *p);
    int rc;
    *out = NULL;
    if (!p || (f && (!(p->buf[0] = malloc(HS__JSON_CHUNK)) ||
                     !(p->buf[1] = malloc(HS__JSON_CHUNK))))) {
        if (p) {
            free(p->buf[0]);
            free(p);
        }
        return hs_error_set(err, HS_ENOMEM, "%s: out of memory", name);
    }
    p->h = (hs__jhandler){.event = enqueue, .ctx = p};
    if ((rc = begin(&p->js, name, &p->h, &p->pending)) != HS_OK) {
        *err = p->pending;
        hs__jpull_close(p);
        return rc;
    }
    p->data = f ? NULL : (const unsigned char *)data;
    p->len = f ? 0 : len;
    p->js.whole = p->data;
    p->js.whole_len = p->len;
    p->f = f;
    if (f) {
        struct stat st;
        p->js.f = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) ? f : NULL;
    }
    *out = p;
    return HS_OK;
}

/* The next slice of the text: its start into *slice, its length returned
 * (0 at the end); -1 when the file cannot be read (p->pending filled). */
static long long next_slice(hs__jpull *p, const unsigned char **slice)
{
    size_t n;
    if (!p->f) {
        n = p->len - p->used < HS__JPULL_SLICE ? p->len - p->used : HS__JPULL_SLICE;
        *slice = p->data + p->used;
        p->used += n;
        return (long long)n;
    }
    if (p->used == p->have) {
        /* the other buffer: the slice fed last stays whole in this one */
        p->k ^= 1;
        p->have = fread(p->buf[p->k], 1, HS__JSON_CHUNK, p->f);
        p->used = 0;
        if (p->have == 0 && ferror(p->f)) {
            hs_error_set(&p->pending, HS_EINPUT, "%s: cannot read: %s", p->js.name,
                         strerror(errno));
            return -1;
        }
    }
    n = p->have - p->used < HS__JPULL_SLICE ? p->have - p->used : HS__JPULL_SLICE;
    *slice = p->buf[p->k] + p->used;
    p->used += n;
    return (long long)n;
}

/* Feeds yajl the next slice, or ends the text, queueing their events;
 * an error waits in p->rc. */
static void pull_more(hs__jpull *p)
{
    const unsigned char *slice = NULL;
    long long n = next_slice(p, &slice);
    if (n < 0) {
        p->rc = HS_EINPUT;
    } else if (n > 0) {
        p->rc = feed(&p->js, slice, (size_t)n);
    } else {
        p->js.finishing = 1;
        p->rc = status(&p->js, yajl_complete_parse(p->js.yajl));
        p->js.finishing = 0;
        p->done = 1;
    }
}

int hs__jpull_next(hs__jpull *p, hs__jevent *e, hs_error *err)
{
    const queued *x;
    while (p->next == p->nq) {
        p->next = p->nq = p->ntext = 0;
        if (p->rc != HS_OK) {
            *err = p->pending;
            return p->rc;
        }
        if (p->done) {
            *e = (hs__jevent){.type = HS__J_END, .text = "", .len = 0};
            p->at_end = 1;
            return HS_OK;
        }
        pull_more(p);
    }
    x = &p->q[p->next++];
    *e = (hs__jevent){.type = x->type, .text = p->text + x->text, .len = x->len,
                      .boolean = x->boolean};
    return HS_OK;
}

int hs__jpull_where(hs__jpull *p, long *line, long *col)
{
    long long at = 0;
    if (p->at_end) {
        at = p->js.total;
    } else if (p->next > 0) {
        const queued *x = &p->q[p->next - 1];
        hs__jevent e = {.type = x->type, .len = x->len, .boolean = x->boolean};
        at = token_start(&p->js, &e, x->end);
    }
    return position(&p->js, at, line, col);
}

void hs__jpull_close(hs__jpull *p)
{
    if (!p)
        return;
    if (p->js.yajl)
        yajl_free(p->js.yajl);
    free(p->q);
    free(p->text);
    free(p->buf[0]);
    free(p->buf[1]);
    free(p);
}
