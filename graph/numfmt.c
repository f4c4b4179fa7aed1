/* hetsched — the decimal text of a double without printf (graph/numfmt.h).
 *
 * A double x with 1e-3 <= x < 2^52 is m / 2^s exactly (m of 53 bits,
 * 1 <= s <= 62), so x * 10^k for 0 <= k <= 22 is a 128-bit integer divided
 * by 2^s: rounding that quotient to nearest, ties to even (as glibc rounds
 * the exact binary value), gives the prec significant digits q, 10^(prec-1)
 * <= q < 10^prec, and the exponent X that %.{prec}g prints.  The decimal
 * q * 10^-k reads back as x when it lies within half an ulp of x:
 * |q * 2^s - m * 10^k| < 10^k / 2.  A tie, or x a power of two (whose lower
 * neighbour is nearer), is left to snprintf and strtod. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "graph/numfmt.h"

typedef unsigned __int128 u128;

int hs__format_u64(unsigned long long m, char buf[21])
{
    char d[20];
    int i = sizeof d;
    do
        d[--i] = (char)('0' + m % 10);
    while ((m /= 10) > 0);
    memcpy(buf, d + i, sizeof d - (size_t)i);
    buf[sizeof d - (size_t)i] = '\0';
    return (int)sizeof d - i;
}

/* 10^k for 0 <= k <= 22, exactly. */
static u128 pow10_128(int k)
{
    static const u128 p[23] = {
        1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
        100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
        10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
        100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull,
        (u128)10000000000000000000ull * 10, (u128)10000000000000000000ull * 100,
        (u128)10000000000000000000ull * 1000,
    };
    return p[k];
}

/* x > 0 as m / 2^s (m of 53 bits) and e, an estimate of floor(log10(x))
 * that digits() corrects: what every precision of x shares.  0 when x is
 * out of range. */
typedef struct binary {
    unsigned long long m;
    int s, e;
} binary;

static int split(double x, binary *b)
{
    int ex;
    if (!(x >= 1e-3 && x < 4503599627370496.0))
        return 0;
    b->m = (unsigned long long)ldexp(frexp(x, &ex), 53);
    b->s = 53 - ex;
    b->e = (int)floor(log10(x));
    return 1;
}

/* The digits (q, X) of b to prec places; 1 when they read back as x, 0
 * when not, -1 when this cannot tell. */
static int digits(const binary *b, int prec, unsigned long long *q, int *X)
{
    unsigned long long m = b->m;
    int s = b->s, e = b->e;
    if (prec < 1 || prec > 17)
        return -1;
    for (int tries = 0; tries < 3; tries++) {
        int k = prec - 1 - e;
        u128 num, qq, rem, half, back, diff, p10;
        if (k < 0 || k > 22)
            return -1;
        p10 = pow10_128(k);
        num = (u128)m * p10;
        qq = num >> s;
        rem = num - (qq << s);
        half = (u128)1 << (s - 1);
        if (rem > half || (rem == half && (qq & 1)))
            qq++;
        if (qq >= pow10_128(prec)) {
            e++;
            continue;
        }
        if (qq < pow10_128(prec - 1)) {
            e--;
            continue;
        }
        *q = (unsigned long long)qq;
        *X = e;
        back = qq << s;
        diff = back > num ? back - num : num - back;
        if (2 * diff == p10 || (m == 1ull << 52 && back < num))
            return -1;
        return 2 * diff < p10;
    }
    return -1;
}

/* The text of digits (q, X) at prec, as %g writes them, of a number of
 * x's sign; its length. */
static int text_of(double x, unsigned long long q, int X, int prec, char buf[32])
{
    char d[17];
    int last, n = 0;
    for (int i = prec - 1; i >= 0; i--, q /= 10)
        d[i] = (char)('0' + q % 10);
    /* %g drops trailing zeros of the fraction, and the point with them */
    for (last = prec - 1; last > 0 && last > X && d[last] == '0'; last--)
        ;
    if (x < 0)
        buf[n++] = '-';
    if (X >= 0) {
        memcpy(buf + n, d, (size_t)X + 1);
        n += X + 1;
        if (last > X) {
            buf[n++] = '.';
            memcpy(buf + n, d + X + 1, (size_t)(last - X));
            n += last - X;
        }
    } else {
        buf[n++] = '0';
        buf[n++] = '.';
        for (int i = -1; i > X; i--)
            buf[n++] = '0';
        memcpy(buf + n, d, (size_t)last + 1);
        n += last + 1;
    }
    buf[n] = '\0';
    return n;
}

int hs__format_g(double x, int prec, char buf[32], int *reads_back)
{
    return hs__format_g_least(x, &prec, prec, buf, reads_back);
}

int hs__format_g_least(double x, int *prec, int most, char buf[32], int *reads_back)
{
    unsigned long long q;
    binary b;
    int X, rb;
    if (!split(fabs(x), &b))
        return 0;
    for (;; ++*prec) {
        rb = digits(&b, *prec, &q, &X);
        if (rb < 0 || X >= *prec || X < -4)
            return 0;
        if (rb || *prec >= most)
            break;
    }
    *reads_back = rb;
    return text_of(x, q, X, *prec, buf);
}

/* m / 10^k for 2^53 < m < 10^17 and k <= 22 (the 16 and 17 digits of the
 * doubles writers print in full), as strtod rounds it, into *out; 0 when
 * this cannot tell.  x87's long double holds m and 10^k exactly in its 64
 * bits, and its division rounds their quotient q correctly to 64 bits, as
 * q64; rounding q64 to a double then gives the double nearest q unless q64
 * lies exactly halfway between two doubles (its low 11 bits 10000000000),
 * where q may lie on either side: left to strtod.  (Between q and q64 lies
 * no other 64-bit value, so no other halfway point.) */
static int wide_quotient(unsigned long long m, int k, double *out)
{
#if (defined(__x86_64__) || defined(__i386__)) && LDBL_MANT_DIG == 64
    static const long double ten[23] = {1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,  1e7L,
                                        1e8L,  1e9L,  1e10L, 1e11L, 1e12L, 1e13L, 1e14L, 1e15L,
                                        1e16L, 1e17L, 1e18L, 1e19L, 1e20L, 1e21L, 1e22L};
    long double q = (long double)m / ten[k];
    unsigned long long bits;
    memcpy(&bits, &q, sizeof bits); /* the 64-bit significand, its integer bit set */
    if ((bits & 0x7ff) == 0x400)
        return 0;
    *out = (double)q;
    return 1;
#else
    (void)m;
    (void)k;
    (void)out;
    return 0;
#endif
}

int hs__parse_decimal(const char *s, double *out)
{
    static const double ten[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const unsigned char *first = (const unsigned char *)s + (*s == '-'), *p = first, *z;
    unsigned long long m = 0;
    long whole, frac = 0, zeros = 0;
    unsigned c;
    /* the digits before and after the point in two tight loops, counted
     * after (a schedule of a million tasks has some 12 million numbers);
     * m may wrap past 19 digits, and is then refused below */
    for (; (c = (unsigned)*p - '0') <= 9; p++)
        m = m * 10 + c;
    whole = p - first;
    if (*p == '.') {
        const unsigned char *point = ++p;
        for (; (c = (unsigned)*p - '0') <= 9; p++)
            m = m * 10 + c;
        frac = p - point;
    }
    if (*p != '\0' || whole + frac == 0 || frac > 22)
        return 0;
    for (z = first; z < p && (*z == '0' || *z == '.'); z++)
        zeros += *z == '0'; /* leading zeros are no significant digits */
    if (whole + frac - zeros > 17)
        return 0;
    if (m <= (1ull << 53))
        *out = (double)m / ten[frac];
    else if (!wide_quotient(m, (int)frac, out))
        return 0;
    if (*s == '-')
        *out = -*out;
    return 1;
}
