/* What the tests that drive the built `hetsched` share (test_split.c,
 * test_split_real.c): running it with arguments.  meson sets $HETSCHED. */
#ifndef HS_TESTS_CLI_FIXTURE_H
#define HS_TESTS_CLI_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

/* Runs `$HETSCHED ARGS` with its output thrown away; its exit status, or -1
 * when $HETSCHED is not set or the command did not exit. */
static inline int cli(const char *args)
{
    const char *bin = getenv("HETSCHED");
    char cmd[1024];
    int st;
    if (!bin)
        return -1;
    snprintf(cmd, sizeof cmd, "%s %s >/dev/null 2>&1", bin, args);
    st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#endif
