/* hetsched — `static`: the even split, OpenMP's static schedule (KASS
 * Sec. 2): device d gets the one chunk [d N / P, (d + 1) N / P), the first
 * N mod P devices one item more.  No overhead beyond one chunk per device,
 * no balance: a device that dies takes its share with it. */
#include <stdlib.h>

#include "mapper/split_core.h"

typedef struct split_static {
    hs__split_core core;
    int given[HS_SPLIT_MAX_DEVICES];
} split_static;

static int static_start(const hs_split_kernel *k, const hs_split_device *dev, int ndev,
                        const hs_split_options *opt, const hs_split_memory *mem, void **state,
                        hs_error *err)
{
    split_static *s = calloc(1, sizeof *s);
    int rc;
    (void)opt;
    (void)mem;
    if (!s)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    if ((rc = hs__split_core_init(&s->core, k, dev, ndev, 0, err)) != HS_OK) {
        free(s);
        return rc;
    }
    s->core.next = k->items; /* nothing in the shared pool: shares are fixed */
    *state = s;
    return HS_OK;
}

static hs_split_answer static_next(void *state, int d, double now, hs_split_grant *g)
{
    split_static *s = state;
    size_t n = s->core.items, p = (size_t)s->core.ndev, q = n / p, r = n % p, ud = (size_t)d;
    size_t b = ud * q + (ud < r ? ud : r), e = b + q + (ud < r);
    if (s->given[d] || b == e)
        return HS_SPLIT_STOP;
    s->given[d] = 1;
    return hs__split_give_range(&s->core, d, b, e, now, g);
}

static int static_finished(void *state, int d, size_t b, size_t e, double us, double now)
{
    split_static *s = state;
    (void)now;
    return hs__split_done(&s->core, d, b, e, us);
}

static void static_fini(void *state)
{
    split_static *s = state;
    if (!s)
        return;
    hs__split_core_free(&s->core);
    free(s);
}

const hs_splitter hs__split_static = {
    .name = "static",
    .description = "even split: one chunk of N/P items per device",
    .flags = 0,
    .start = static_start,
    .next = static_next,
    .finished = static_finished,
    .fini = static_fini,
};
