/* hetsched — driving a splitter from real threads, one per device
 * (hetsched/split.h "Threads").  The CPU and CUDA backends run their chunks
 * through this; tests run it with plain functions.
 *
 * Each device thread loops: under the driver's mutex it asks next(); on a
 * chunk it unlocks, calls run(user, device, begin, end, aside) and times it with
 * CLOCK_MONOTONIC, then reports finished() under the mutex and wakes every
 * waiting thread; on WAIT it sleeps on the condition variable until another
 * thread reports or wake_us passes; on STOP it ends.  Times are µs since
 * every device thread was up (the clock starts then).  A run() that
 * returns an error stands for a device that stopped answering: its thread
 * ends without reporting the chunk, which a splitter with
 * HS_SPLIT_SURVIVES_FAILURE then hands to the others.
 *
 * Runs of one item never share bytes.  A splitter hands an item out more
 * than once only when it took the item's chunk back from a device judged
 * dead, and that device may still be running it (it was only slow), so
 * the driver keeps the spans of items handed out so far: a chunk holding
 * any of them runs aside (into its device's own buffers), and once every
 * thread has ended, commit() copies the results of the accepted chunks
 * that ran aside over whatever the first runs left.  The first run of an
 * item writes in place and costs nothing extra.
 * In wavefront mode (-o wavefront, mapper/split.h) a chunk handed out
 * before the upper or left neighbour of one of its tiles was reported
 * stops every thread and fails the drive with HS_EINTERNAL.
 */
#ifndef HS_EXEC_SPLIT_DRIVE_H
#define HS_EXEC_SPLIT_DRIVE_H

#include <stddef.h>

#include "hetsched/error.h"
#include "mapper/split.h"

/* Runs items [b, e) on device d; 0, or a negative HS_E* code.  `aside` is
 * 1 when some of these items were handed out before in this drive (a chunk
 * taken back from a device judged dead, which may still be running it):
 * the run must then write its results where no other run writes (the
 * device's own buffers) and keep them for commit; 0: the first run of
 * every item, which may write in place. */
typedef int (*hs_split_run_fn)(void *user, int device, size_t b, size_t e, int aside);

/* Prepares device d before its first ask, on its own thread (a GPU copies
 * the inputs every chunk reads whole); 0, or a negative HS_E* code, which
 * counts as the device failing.  Its time is part of wall_us, not of any
 * chunk. */
typedef int (*hs_split_prep_fn)(void *user, int device);

/* Waits, on device d's own thread after its last chunk, for work its
 * chunks left under way (a GPU's last output copy); 0, or a negative HS_E*
 * code, which fails the device and the drive.  Its time is part of the
 * device's busy and finish times. */
typedef int (*hs_split_drain_fn)(void *user, int device);

/* Moves the results of the accepted chunk [b, e) that device d ran aside
 * to where the first runs wrote theirs.  Called on the caller's thread
 * once every device thread has ended, so no run still writes anywhere:
 * the result kept for an item is always the accepted one, whichever run
 * of it ended first or last.  (So no run may read another chunk's results
 * during the drive.)  Its time is part of wall_us only. */
typedef void (*hs_split_commit_fn)(void *user, int device, size_t b, size_t e);

typedef struct hs_split_drive_ops {
    hs_split_prep_fn prep;     /* NULL: none */
    hs_split_run_fn run;       /* required */
    hs_split_drain_fn drain;   /* NULL: none */
    hs_split_commit_fn commit; /* NULL: results run aside are dropped */
} hs_split_drive_ops;

typedef struct hs_split_drive_record {
    int device;
    size_t begin, end;
    double start_us, end_us;
    int accepted;
} hs_split_drive_record;

typedef struct hs_split_drive_stats {
    double wall_us;                           /* the whole drive */
    size_t items[HS_SPLIT_MAX_DEVICES];       /* accepted */
    size_t chunks[HS_SPLIT_MAX_DEVICES];      /* accepted */
    size_t refused[HS_SPLIT_MAX_DEVICES];
    int failed[HS_SPLIT_MAX_DEVICES];         /* its run() returned an error */
    double busy_us[HS_SPLIT_MAX_DEVICES];     /* chunk times, refused ones too */
    double prep_us[HS_SPLIT_MAX_DEVICES];     /* its prep() */
    double finish_us[HS_SPLIT_MAX_DEVICES];   /* end of its last accepted chunk
                                                 (and of its drain) */
    /* Chunk records: the caller sets `records` to room for max_records
     * before the drive (it keeps both); the drive fills nrecords. */
    hs_split_drive_record *records;
    size_t max_records, nrecords;
} hs_split_drive_stats;

/* Drives sp over kernel k on ndev device threads with ops; user is
 * passed to every op.  opt, mem and st may be NULL.  The records of st are
 * kept when the caller gave room for them (st->records, st->max_records);
 * the rest of st is zeroed.  Returns 0 once every item was accepted exactly
 * once; HS_EINTERNAL when the splitter stopped every thread with items
 * left (or accepted an item twice), HS_EIO when threads cannot be made or
 * a drain failed, HS_ENOMEM. */
int hs_split_drive(const hs_splitter *sp, const hs_split_kernel *k, const hs_split_device *dev,
                   int ndev, const hs_split_options *opt, hs_split_memory *mem,
                   const hs_split_drive_ops *ops, void *user, hs_split_drive_stats *st,
                   hs_error *err);

#endif
