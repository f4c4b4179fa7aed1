/* hetsched — internal UTF-8 helpers (graph/utf8.h), by RFC 3629. */
#include <string.h>

#include "graph/utf8.h"

size_t hs__utf8_char(const char *s, size_t n, unsigned *cp)
{
    const unsigned char *u = (const unsigned char *)s;
    unsigned c, min;
    size_t len;
    if (n == 0)
        return 0;
    if (u[0] < 0x80) {
        *cp = u[0];
        return 1;
    }
    if (u[0] >= 0xc2 && u[0] <= 0xdf) {
        len = 2, c = u[0] & 0x1fu, min = 0x80;
    } else if (u[0] >= 0xe0 && u[0] <= 0xef) {
        len = 3, c = u[0] & 0x0fu, min = 0x800;
    } else if (u[0] >= 0xf0 && u[0] <= 0xf4) {
        len = 4, c = u[0] & 0x07u, min = 0x10000;
    } else {
        return 0; /* a continuation byte, an overlong lead (c0, c1) or f5..ff */
    }
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((u[i] & 0xc0) != 0x80)
            return 0;
        c = c << 6 | (u[i] & 0x3fu);
    }
    if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
        return 0;
    *cp = c;
    return len;
}

void hs__utf8_cut(char *s)
{
    size_t n = strlen(s), lead = n;
    unsigned cp;
    /* back over up to 3 continuation bytes to the character's first byte */
    while (lead > 0 && n - lead < 3 && ((unsigned char)s[lead - 1] & 0xc0) == 0x80)
        lead--;
    if (lead > 0 && ((unsigned char)s[lead - 1] & 0xc0) == 0xc0 &&
        hs__utf8_char(s + lead - 1, n - lead + 1, &cp) == 0)
        s[lead - 1] = '\0';
}

char *hs__utf8_copy(char *buf, size_t size, const char *src)
{
    size_t n = strlen(src), out = 0;
    for (size_t i = 0; i < n;) {
        unsigned cp;
        size_t len = hs__utf8_char(src + i, n - i, &cp);
        if (out + (len ? len : 1) >= size)
            break;
        if (len) {
            memcpy(buf + out, src + i, len);
            out += len;
            i += len;
        } else {
            buf[out++] = '?';
            i++;
        }
    }
    buf[out] = '\0';
    return buf;
}
