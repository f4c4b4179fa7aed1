#!/usr/bin/env bash
# The splitters' table on the devices of this machine (the CPU and every
# CUDA GPU): every splitter on a transfer-bound kernel (va, 2^24 elements),
# a compute-bound one (xgemm by rows, 8192^3) and Monte-Carlo pi (2^30
# samples): time, efficiency, imbalance and chunks per device, then the best
# static split (5% steps) and each device alone.
#
#   bench/split_table.sh HETSCHED [SPLIT_OPTION...]
#
# HETSCHED is the built binary (a -Dcuda=enabled build to use the GPUs);
# extra options go to every `hetsched split` (e.g. --devices cpu,gpu0,
# --repeat 5, -o initial_block=1024).  Each figure is the median of
# --repeat runs (3 unless given).  `ss` (one item per chunk) runs only on
# the kernel of fewer than 65536 items: on the others it would take
# millions of chunks.  Full reports go to $SPLIT_TABLE_LOG when it is set.
# The README's table (H100 host, 16 cores) was taken with the CPU device
# on 15 threads; the default is now 14 (--cpu-threads 15 reproduces it).
# Exit status: 0, or 1 when a run failed (its check, say).
set -uo pipefail
bin=${1:?usage: bench/split_table.sh HETSCHED [SPLIT_OPTION...]}
shift
log=${SPLIT_TABLE_LOG:-/dev/null}
repeat=(--repeat 3)
for a in "$@"; do
    [ "$a" = --repeat ] && repeat=()
done

all=$("$bin" split -p help | awk 'NR > 1 { print $1 }' | paste -sd, -) || exit 1
status=0
for kernel in va xgemm-rows pi; do
    list=$all
    [ "$kernel" != xgemm-rows ] &&
        list=$(echo "$all" | sed -e 's/^ss,//' -e 's/,ss,/,/' -e 's/,ss$//')
    echo "== $kernel"
    out=$("$bin" split -p "$list" "$kernel" --best-static "${repeat[@]}" "$@" 2>&1) || status=1
    printf '%s\n' "$out" >>"$log"
    # the header lines and the summary table
    printf '%s\n' "$out" | grep -E '^(kernel|alone|best static|\||hetsched)'
    echo
done
exit "$status"
