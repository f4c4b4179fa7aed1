/* hetsched command line — interrupting a long search (cli.h).
 *
 * While a search runs (the MILP, split's static splits), the first SIGINT
 * only sets hs_cli_stop: the search sees it at its next check, stops, and
 * the command reports and writes what was found so far.  A second SIGINT
 * ends the process at once, killed by SIGINT as if nothing had caught it
 * (a shell reports status 130).  Everything the handler does is
 * async-signal-safe: a store to a sig_atomic_t, write(2), signal(2), raise(3).
 */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

volatile sig_atomic_t hs_cli_stop;

static void on_interrupt(int sig)
{
    static const char msg[] = "\nhetsched: interrupted: stopping the search and keeping the best "
                              "found so far (interrupt again to quit at once)\n";
    if (hs_cli_stop) {
        signal(sig, SIG_DFL);
        raise(sig); /* delivered when this handler returns */
        return;
    }
    /* atomic: the MILP's watcher thread (milp/cbc.cpp) polls the flag */
    __atomic_store_n(&hs_cli_stop, 1, __ATOMIC_RELAXED);
    if (write(STDERR_FILENO, msg, sizeof msg - 1) < 0) {
        /* nothing to do: the flag is what matters */
    }
}

void hs_cli_catch_interrupt(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sa.sa_flags = SA_RESTART; /* reads and writes in progress carry on */
    sigemptyset(&sa.sa_mask);
    hs_cli_stop = 0;
    sigaction(SIGINT, &sa, NULL);
}

void hs_cli_release_interrupt(void)
{
    signal(SIGINT, SIG_DFL); /* hs_cli_stop keeps its value for the report */
}
