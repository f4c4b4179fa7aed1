/* hetsched — reading JSON documents with jansson (graph/json_read.h). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "graph/json_read.h"
#include "graph/read.h"

#define MAX_MIB_LIMIT 1048576ull /* what HETSCHED_JSON_MAX_MIB may ask: 1 TiB */

size_t hs__json_max_bytes(hs_error *err)
{
    return hs__json_max_bytes_or(HS__JSON_MAX_MIB, err);
}

size_t hs__json_max_bytes_or(unsigned long long default_mib, hs_error *err)
{
    unsigned long long mib = default_mib;
    if (hs__env_whole(HS__JSON_MAX_ENV, MAX_MIB_LIMIT, &mib) < 0) {
        hs_error_set(err, HS_EINPUT, "%s must be a whole number of MiB from 1 to %llu, not "
                     "'%.64s'", HS__JSON_MAX_ENV, MAX_MIB_LIMIT, getenv(HS__JSON_MAX_ENV));
        return 0;
    }
    return (size_t)(mib << 20);
}

int hs__json_too_big(const char *name, size_t max, hs_error *err)
{
    return hs_error_set(err, HS_EINPUT, "%s: error: the file is larger than %zu MiB (the "
                        "environment variable %s raises the limit)",
                        name, max >> 20, HS__JSON_MAX_ENV);
}

/* ------------------------------------------------------------ positions */

/* Line and column (from 1; columns in characters, as jansson counts them:
 * bytes that do not continue a UTF-8 sequence) of byte `at` of the text. */
static void line_col(const hs__json_doc *doc, size_t at, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < at && i < doc->len; i++) {
        if (doc->data[i] == '\n') {
            ++*line;
            *col = 1;
        } else if (((unsigned char)doc->data[i] & 0xc0) != 0x80) {
            ++*col;
        }
    }
}

static size_t skip_space(const hs__json_doc *doc, size_t i)
{
    while (i < doc->len && strchr(" \t\r\n", doc->data[i]) && doc->data[i])
        i++;
    return i;
}

/* Past the string that starts at i (a '"'). */
static size_t skip_string(const hs__json_doc *doc, size_t i)
{
    for (i++; i < doc->len && doc->data[i] != '"'; i++)
        if (doc->data[i] == '\\')
            i++;
    return i + 1;
}

/* Past the value that starts at i (the text is valid JSON: jansson read it). */
static size_t skip_value(const hs__json_doc *doc, size_t i)
{
    int depth = 0;
    if (i >= doc->len)
        return i;
    if (doc->data[i] == '"')
        return skip_string(doc, i);
    if (doc->data[i] != '{' && doc->data[i] != '[') {
        while (i < doc->len && !strchr(",]} \t\r\n", doc->data[i]))
            i++;
        return i;
    }
    do {
        char c = doc->data[i];
        if (c == '"') {
            i = skip_string(doc, i);
            continue;
        }
        depth += (c == '{' || c == '[') - (c == '}' || c == ']');
        i++;
    } while (depth > 0 && i < doc->len);
    return i;
}

/* Does the key whose string token is text[i..j) equal key[0..n)? */
static int key_is(const hs__json_doc *doc, size_t i, size_t j, const char *key, size_t n)
{
    json_t *v;
    int same;
    if (!memchr(doc->data + i, '\\', j - i))
        return j - i == n + 2 && memcmp(doc->data + i + 1, key, n) == 0;
    if (!(v = json_loadb(doc->data + i, j - i, JSON_DECODE_ANY, NULL)))
        return 0;
    same = json_string_length(v) == n && memcmp(json_string_value(v), key, n) == 0;
    json_decref(v);
    return same;
}

/* Offset of the value of `key` (n bytes) in the object at i, or doc->len. */
static size_t member(const hs__json_doc *doc, size_t i, const char *key, size_t n)
{
    if (i >= doc->len || doc->data[i] != '{')
        return doc->len;
    for (i = skip_space(doc, i + 1);; i = skip_space(doc, i + 1)) {
        size_t j;
        int found;
        if (i >= doc->len || doc->data[i] != '"')
            return doc->len;
        j = skip_string(doc, i);
        found = key_is(doc, i, j, key, n);
        i = skip_space(doc, j);
        if (i >= doc->len || doc->data[i] != ':')
            return doc->len;
        i = skip_space(doc, i + 1);
        if (found)
            return i;
        i = skip_space(doc, skip_value(doc, i));
        if (i >= doc->len || doc->data[i] != ',')
            return doc->len;
    }
}

/* Offset of the value at `path` (keys joined by '.', indices [i]), or
 * doc->len when it cannot be found. */
static size_t locate(const hs__json_doc *doc, const char *path)
{
    size_t i = skip_space(doc, 0);
    const char *p = path;
    while (*p && i < doc->len) {
        if (*p == '[') {
            char *end;
            unsigned long long k = strtoull(p + 1, &end, 10);
            if (end == p + 1 || *end != ']' || doc->data[i] != '[')
                return doc->len;
            p = end + 1;
            i = skip_space(doc, i + 1);
            for (; k > 0 && i < doc->len && doc->data[i] != ']'; k--) {
                i = skip_space(doc, skip_value(doc, i));
                if (i >= doc->len || doc->data[i] != ',')
                    return doc->len;
                i = skip_space(doc, i + 1);
            }
            if (i >= doc->len || doc->data[i] == ']')
                return doc->len;
        } else {
            size_t n = strcspn(p += *p == '.', ".[");
            i = member(doc, i, p, n);
            p += n;
        }
    }
    return i;
}

/* Fills err for the item at offset `at` (doc->len: unknown). */
static int error_at(const hs__json_doc *doc, hs_error *err, size_t at, const char *path,
                    const char *fmt, va_list ap)
{
    char what[HS_ERROR_MSG_MAX], where[64] = "";
    if (!err)
        return HS_EINPUT;
    vsnprintf(what, sizeof what, fmt, ap);
    if (at < doc->len) {
        int line, col;
        line_col(doc, at, &line, &col);
        snprintf(where, sizeof where, ":%d:%d", line, col);
    }
    if (*path)
        hs_error_set(err, HS_EINPUT, "%s%s: error: %s: %s", doc->name, where, path, what);
    else
        hs_error_set(err, HS_EINPUT, "%s%s: error: %s", doc->name, where, what);
    snprintf(err->path, sizeof err->path, "%s", path);
    return HS_EINPUT;
}

int hs__json_error(const hs__json_doc *doc, hs_error *err, const char *path, const char *fmt, ...)
{
    va_list ap;
    int rc;
    va_start(ap, fmt);
    rc = error_at(doc, err, locate(doc, path), path, fmt, ap);
    va_end(ap);
    return rc;
}

int hs__json_position(const hs__json_doc *doc, const char *path, int *line, int *col)
{
    size_t at = locate(doc, path);
    if (at >= doc->len)
        return 0;
    line_col(doc, at, line, col);
    return 1;
}

/* hs__json_error for `key` of the object at `path`, found as a whole key
 * (it may hold '.' or '['). */
static int key_error(const hs__json_doc *doc, hs_error *err, const char *path, const char *key,
                     const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int key_error(const hs__json_doc *doc, hs_error *err, const char *path, const char *key,
                     const char *fmt, ...)
{
    char sub[256];
    va_list ap;
    int rc;
    snprintf(sub, sizeof sub, "%s%s%s", path, *path ? "." : "", key);
    va_start(ap, fmt);
    rc = error_at(doc, err, member(doc, locate(doc, path), key, strlen(key)), sub, fmt, ap);
    va_end(ap);
    return rc;
}

/* -------------------------------------------------------------- reading */

static int parse(hs__json_doc *doc, hs_error *err)
{
    json_error_t je;
    size_t max = hs__json_max_bytes(err);
    const char *nul;
    int line, col;
    if (max == 0)
        return HS_EINPUT;
    if (doc->len > max)
        return hs__json_too_big(doc->name, max, err);
    /* jansson skips a NUL byte in some places (after a number): no JSON
     * text holds one, and what it means is refused rather than guessed */
    if ((nul = memchr(doc->data, '\0', doc->len))) {
        line_col(doc, (size_t)(nul - doc->data), &line, &col);
        return hs_error_set(err, HS_EINPUT, "%s:%d:%d: error: a NUL byte (no JSON text holds "
                            "one)", doc->name, line, col);
    }
    if ((doc->root = json_loadb(doc->data, doc->len, JSON_REJECT_DUPLICATES, &je)))
        return HS_OK;
    if (json_error_code(&je) == json_error_out_of_memory)
        return hs_error_set(err, HS_ENOMEM, "%s: out of memory", doc->name);
    /* jansson counts a newline as the start of the next line (column 0):
     * point at the last byte it read instead */
    line_col(doc, je.position > 0 ? (size_t)je.position - 1 : 0, &line, &col);
    return hs_error_set(err, HS_EINPUT, "%s:%d:%d: error: %s", doc->name, line, col, je.text);
}

int hs__json_read_buffer(const char *name, const char *data, size_t len, hs__json_doc *doc,
                         hs_error *err)
{
    int rc;
    *doc = (hs__json_doc){.name = name, .data = (char *)data, .len = len};
    if (!data && len == 0)
        doc->data = "";
    if ((rc = parse(doc, err)) != HS_OK)
        hs__json_doc_free(doc);
    return rc;
}

int hs__json_read_file(const char *path, hs__json_doc *doc, hs_error *err)
{
    int from_stdin = strcmp(path, "-") == 0, rc, e;
    size_t max = hs__json_max_bytes(err), cap = 0;
    FILE *f;
    struct stat st;
    *doc = (hs__json_doc){.name = from_stdin ? "<stdin>" : path, .owned = 1};
    if (max == 0)
        return HS_EINPUT;
    if (!(f = from_stdin ? stdin : fopen(path, "rb")))
        return hs_error_set(err, HS_EINPUT, "%s: cannot read: %s", path, strerror(errno));
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && (unsigned long long)st.st_size > max) {
        if (!from_stdin)
            fclose(f);
        return hs__json_too_big(doc->name, max, err);
    }
    /* at most max + 1 bytes: a larger file, or an endless pipe, is refused
     * without being read whole */
    for (;;) {
        size_t n;
        if (doc->len == cap) {
            char *grown;
            cap = cap ? 2 * cap : 65536;
            if (cap > max + 1)
                cap = max + 1;
            if (doc->len == cap)
                break;
            if (!(grown = realloc(doc->data, cap))) {
                if (!from_stdin)
                    fclose(f);
                hs__json_doc_free(doc);
                return hs_error_set(err, HS_ENOMEM, "%s: out of memory", doc->name);
            }
            doc->data = grown;
        }
        if ((n = fread(doc->data + doc->len, 1, cap - doc->len, f)) == 0)
            break;
        doc->len += n;
    }
    e = errno;
    rc = ferror(f) ? hs_error_set(err, HS_EINPUT, "%s: cannot read: %s", doc->name, strerror(e))
                   : HS_OK;
    if (!from_stdin)
        fclose(f);
    else
        clearerr(f);
    if (rc == HS_OK && !doc->data)
        doc->data = calloc(1, 1);
    if (rc == HS_OK && !doc->data)
        rc = hs_error_set(err, HS_ENOMEM, "%s: out of memory", doc->name);
    if (rc == HS_OK)
        rc = parse(doc, err);
    if (rc != HS_OK)
        hs__json_doc_free(doc);
    return rc;
}

void hs__json_doc_free(hs__json_doc *doc)
{
    json_decref(doc->root);
    if (doc->owned)
        free(doc->data);
    doc->root = NULL;
    doc->data = NULL;
}

/* -------------------------------------------------------------- getters */

const char *hs__json_type_name(const json_t *v)
{
    switch (v ? json_typeof(v) : JSON_NULL) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "an array";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
    case JSON_REAL:
        return "a number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "a boolean";
    case JSON_NULL:
        break;
    }
    return "null";
}

/* PATH.KEY (or KEY at the top level) into sub. */
static const char *sub_path(char *sub, size_t size, const char *path, const char *key)
{
    snprintf(sub, size, "%s%s%s", path, *path ? "." : "", key);
    return sub;
}

#define SUB_MAX 256

int hs__json_keys(const hs__json_doc *doc, hs_error *err, const json_t *v, const char *path,
                  const char *const *keys, const char *what)
{
    char list[256] = "";
    const char *key;
    json_t *val;
    for (int i = 0; keys[i]; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                 keys[i] + (keys[i][0] == '?'));
    if (!json_is_object(v))
        return *path ? hs__json_error(doc, err, path, "must be an object (%s), not %s", what,
                                      hs__json_type_name(v))
                     : hs__json_error(doc, err, "", "%s is a JSON object, not %s", what,
                                      hs__json_type_name(v));
    json_object_foreach((json_t *)v, key, val)
    {
        int known = 0;
        for (int i = 0; keys[i] && !known; i++)
            known = strcmp(key, keys[i] + (keys[i][0] == '?')) == 0;
        if (!known)
            return key_error(doc, err, path, key, "unknown key (%s has %s)", what, list);
    }
    for (int i = 0; keys[i]; i++)
        if (keys[i][0] != '?' && !json_object_get(v, keys[i]))
            return hs__json_error(doc, err, path, "missing key '%s' (%s has %s)", keys[i], what,
                                  list);
    return HS_OK;
}

int hs__json_number(const hs__json_doc *doc, hs_error *err, const json_t *obj, const char *key,
                    const char *path, enum hs__json_range range, double *out)
{
    static const char *const want[] = {
        [HS__JSON_FINITE] = "a finite number",
        [HS__JSON_NONNEG] = "a finite number >= 0",
        [HS__JSON_POSITIVE] = "a finite number > 0",
        [HS__JSON_FRACTION] = "a number in (0, 1]",
    };
    const json_t *v = json_object_get(obj, key);
    char sub[SUB_MAX];
    double x;
    int ok;
    if (!json_is_number(v))
        return hs__json_error(doc, err, sub_path(sub, sizeof sub, path, key),
                              "must be a number, not %s", hs__json_type_name(v));
    x = json_number_value(v);
    switch (range) {
    case HS__JSON_FINITE: ok = isfinite(x); break;
    case HS__JSON_NONNEG: ok = isfinite(x) && x >= 0; break;
    case HS__JSON_POSITIVE: ok = isfinite(x) && x > 0; break;
    default: ok = x > 0 && x <= 1; break;
    }
    if (!ok)
        return hs__json_error(doc, err, sub_path(sub, sizeof sub, path, key),
                              "must be %s, not %.17g", want[range], x);
    *out = x;
    return HS_OK;
}

int hs__json_whole(const hs__json_doc *doc, hs_error *err, const json_t *obj, const char *key,
                   const char *path, long long min, long long max, long long *out)
{
    const json_t *v = json_object_get(obj, key);
    char sub[SUB_MAX];
    if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max) {
        char got[64];
        if (json_is_integer(v))
            snprintf(got, sizeof got, "%lld", (long long)json_integer_value(v));
        else if (json_is_number(v))
            snprintf(got, sizeof got, "%.17g", json_number_value(v));
        else
            snprintf(got, sizeof got, "%s", hs__json_type_name(v));
        if (min == max)
            return hs__json_error(doc, err, sub_path(sub, sizeof sub, path, key),
                                  "must be %lld, not %s", min, got);
        return hs__json_error(doc, err, sub_path(sub, sizeof sub, path, key),
                              "must be a whole number from %lld to %lld, not %s", min, max, got);
    }
    *out = json_integer_value(v);
    return HS_OK;
}

int hs__json_string(const hs__json_doc *doc, hs_error *err, const json_t *obj, const char *key,
                    const char *path, int nullable, const char **out)
{
    const json_t *v = json_object_get(obj, key);
    char sub[SUB_MAX];
    if (nullable && json_is_null(v)) {
        *out = NULL;
        return HS_OK;
    }
    if (!json_is_string(v))
        return hs__json_error(doc, err, sub_path(sub, sizeof sub, path, key),
                              "must be a string%s, not %s", nullable ? " or null" : "",
                              hs__json_type_name(v));
    *out = json_string_value(v);
    return HS_OK;
}

int hs__json_array(const hs__json_doc *doc, hs_error *err, const json_t *obj, const char *key,
                   const char *path, const json_t **out)
{
    const json_t *v = json_object_get(obj, key);
    char sub[SUB_MAX];
    if (!json_is_array(v))
        return hs__json_error(doc, err, sub_path(sub, sizeof sub, path, key),
                              "must be an array, not %s", hs__json_type_name(v));
    *out = v;
    return HS_OK;
}
