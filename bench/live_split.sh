#!/usr/bin/env bash
# Splitting at run time against fractions fixed before the run: `hetsched
# run --split SPLITTER` (live: each free device joins a split kernel, the
# splitter sizes chunks from measured chunk times) and `--split-mode planned`
# (the chunk simulator fixes each device's share from the workload's costs),
# each with every device at its speed and with one cpu device throttled;
# the median measured makespan of REPS runs of each, and live / planned.
#
#   bench/live_split.sh HETSCHED WORKLOAD THROTTLE [RUN_OPTION...]
#
# THROTTLE is DEVICE:FACTOR for `run --throttle` (a cpu device); extra
# options go to every run (--backend, --devices, -a, --check).  Defaults:
# -a heft, --split hdss, --check none, REPS=5 (environment).  For example,
# on any machine:
#   bench/live_split.sh build/cli/hetsched workloads/split-small.yaml cpu1:4 \
#       --backend cpu --devices cpu0,cpu1
# Exit status: 0, or 1 when a run failed.
set -uo pipefail
bin=${1:?usage: bench/live_split.sh HETSCHED WORKLOAD THROTTLE [RUN_OPTION...]}
wl=${2:?workload}
throttle=${3:?throttle DEVICE:FACTOR}
shift 3
reps=${REPS:-5}
splitter=${SPLITTER:-hdss}
algo=(-a heft)
for a in "$@"; do
    [ "$a" = -a ] && algo=()
done

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

# median makespan (us) of $reps runs with the given options
median_makespan() {
    local out ms=()
    for ((i = 0; i < reps; i++)); do
        out=$("$bin" run "${algo[@]}" --check none --split "$splitter" "$wl" "$@" 2>&1) || {
            printf '%s\n' "$out" >&2
            return 1
        }
        ms+=("$(printf '%s\n' "$out" | sed -n 's/.*measured makespan \([0-9.]*\) us.*/\1/p')")
    done
    printf '%s\n' "${ms[@]}" | median
}

echo "workload $wl, splitter $splitter, median of $reps runs; options: $*"
printf '%-22s %14s %14s %14s\n' "devices" "planned (us)" "live (us)" "live/planned"
status=0
for slow in "" "$throttle"; do
    t=()
    [ -n "$slow" ] && t=(--throttle "$slow")
    p=$(median_makespan --split-mode planned "${t[@]}" "$@") || status=1
    l=$(median_makespan --split-mode live "${t[@]}" "$@") || status=1
    printf '%-22s %14s %14s %14s\n' "${slow:-all at speed}" "$p" "$l" \
        "$(awk -v a="$l" -v b="$p" 'BEGIN { if (b > 0) printf "%.3f", a / b }')"
done
exit $status
