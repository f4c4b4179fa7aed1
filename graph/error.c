/* hetsched — the error table and its helpers (include/hetsched/error.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hetsched/error.h"

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

/* Length of the UTF-8 sequence at s (n bytes left) when it is valid and
 * printable, else 0: a control character (C0, DEL, C1), a stray or overlong
 * byte, a surrogate, a sequence cut short. */
static size_t printable_utf8(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t len;
    if (c < 0x80)
        return c >= 0x20 && c != 0x7f;
    if (c >= 0xc2 && c <= 0xdf)
        len = 2;
    else if (c >= 0xe0 && c <= 0xef)
        len = 3;
    else if (c >= 0xf0 && c <= 0xf4)
        len = 4;
    else
        return 0;
    if (n < len)
        return 0;
    for (size_t k = 1; k < len; k++)
        if ((s[k] & 0xc0) != 0x80)
            return 0;
    if ((c == 0xc2 && s[1] < 0xa0) ||         /* U+0080..U+009F, the C1 controls */
        (c == 0xe0 && s[1] < 0xa0) ||         /* overlong */
        (c == 0xed && s[1] > 0x9f) ||         /* UTF-16 surrogates */
        (c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] > 0x8f))
        return 0;
    return len;
}

/* Messages are one printable line, whatever they quote from the input (a
 * name with a newline, a terminal escape sequence, bytes that are not
 * UTF-8): those bytes are written as C escapes, \n, \t, \r or \xHH. */
static void one_line(char *msg, size_t size)
{
    char out[HS_ERROR_MSG_MAX];
    const unsigned char *s = (const unsigned char *)msg;
    size_t n = strlen(msg), i = 0, o = 0;
    if (size > sizeof out)
        size = sizeof out;
    while (i < n) {
        size_t len = printable_utf8(s + i, n - i), plen = len;
        const char *piece = (const char *)s + i;
        char esc[8];
        if (len == 0) {
            if (s[i] == '\n' || s[i] == '\t' || s[i] == '\r')
                snprintf(esc, sizeof esc, "\\%c", s[i] == '\n' ? 'n' : s[i] == '\t' ? 't' : 'r');
            else
                snprintf(esc, sizeof esc, "\\x%02x", s[i]);
            piece = esc;
            plen = strlen(esc);
            len = 1;
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
