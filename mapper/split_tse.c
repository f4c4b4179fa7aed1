/* hetsched — `tse-linear` and `tse-exp`: the incremental schemes of Tse et
 * al. (FPT 2010) as HDSS Sec. 1 and 4 describe them: each device's first
 * chunk is -o initial_block (128, rounded up to its width), and every later
 * request of the same device grows it, by -o block_factor items (linear;
 * 128, rounded likewise) or by the factor -o tse_factor (exponential; 2).
 * Faster devices ask more often and so reach large chunks sooner.  The two
 * share this file because they differ only in the growth rule. */
#include <math.h>
#include <stdint.h>

#include "mapper/split_core.h"

static size_t first_block(const hs__selfsched *s, int d)
{
    return hs__split_round_up(s->opt.initial_block ? s->opt.initial_block : 128,
                              s->core.dev[d].width);
}

static size_t linear_rule(hs__selfsched *s, int d, size_t left)
{
    size_t step = hs__split_round_up(s->opt.block_factor ? s->opt.block_factor : 128,
                                     s->core.dev[d].width);
    size_t k = s->asks[d], b = first_block(s, d);
    (void)left;
    if (k > 0 && step > (SIZE_MAX - b) / k)
        return SIZE_MAX;
    return b + k * step;
}

static size_t exp_rule(hs__selfsched *s, int d, size_t left)
{
    double m = s->opt.tse_factor > 0 ? s->opt.tse_factor : 2.0;
    double b = (double)first_block(s, d) * pow(m, (double)s->asks[d]);
    (void)left;
    return b >= (double)s->n ? s->n : (size_t)b;
}

static int linear_start(const hs_split_kernel *k, const hs_split_device *dev, int ndev,
                        const hs_split_options *opt, const hs_split_memory *mem, void **state,
                        hs_error *err)
{
    (void)mem;
    return hs__selfsched_start(k, dev, ndev, opt, linear_rule, (hs__selfsched **)state, err);
}

static int exp_start(const hs_split_kernel *k, const hs_split_device *dev, int ndev,
                     const hs_split_options *opt, const hs_split_memory *mem, void **state,
                     hs_error *err)
{
    (void)mem;
    if (opt && opt->tse_factor != 0 && !(opt->tse_factor > 1))
        return hs_error_set(err, HS_EINPUT, "tse-exp: tse_factor must be > 1");
    return hs__selfsched_start(k, dev, ndev, opt, exp_rule, (hs__selfsched **)state, err);
}

const hs_splitter hs__split_tse_linear = {
    .name = "tse-linear",
    .description = "Tse linear incremental: each device's chunks grow by block_factor items",
    .flags = HS_SPLIT_SURVIVES_FAILURE,
    .start = linear_start,
    .next = hs__selfsched_next,
    .finished = hs__selfsched_finished,
    .fini = hs__selfsched_fini,
};

const hs_splitter hs__split_tse_exp = {
    .name = "tse-exp",
    .description = "Tse exponential incremental: each device's chunks grow by tse_factor",
    .flags = HS_SPLIT_SURVIVES_FAILURE,
    .start = exp_start,
    .next = hs__selfsched_next,
    .finished = hs__selfsched_finished,
    .fini = hs__selfsched_fini,
};
