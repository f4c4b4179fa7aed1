/* hetsched — the decimal text of a double without printf (graph/numfmt.c),
 * for the writers of large files: the same text as snprintf's %.{prec}g,
 * found with integer arithmetic instead of glibc's multi-precision one; and
 * the value of a short decimal text, the same way. */
#ifndef HS_GRAPH_NUMFMT_H
#define HS_GRAPH_NUMFMT_H

/* Writes x as snprintf(buf, 32, "%.*g", prec, x) does, when 1e-3 <= |x| <
 * 2^52, 1 <= prec <= 17 and that text has no exponent, and returns its
 * length; *reads_back says whether strtod gives x back from it.  Returns 0
 * (buf untouched) for any other x or prec, and where it cannot tell whether
 * the text reads back: use snprintf then. */
int hs__format_g(double x, int prec, char buf[32], int *reads_back);

/* The same at the least precision from *prec to `most` whose text reads
 * back (else at `most`), into *prec: the precisions share the work of
 * splitting x.  Returns 0 as hs__format_g does at any precision it tries. */
int hs__format_g_least(double x, int *prec, int most, char buf[32], int *reads_back);

/* Reads the whole of `s` as strtod does, when it is a plain decimal ("-"
 * optional, digits, an optional point and digits; no exponent) of at most
 * 17 significant digits, at most 22 of them after the point: that whole
 * number over a power of ten, both exact, whose quotient IEEE rounds
 * correctly as strtod does (past 2^53, through x87's 64-bit long double
 * where there is one, and not where its rounding to a double could differ
 * from strtod's).  Returns 1 with *out set, 0 for any other text (then use
 * strtod). */
int hs__parse_decimal(const char *s, double *out);

/* Writes the decimal digits of m; returns their count (at most 20). */
int hs__format_u64(unsigned long long m, char buf[21]);

#endif
