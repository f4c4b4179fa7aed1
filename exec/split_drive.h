/* hetsched — driving a splitter from real threads, one per device
 * (mapper/split.h "Threads").  The CPU and CUDA backends run their chunks
 * through this; tests run it with plain functions.
 *
 * Each device thread loops: under the driver's mutex it asks next(); on a
 * chunk it unlocks, calls run(user, device, begin, end) and times it with
 * CLOCK_MONOTONIC, then reports finished() under the mutex and wakes every
 * waiting thread; on WAIT it sleeps on the condition variable until another
 * thread reports or wake_us passes; on STOP it ends.  Times are µs since
 * every device thread was up (the clock starts then).  A run() that
 * returns an error stands for a device that stopped answering: its thread
 * ends without reporting the chunk, which a splitter with
 * HS_SPLIT_SURVIVES_FAILURE then hands to the others.
 * In wavefront mode (-o wavefront, mapper/split.h) a chunk handed out
 * before the upper or left neighbour of one of its tiles was reported
 * stops every thread and fails the drive with HS_EINTERNAL.
 */
#ifndef HS_EXEC_SPLIT_DRIVE_H
#define HS_EXEC_SPLIT_DRIVE_H

#include <stddef.h>

#include "hetsched/error.h"
#include "mapper/split.h"

/* Runs items [b, e) on device d; 0, or a negative HS_E* code. */
typedef int (*hs_split_run_fn)(void *user, int device, size_t b, size_t e);

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

/* Drives sp over kernel k on ndev device threads.  opt, mem and st may be
 * NULL.  Returns 0 once every item was accepted exactly once; HS_EINTERNAL
 * when the splitter stopped every thread with items left (or accepted an
 * item twice), HS_ENOMEM / HS_EIO when threads cannot be made. */
int hs_split_drive(const hs_splitter *sp, const hs_split_kernel *k, const hs_split_device *dev,
                   int ndev, const hs_split_options *opt, hs_split_memory *mem,
                   hs_split_run_fn run, void *user, hs_split_drive_stats *st, hs_error *err);

/* hs_split_drive with prep (may be NULL) called on each device's thread
 * before its first ask and drain (may be NULL) after its last chunk.  The
 * records of st, when st has room for them, are kept: set st->records and
 * st->max_records, the rest is zeroed. */
int hs_split_drive_prep(const hs_splitter *sp, const hs_split_kernel *k,
                        const hs_split_device *dev, int ndev, const hs_split_options *opt,
                        hs_split_memory *mem, hs_split_prep_fn prep, hs_split_run_fn run,
                        hs_split_drain_fn drain, void *user, hs_split_drive_stats *st,
                        hs_error *err);

#endif
