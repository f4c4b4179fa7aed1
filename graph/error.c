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

int hs_error_set(hs_error *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        err->code = code;
        err->path[0] = '\0';
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
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
