/* Tests of graph/output.c, the one way output files are written: a new or
 * replaced regular file appears whole or not at all and keeps its
 * permissions, a failed write leaves the old file and no temporary one, a
 * symbolic link stays a link, and what is not a regular file (/dev/full, a
 * FIFO) is written directly and never removed; then the library's writers
 * through it (schedule JSON, trace, performance model) on /dev/full. */
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "graph/export_util.h"
#include "graph/numfmt.h"
#include "hetsched/hetsched.h"
#include "hetsched/output.h"
#include "mapper/perfmodel.h"

static char tmpdir[64];

static int make_tmpdir(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/hs_test_output_XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state)
{
    char cmd[128];
    (void)state;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *tmp_path(const char *name)
{
    static char path[4][128]; /* four names in use at once */
    static int k;
    k = (k + 1) % 4;
    snprintf(path[k], sizeof path[k], "%s/%s", tmpdir, name);
    return path[k];
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
}

/* The text of a small file (a static buffer, NUL-terminated). */
static const char *read_text(const char *path)
{
    static char text[4096];
    FILE *f = fopen(path, "r");
    size_t n;
    assert_non_null(f);
    n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

static void expect_text(const char *path, const char *text)
{
    assert_string_equal(read_text(path), text);
}

/* The files of tmpdir, joined by spaces in name order (no temporary left). */
static const char *listing(void)
{
    static char names[1024];
    struct dirent **list;
    int n = scandir(tmpdir, &list, NULL, alphasort);
    names[0] = '\0';
    assert_true(n >= 0);
    for (int i = 0; i < n; i++) {
        if (list[i]->d_name[0] != '.' || (strcmp(list[i]->d_name, ".") != 0 &&
                                          strcmp(list[i]->d_name, "..") != 0))
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                     names[0] ? " " : "", list[i]->d_name);
        free(list[i]);
    }
    free(list);
    return names;
}

/* Writes `text` to path through hs_output; the writer "fails" with rc. */
static int put(const char *path, const char *text, int rc, hs_error *err)
{
    hs_output o;
    int orc = hs_output_open(&o, path, err);
    if (orc != HS_OK)
        return orc;
    assert_true(fputs(text, o.f) >= 0);
    return hs_output_close(&o, rc, err);
}

static void regular_files(void **state)
{
    const char *a = tmp_path("a.txt");
    hs_error err = {0};
    char want[256];
    struct stat st;
    (void)state;
    /* a new file: 0666 less the umask, no temporary left */
    umask(022);
    assert_int_equal(put(a, "one\n", HS_OK, &err), HS_OK);
    expect_text(a, "one\n");
    assert_int_equal(stat(a, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0644);
    assert_string_equal(listing(), "a.txt");
    /* replaced: the new text, the old permissions */
    assert_int_equal(chmod(a, 0640), 0);
    assert_int_equal(put(a, "two\n", HS_OK, &err), HS_OK);
    expect_text(a, "two\n");
    assert_int_equal(stat(a, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0640);
    /* a writer that fails leaves the old file as it was, and no temporary */
    assert_int_equal(put(a, "three\n", HS_EIO, &err), HS_EIO);
    expect_text(a, "two\n");
    assert_string_equal(listing(), "a.txt");
    /* nor does a failed write create the file */
    assert_int_equal(put(tmp_path("b.txt"), "x", HS_EINPUT, &err), HS_EINPUT);
    assert_string_equal(listing(), "a.txt");
    /* a directory that is not there */
    assert_int_equal(put(tmp_path("none/c.txt"), "x", HS_OK, &err), HS_EIO);
    snprintf(want, sizeof want, "cannot write %s/none/c.txt: No such file or directory", tmpdir);
    assert_string_equal(err.msg, want);
}

static void links_and_special_files(void **state)
{
    const char *target = tmp_path("target.txt"), *link = tmp_path("link.txt");
    const char *fifo = tmp_path("fifo");
    char buf[16] = "";
    hs_error err = {0};
    struct stat st;
    int fd;
    (void)state;
    /* through a symbolic link: the file it points at is replaced, the link
     * stays a link */
    write_text(target, "old\n");
    assert_int_equal(symlink("target.txt", link), 0);
    assert_int_equal(put(link, "new\n", HS_OK, &err), HS_OK);
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    expect_text(target, "new\n");
    /* /dev/full: written directly, the failure reported, the device kept */
    assert_int_equal(put("/dev/full", "x\n", HS_OK, &err), HS_EIO);
    assert_string_equal(err.msg, "cannot write /dev/full: No space left on device");
    assert_int_equal(stat("/dev/full", &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    /* a FIFO: written directly (a reader is already there), never replaced */
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_true((fd = open(fifo, O_RDWR | O_NONBLOCK)) >= 0);
    assert_int_equal(put(fifo, "piped\n", HS_OK, &err), HS_OK);
    assert_int_equal(read(fd, buf, sizeof buf - 1), 6);
    assert_string_equal(buf, "piped\n");
    close(fd);
    assert_int_equal(stat(fifo, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    unlink(fifo);
    unlink(link);
    unlink(target);
}

/* hs__parse_decimal gives strtod's double, bit for bit, where it reads a
 * text, and leaves to strtod what it cannot read exactly: cases by hand,
 * then the texts of random doubles (shortest, 17 digits, thousandths). */
static void parse_decimal(void **state)
{
    static const char *const taken[] = {"0", "-0", "12873960", "3504.461", ".5", "1.",
                                        "0.000123", "9007199254740992", "-42.25",
                                        "1234567890.123456", "0.0046875",
                                        "215739493.83000463", "0.30000000000000004",
                                        "9007199254740994", "685.2149999999999",
                                        "99999999999999999", "0000000000000000000000012.5",
                                        "0.0000000000000000000001"};
    /* 2^53 + 1 and + 3 lie halfway between two doubles: left to strtod */
    static const char *const left[] = {"", "-", ".", "1e5", "+1", " 1", "1 ", "0x10", "inf",
                                       "9007199254740993", "9007199254740995", "1.5.2", "12345678901234567890",
                                       "0.00000000000000000000001", "123456789012345678",
                                       "1.00000000000000000", "-.", "1-", "--1", "1..", "12a"};
    unsigned long long seed = 88172645463325252ull;
    char text[64];
    double x;
    int read_17 = 0;
    (void)state;
    for (size_t i = 0; i < sizeof taken / sizeof *taken; i++) {
        double want = strtod(taken[i], NULL);
        if (!hs__parse_decimal(taken[i], &x))
            fail_msg("'%s' not read", taken[i]);
        assert_memory_equal(&x, &want, sizeof x);
    }
    for (size_t i = 0; i < sizeof left / sizeof *left; i++)
        if (hs__parse_decimal(left[i], &x))
            fail_msg("'%s' read", left[i]);
    for (int i = 0; i < 300000; i++) {
        double want, r;
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        r = (double)(seed >> 11) / 9007199254740992.0 * pow(10, (int)(seed % 16) - 3);
        if (i % 3 == 0)
            snprintf(text, sizeof text, "%.17g", r);
        else if (i % 3 == 1)
            hs__exact_number(r, text, sizeof text);
        else
            snprintf(text, sizeof text, "%.3f", r);
        want = strtod(text, NULL);
        if (hs__parse_decimal(text, &x)) {
            if (memcmp(&x, &want, sizeof x) != 0)
                fail_msg("'%s': %.17g, strtod %.17g", text, x, want);
            read_17 += i % 3 == 0;
        }
    }
    /* the 17 digits are read here, not left to strtod (on x86) */
#if defined(__x86_64__)
    assert_true(read_17 > 99000);
#endif
}

/* hs__format_g writes what %.{prec}g writes and knows whether it reads
 * back: exact cases by hand, then a million random doubles of the ranges
 * schedules hold, at every precision, against snprintf and strtod. */
static void format_g(void **state)
{
    static const struct {
        double x;
        int prec, back;
        const char *text;
    } cases[] = {
        {1301.378, 15, 1, "1301.378"},
        {1301.378, 17, 1, "1301.3779999999999"}, /* its 17 digits */
        {0.1 + 0.2, 15, 0, "0.3"},
        {0.1 + 0.2, 17, 1, "0.30000000000000004"},
        {0.001, 15, 1, "0.001"},
        {0.1, 17, 1, "0.10000000000000001"},
        {2.5, 1, 0, "2"}, /* a tie goes to even, as glibc rounds */
        {3.5, 1, 0, "4"},
        {99.96, 3, 0, "100"}, /* rounding carries into the next digit */
        {1e11, 15, 1, "100000000000"},
        {-42.25, 15, 1, "-42.25"},
    };
    char mine[32], ref[40], num[21];
    unsigned long long seed = 88172645463325252ull;
    int left = 0;
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int back = -1;
        assert_int_equal(hs__format_g(cases[i].x, cases[i].prec, mine, &back),
                         (int)strlen(cases[i].text));
        assert_string_equal(mine, cases[i].text);
        assert_int_equal(back, cases[i].back);
    }
    /* out of range: left to snprintf */
    assert_int_equal(hs__format_g(1e-4, 15, mine, &(int){0}), 0);
    assert_int_equal(hs__format_g(1e16, 17, mine, &(int){0}), 0);
    assert_int_equal(hs__format_g(123456.0, 3, mine, &(int){0}), 0); /* 1.23e+05 */
    assert_int_equal(hs__format_u64(0, num), 1);
    assert_string_equal(num, "0");
    assert_int_equal(hs__format_u64(18446744073709551615ull, num), 20);
    assert_string_equal(num, "18446744073709551615");
    for (int i = 0; i < 1000000; i++) {
        double x;
        int prec = 1 + i % 17, back, n;
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        /* 1e-3 .. 1e12, spread over the exponents, and sums of thousandths */
        x = i % 2 ? ldexp((double)(seed >> 11), -53) * pow(10, (double)(seed % 15) - 3)
                  : (double)(seed % 100000000000ull) / 1000 + (double)(seed % 7) / 1000;
        n = hs__format_g(x, prec, mine, &back);
        snprintf(ref, sizeof ref, "%.*g", prec, x);
        if (n == 0) { /* out of range, an exponent, or (rare) a tie or a power of two */
            left += x >= 1e-3 && !strchr(ref, 'e');
            continue;
        }
        if (strcmp(mine, ref) != 0 || back != (strtod(ref, NULL) == x))
            fail_msg("%.17g at %d: '%s' (reads back: %d), snprintf '%s'", x, prec, mine, back,
                     ref);
        if (i % 10 == 0) { /* the least of 15..17 that reads back, as snprintf finds it */
            int least = 15, want = 15;
            for (; want < 17; want++) {
                snprintf(ref, sizeof ref, "%.*g", want, x);
                if (strtod(ref, NULL) == x)
                    break;
            }
            snprintf(ref, sizeof ref, "%.*g", want, x);
            if (hs__format_g_least(x, &least, 17, mine, &back) > 0 &&
                (least != want || strcmp(mine, ref) != 0 || back != (strtod(ref, NULL) == x)))
                fail_msg("%.17g: '%s' at %d, snprintf '%s' at %d", x, mine, least, ref, want);
        }
    }
    assert_true(left < 100);
    {
        int prec = 15, back = -1;
        assert_int_equal(hs__format_g_least(0.1 + 0.2, &prec, 17, mine, &back), 19);
        assert_string_equal(mine, "0.30000000000000004");
        assert_int_equal(prec, 17);
        assert_int_equal(back, 1);
        prec = 15;
        assert_int_equal(hs__format_g_least(0.1 + 0.2, &prec, 16, mine, &back), 3);
        assert_string_equal(mine, "0.3"); /* at 16, which does not read back */
        assert_int_equal(prec, 16);
        assert_int_equal(back, 0);
        prec = 15;
        assert_int_equal(hs__format_g_least(1301.378, &prec, 17, mine, &back), 8);
        assert_int_equal(prec, 15);
    }
}

/* The library's writers go through it: on /dev/full each fails with the
 * file's name, and /dev/full is still the device. */
static void library_writers(void **state)
{
    const char *yaml = "platform:\n"
                       "  devices:\n"
                       "    - {name: cpu0, kind: cpu, memory: host}\n"
                       "applications:\n"
                       "  - name: a\n"
                       "    kernels:\n"
                       "      - {name: k, cost_us: {cpu: 5}}\n";
    const char *good = tmp_path("s.json");
    hs_workload *w = NULL;
    hs_schedule *s = NULL;
    hs_perfmodel *m = hs_perfmodel_new();
    hs_map_options opt = {0};
    hs_error err = {0};
    struct stat st;
    (void)state;
    assert_int_equal(hs_workload_load_buffer("w.yaml", yaml, strlen(yaml), &w, &err), HS_OK);
    assert_int_equal(hs_map(w, "heft", &opt, &s, NULL, &err), HS_OK);
    assert_int_equal(hs_schedule_write_json(w, s, "/dev/full", &err), HS_EIO);
    assert_string_equal(err.msg, "cannot write /dev/full: No space left on device");
    assert_int_equal(hs_trace_write(w, s, "/dev/full", &err), HS_EIO);
    assert_string_equal(err.msg, "cannot write /dev/full: No space left on device");
    assert_int_equal(hs_perfmodel_save(m, "/dev/full", &err), HS_EIO);
    assert_string_equal(err.msg, "cannot write /dev/full: No space left on device");
    assert_int_equal(stat("/dev/full", &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    /* a line's numbers share the least precision of 15-17 at which all of
     * them read back, as jansson writes them: 0.1 gets 17 digits beside
     * 0.1 + 0.2, and a whole number ends in .0 */
    s->placements[0].start_us = 0.1;
    s->placements[0].end_us = 0.1 + 0.2;
    assert_int_equal(hs_schedule_write_json(w, s, good, &err), HS_OK);
    assert_non_null(strstr(read_text(good), "\"start_us\": 0.10000000000000001, \"end_us\": "
                                             "0.30000000000000004, \"fraction\": 1.0}"));
    s->placements[0].start_us = 1301.378;
    s->placements[0].end_us = 2000;
    /* a good write, then a failing one of the same file keeps the good one */
    assert_int_equal(hs_schedule_write_json(w, s, good, &err), HS_OK);
    assert_non_null(strstr(read_text(good), "\"start_us\": 1301.378, \"end_us\": 2000.0, "
                                             "\"fraction\": 1.0}"));
    s->placements[0].end_us = -1.0 / 0.0; /* refused before a byte is written */
    assert_int_equal(hs_schedule_write_json(w, s, good, &err), HS_EUSAGE);
    assert_int_equal(stat(good, &st), 0);
    assert_true(st.st_size > 0);
    unlink(good);
    hs_perfmodel_free(m);
    hs_schedule_free(s);
    hs_workload_free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(regular_files),
        cmocka_unit_test(links_and_special_files),
        cmocka_unit_test(library_writers),
        cmocka_unit_test(format_g),
        cmocka_unit_test(parse_decimal),
    };
    return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
