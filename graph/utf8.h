/* hetsched — internal UTF-8 helpers: names must be valid UTF-8 (the YAML
 * loader, DOT, cairo and JSON all need it), and labels cut to fit a buffer
 * must end on a character boundary. */
#ifndef HS_GRAPH_UTF8_H
#define HS_GRAPH_UTF8_H

#include <stddef.h>

/* Length (1 to 4) of the character s starts with, when it is valid UTF-8
 * (shortest form, not a surrogate, at most U+10FFFF) within the n bytes
 * given; 0 otherwise.  *cp gets its code point. */
size_t hs__utf8_char(const char *s, size_t n, unsigned *cp);

/* Is code point cp printable: not a C0 or C1 control character, nor DEL? */
static inline int hs__utf8_printable(unsigned cp)
{
    return cp >= 0x20 && cp != 0x7f && !(cp >= 0x80 && cp < 0xa0);
}

/* Shortens s in place by the bytes of an incomplete character at its end,
 * what snprintf leaves when it cuts a string in the middle of one. */
void hs__utf8_cut(char *s);

/* Copies src into buf (size > 0 bytes) as valid UTF-8: a byte that starts
 * no valid character becomes '?', and a copy too long for buf is cut after
 * the last whole character that fits.  Returns buf. */
char *hs__utf8_copy(char *buf, size_t size, const char *src);

#endif
