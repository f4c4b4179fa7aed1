/* hetsched — internal: the book-keeping every splitter shares
 * (hetsched/split.h): which items were never handed out, which chunk each
 * device holds, what each device measured, and the taking back of a chunk
 * whose device stopped answering.
 *
 * Items are handed out from a contiguous pool [next, items) (the "global
 * pointer" of self-scheduling) or, for splitters that cut their own ranges
 * (static, kass, coretsar, qilin), as explicit ranges; either way the core
 * records the chunk in flight, so that a revoked chunk can be handed out
 * again and its late result refused.
 *
 * Taking back (for splitters with HS_SPLIT_SURVIVES_FAILURE): when device a
 * has nothing left to do and device e holds a chunk of U items handed out
 * at issued_e and taken back k times before, e is judged to have stopped
 * answering at
 *     issued_e + 2^k max(FLOOR, min(P_e + 2 P_a, 3 P'_e))
 * with P_x the time device x is expected to take for U items: U / rate_x,
 * but no less than its shortest chunk so far or its overhead hint (a small
 * chunk still pays the fixed cost), 0 when nothing is known of x (P_a is
 * then P'_e).  The first term waits until e is late by twice the time a
 * would need to redo the chunk: a device that has finished nothing while
 * another could have done its whole chunk twice over loses it (Boyer Sec.
 * 4.2), and a fast device takes over a slow one's chunk soon.  The factor 2
 * keeps a device that is only slowed down (throttled) from losing work it
 * would still finish first.  The second term bounds the wait by 3 times the
 * chunk's own expected time, P'_e = P_e, or when nothing is known of e U
 * times the mean time per item of the chunks finished so far (else
 * HS__SPLIT_BLIND_US): without it a slow device waited twice its own time
 * for the whole kernel on a fast one that died holding a chunk (904 ms of
 * the 446 ms the CPU alone takes in `split -p hdss pi --sim --fail
 * gpu0:5`).  A device slowed down more than 3 times may lose a chunk it
 * would have finished first.  FLOOR, 1 ms, is more than a kernel launch and
 * its synchronisation or the wake-up of a sleeping thread, so that a tiny
 * chunk is not taken back from a device merely slow to be scheduled (on a
 * loaded machine a preempted thread may still be late by more: that costs
 * time, never a result).  The factor 2^k lets a chunk passed among slow
 * devices settle with one of them.  The chunk a revoked device was running
 * is measured all the same when it comes back (its result refused), and the
 * device takes part again: dead and slow cannot be told apart, so a wrong
 * guess costs the chunk, not the device.
 */
#ifndef HS_MAPPER_SPLIT_CORE_H
#define HS_MAPPER_SPLIT_CORE_H

#include <stddef.h>

#include "mapper/split.h"

#define HS__SPLIT_PATIENCE 2.0       /* the first term's 2 */
#define HS__SPLIT_DEAD_FACTOR 3.0    /* the bound's 3 */
#define HS__SPLIT_DEAD_FLOOR_US 1000.0
#define HS__SPLIT_BLIND_US 1e6 /* see judged_dead_at in split_core.c */

typedef struct hs__split_range {
    size_t begin, end;
    int strikes;          /* times these items were taken back already */
} hs__split_range;

typedef struct hs__split_dev {
    int busy;             /* holds a chunk (handed out, or reserved for it) */
    int handed;           /* ... and was told about it */
    size_t b, e;          /* that chunk */
    int strikes;          /* ... taken back that often before */
    double issued_us;
    int revoked;          /* the chunk was taken back: refuse its result */
    int retired;          /* gets no more work (until a late report shows it
                             alive) */
    size_t nfinished;     /* accepted chunks */
    size_t items_done;
    double busy_us;       /* sum of accepted chunk times */
    size_t last_items;    /* last chunk that ran to the end (accepted or */
    double last_us;       /* not: either way it measured the device) */
    double min_us;        /* shortest such chunk, a floor for any; 0 none */
} hs__split_dev;

typedef struct hs__split_core {
    const hs_split_kernel *k;
    const hs_split_device *dev;
    int ndev;
    size_t items;
    size_t next;                /* [next, items) never handed out */
    hs__split_range *again;     /* taken back, to hand out again (FIFO) */
    size_t again_head, nagain, capagain;
    int survive;
    hs__split_dev d[HS_SPLIT_MAX_DEVICES];
} hs__split_core;

/* Checks the arguments every start hook receives (1..HS_SPLIT_MAX_DEVICES
 * devices with names and widths >= 1, N >= 1, finite non-negative hints)
 * and sets c up.  HS_EINPUT with a one-line message otherwise. */
int hs__split_core_init(hs__split_core *c, const hs_split_kernel *k,
                        const hs_split_device *dev, int ndev, int survive, hs_error *err);
void hs__split_core_free(hs__split_core *c);

/* Items never handed out plus items taken back and not handed out again. */
size_t hs__split_left(const hs__split_core *c);

/* Hands device d up to `want` (>= 1) items: first from the taken-back
 * ranges, else from the pool.  CHUNK, or STOP when nothing is left. */
hs_split_answer hs__split_give(hs__split_core *c, int d, size_t want, double now,
                               hs_split_grant *g);
/* Hands d the range [b, e) that the caller cut itself (b < e). */
hs_split_answer hs__split_give_range(hs__split_core *c, int d, size_t b, size_t e, double now,
                                     hs_split_grant *g);
/* Reserves [b, e) for idle device d as if handed out now (it counts as in
 * flight for taking back); hs__split_claim hands it over on d's next ask. */
void hs__split_reserve(hs__split_core *c, int d, size_t b, size_t e, double now);
/* If d holds a reserved chunk not yet handed, hands it: CHUNK; else STOP. */
hs_split_answer hs__split_claim(hs__split_core *c, int d, hs_split_grant *g);

/* Records the end of d's chunk: 1 if it counts, 0 if it was taken back (or
 * is not the chunk d holds).  A device whose taken-back chunk comes back
 * late is alive after all: it is no longer retired. */
int hs__split_done(hs__split_core *c, int d, size_t b, size_t e, double us);

/* What an idle device with nothing of its own to do gets: taken-back work,
 * a chunk taken back now from a device judged dead (when c->survive), WAIT
 * while others still run (wake_us: when the next one would be judged
 * dead), or STOP. */
hs_split_answer hs__split_idle(hs__split_core *c, int d, double now, hs_split_grant *g);

/* Takes back e's chunk (to hand out again) and retires e. */
void hs__split_revoke(hs__split_core *c, int e);

/* Items/µs d achieved on its last accepted chunk, else its hint, else 0. */
double hs__split_rate(const hs__split_core *c, int d);
/* Relative work of [b, e) (item units). */
double hs__split_work(const hs_split_kernel *k, size_t b, size_t e);
/* Smallest multiple of w (>= 1) that is >= x. */
size_t hs__split_round_up(size_t x, size_t w);

/* Water-filling of eq. (2)-(3) of Boyer et al. and of Qilin's split: n
 * devices, device i free after lambda[i] µs and then taking omega[i] µs per
 * item (> 0).  Finds the level T with sum_i max(0, (T - lambda_i) /
 * omega_i) = w over the devices other than `skip` (-1: none); a device
 * with lambda_i > T gets nothing.  Stores T in *level (HUGE_VAL when no
 * device takes part) and returns when the last of them is done,
 * max(T, lambda_i). */
double hs__split_level(int n, const double *lambda, const double *omega, int skip, double w,
                       double *level);

/* ------------------------------------------------- self-scheduling skeleton
 * The splitters that hand out pool chunks whose size depends only on what
 * is left and on who asks (ss, fixed, gss, fss, tss, tse-*) share these
 * hooks; each file supplies the size rule. */

typedef struct hs__selfsched hs__selfsched;
/* Size of the chunk for device d when `left` (>= 1) items remain. */
typedef size_t (*hs__chunk_rule)(hs__selfsched *s, int d, size_t left);

struct hs__selfsched {
    hs__split_core core;
    hs_split_options opt;
    hs__chunk_rule rule;
    size_t p, n;                       /* devices, items */
    size_t asks[HS_SPLIT_MAX_DEVICES]; /* chunks handed to each device */
    size_t issued;                     /* chunks handed in all */
    size_t first, last, count;         /* rule-specific sizes (tss, fss) */
    size_t batch_left;                 /* fss: chunks left in the batch */
};

/* Allocates the state with `rule` and the options, and sets the core up
 * (chunks of a device judged dead are handed out again). */
int hs__selfsched_start(const hs_split_kernel *k, const hs_split_device *dev, int ndev,
                        const hs_split_options *opt, hs__chunk_rule rule, hs__selfsched **out,
                        hs_error *err);
hs_split_answer hs__selfsched_next(void *state, int d, double now, hs_split_grant *g);
int hs__selfsched_finished(void *state, int d, size_t b, size_t e, double us, double now);
void hs__selfsched_fini(void *state);

#endif
