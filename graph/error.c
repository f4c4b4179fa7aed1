/* hetsched — the error table and its helpers (include/hetsched/error.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hetsched/error.h"
#include "graph/utf8.h"

const char *hs_strerror_name(int code)
{
    switch (code) {
    case HS_OK: return "OK";
#define HS__NAME(name, value, text) case HS_##name: return #name;
        HS_ERROR_MAP(HS__NAME)
#undef HS__NAME
    }
    return "EUNKNOWN";
}

const char *hs_strerror(int code)
{
    switch (code) {
    case HS_OK: return "success";
#define HS__TEXT(name, value, text) case HS_##name: return text;
        HS_ERROR_MAP(HS__TEXT)
#undef HS__TEXT
    }
    return "unknown error";
}

/* Messages are one printable line, whatever they quote from the input (a
 * name with a newline, a terminal escape sequence, bytes that are not
 * UTF-8): control characters are written as C escapes (\n, \t, \r, \xHH;
 * \u00HH for the C1 controls U+0080..U+009F, which some terminals obey), and
 * so is each byte that starts no valid UTF-8 character. */
static void one_line(char *msg, size_t size)
{
    char out[HS_ERROR_MSG_MAX];
    size_t n = strlen(msg), i = 0, o = 0;
    if (size > sizeof out)
        size = sizeof out;
    while (i < n) {
        unsigned cp = 0;
        size_t len = hs__utf8_char(msg + i, n - i, &cp), plen = len;
        const char *piece = msg + i;
        char esc[8];
        if (len == 0 || !hs__utf8_printable(cp)) {
            if (len == 0)
                snprintf(esc, sizeof esc, "\\x%02x", (unsigned char)msg[i]);
            else if (cp >= 0x80)
                snprintf(esc, sizeof esc, "\\u%04x", cp);
            else if (cp == '\n' || cp == '\t' || cp == '\r')
                snprintf(esc, sizeof esc, "\\%c", cp == '\n' ? 'n' : cp == '\t' ? 't' : 'r');
            else
                snprintf(esc, sizeof esc, "\\x%02x", cp);
            piece = esc;
            plen = strlen(esc);
            len = len ? len : 1;
        }
        if (o + plen >= size)
            break;
        memcpy(out + o, piece, plen);
        o += plen;
        i += len;
    }
    out[o] = '\0';
    memcpy(msg, out, o + 1);
}

int hs_error_set(hs_error *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        err->code = code;
        err->path[0] = '\0';
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        one_line(err->msg, sizeof err->msg);
    }
    return code;
}

int hs_error_at(hs_error *err, int code, const char *path, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        size_t n;
        err->code = code;
        snprintf(err->path, sizeof err->path, "%s", path);
        n = (size_t)snprintf(err->msg, sizeof err->msg, "%s: ", path);
        if (n < sizeof err->msg) {
            va_start(ap, fmt);
            vsnprintf(err->msg + n, sizeof err->msg - n, fmt, ap);
            va_end(ap);
        }
        one_line(err->msg, sizeof err->msg);
    }
    return code;
}

int hs_error_exit_status(int code)
{
    if (code == HS_OK)
        return 0;
    if (code == HS_EINPUT || code == HS_EUSAGE)
        return 2;
    return 1;
}
