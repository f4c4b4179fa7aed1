#!/usr/bin/env bash
# A workload of many tasks end to end from the command line: for each size,
#   hetsched gen random --tasks N -o W.json          (or W.yaml: --format yaml)
#   hetsched map -a heft W.json --json S.json
#   hetsched validate W.json S.json
# and one row per step with its CPU seconds (user + system), the wall time,
# the peak resident set (from /usr/bin/time -v), that peak less the startup
# row's (the binary and its libraries: CUDA's take some 270 MB where they are
# linked) per task, and the output's size.
#
# usage: bench/million.sh [--tasks LIST] [--format json|yaml|json,yaml]
#                         [--hetsched PATH] [--keep DIR]
#   --tasks LIST     comma-separated sizes (10000,100000,1000000)
#   --format LIST    the workload's forms, each size run in each (json)
#   --hetsched PATH  the binary (default: $HETSCHED, else build/cli/hetsched);
#                    a comma-separated list of binaries runs each in turn
#                    (before and after a change, side by side: the `bin`
#                    column numbers them)
#   --keep DIR       keep the files there (default: a temporary directory,
#                    removed at the end)
# Sizes past 1000000 raise HETSCHED_MAX_TASKS, HETSCHED_YAML_MAX_MIB and
# HETSCHED_JSON_MAX_MIB (unless set).  The runs are sequential; a step that
# fails prints its status and message in its row, and the script goes on to
# the next size.  Exit status 0 when every step succeeded, 1 when one did
# not, 2 on bad usage.
set -uo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

tasks=10000,100000,1000000
bins=${HETSCHED:-build/cli/hetsched}
formats=json
keep=
usage="usage: bench/million.sh [--tasks LIST] [--format json|yaml|json,yaml] [--hetsched PATH[,PATH]] [--keep DIR]"
while [ $# -gt 0 ]; do
    case "$1" in
    --tasks) tasks=${2:?}; shift 2 ;;
    --format) formats=${2:?}; shift 2 ;;
    --hetsched) bins=${2:?}; shift 2 ;;
    --keep) keep=${2:?}; shift 2 ;;
    *) echo "$usage" >&2; exit 2 ;;
    esac
done
IFS=, read -ra binlist <<<"$bins"
IFS=, read -ra formlist <<<"$formats"
for bin in "${binlist[@]}"; do
    [ -x "$bin" ] || { echo "bench/million.sh: no binary $bin (build first)" >&2; exit 2; }
done
for form in "${formlist[@]}"; do
    case "$form" in json | yaml) ;; *) echo "$usage" >&2; exit 2 ;; esac
done
[ -x /usr/bin/time ] || { echo "bench/million.sh: needs /usr/bin/time (Debian's time)" >&2; exit 2; }
work_dir dir "$keep"

status=0
# step NAME OUTPUT COMMAND...: runs it under /usr/bin/time -v, prints a row
step() {
    local name=$1 out=$2 n=$3
    shift 3
    local log=$dir/time.log err=$dir/err.log rc
    /usr/bin/time -v -o "$log" "$@" >"$dir/stdout.log" 2>"$err"
    rc=$?
    local user sys wall rss size
    user=$(sed -n 's/^\s*User time (seconds): //p' "$log")
    sys=$(sed -n 's/^\s*System time (seconds): //p' "$log")
    wall=$(sed -n 's/^\s*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$log")
    rss=$(sed -n 's/^\s*Maximum resident set size (kbytes): //p' "$log")
    size=-
    [ -n "$out" ] && [ -f "$out" ] && size=$(($(stat -c %s "$out") / 1024))
    [ "$name" = startup ] && base_rss=$rss
    printf '%-3s %-4s %-9s %-9s %8.2f %9s %10.1f %8.0f %10s' "$b" "$form" "$n" "$name" \
        "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" "$wall" \
        "$(awk -v r="$rss" 'BEGIN { print r / 1024 }')" \
        "$(awk -v r="$rss" -v b="$base_rss" -v n="$n" 'BEGIN { printf "%d", (r - b) * 1024 / n }')" \
        "$size"
    if [ $rc -ne 0 ]; then
        printf '  FAILED (status %d: %s)' $rc "$(head -c 200 "$err" | head -n 1)"
        status=1
    fi
    printf '\n'
    return $rc
}

echo "# $(uname -n) $(date -u +%FT%TZ) load: $(cut -d' ' -f1-3 /proc/loadavg)"
for b in "${!binlist[@]}"; do echo "# bin $b: ${binlist[$b]}"; done
printf '%-3s %-4s %-9s %-9s %8s %9s %10s %8s %10s\n' bin form tasks step cpu_s wall rss_MiB \
    B/task out_KiB
IFS=, read -ra sizes <<<"$tasks"
# past a million tasks the readers' limits must be raised (README: Workloads): the
# task limit to the largest size, the caps of the workload (235 MB a million tasks)
# and of the schedule (530 MB) to their most
most=0
for n in "${sizes[@]}"; do [ "$n" -gt "$most" ] 2>/dev/null && most=$n; done
if [ "$most" -gt 1000000 ]; then
    export HETSCHED_MAX_TASKS=${HETSCHED_MAX_TASKS:-$most}
    export HETSCHED_YAML_MAX_MIB=${HETSCHED_YAML_MAX_MIB:-1048576}
    export HETSCHED_JSON_MAX_MIB=${HETSCHED_JSON_MAX_MIB:-1048576}
fi
# each size, then each form, then each binary: the rows to compare come together
for n in "${sizes[@]}"; do
    for form in "${formlist[@]}"; do
        for b in "${!binlist[@]}"; do
            bin=${binlist[$b]}
            base_rss=0
            step startup "" 1 "$bin" --version
            w=$dir/random-$n-$b.$form s=$dir/heft-$n-$b-$form.json
            step gen "$w" "$n" "$bin" gen random --tasks "$n" -o "$w" || continue
            step map "$s" "$n" "$bin" map -a heft "$w" --json "$s" || continue
            step validate "" "$n" "$bin" validate "$w" "$s"
            [ -n "$keep" ] || rm -f "$w" "$s"
        done
    done
done
exit $status
