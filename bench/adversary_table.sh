#!/usr/bin/env bash
# Every policy's worst makespan ratio to the optimum that `hetsched
# adversary` finds: for each registered policy, --seeds searches (seeds 0,
# 1, ...) of --iterations steps over workloads of --tasks tasks on --devices
# devices; the table gives the largest ratio of them, the workload's size,
# the seed that found it and the time all the searches of the policy took.
#
#   bench/adversary_table.sh HETSCHED [--iterations N] [--seeds K]
#                            [--tasks A-B] [--devices A-B] [--keep DIR]
#
# Defaults: 1000 steps, 3 seeds, 3-5 tasks (PISA's sizes), 2-3 devices.
# --keep DIR writes each policy's worst workload as DIR/POLICY.yaml (read
# it back with `hetsched compare DIR/POLICY.yaml --optimal`).  ad-part, the
# one policy that splits tasks, may beat the whole-task optimum: its ratio
# can fall below 1.  Exit status: 0, or 1 when a search failed.
set -uo pipefail
bin=${1:?usage: bench/adversary_table.sh HETSCHED [--iterations N] [--seeds K] [--tasks A-B] [--devices A-B] [--keep DIR]}
shift
iterations=1000 seeds=3 tasks=3-5 devices=2-3 keep=
while [ $# -gt 0 ]; do
    case $1 in
    --iterations) iterations=$2 ;;
    --seeds) seeds=$2 ;;
    --tasks) tasks=$2 ;;
    --devices) devices=$2 ;;
    --keep) keep=$2 ;;
    *)
        echo "adversary_table.sh: unknown option '$1'" >&2
        exit 2
        ;;
    esac
    shift 2
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -n "$keep" ] && mkdir -p "$keep"
echo "# $seeds searches of $iterations steps per policy, $tasks tasks, $devices devices"
printf '%-11s %11s %6s %8s %5s %8s\n' policy "worst ratio" tasks devices seed seconds
status=0
for p in $("$bin" map -a help | awk 'NR > 1 { print $1 }'); do
    worst=0 wseed= wtasks= wdev= start=$SECONDS
    for ((s = 0; s < seeds; s++)); do
        if ! "$bin" adversary -a "$p" --seed "$s" --iterations "$iterations" --tasks "$tasks" \
            --devices "$devices" -o "$tmp/$p-$s.yaml" >"$tmp/out" 2>&1; then
            echo "$p, seed $s: $(tail -1 "$tmp/out")" >&2
            status=1
            continue
        fi
        read -r ratio nt nd < <(awk '/^worst ratio/ {sub(":", "", $3); r = $3}
            /^worst workload/ {print r, $3, $7}' "$tmp/out")
        if awk -v a="$ratio" -v b="$worst" 'BEGIN { exit !(a > b) }'; then
            worst=$ratio wseed=$s wtasks=$nt wdev=$nd
            [ -n "$keep" ] && cp "$tmp/$p-$s.yaml" "$keep/$p.yaml"
        fi
    done
    printf '%-11s %11s %6s %8s %5s %8d\n' "$p" "$worst" "$wtasks" "$wdev" "$wseed" \
        $((SECONDS - start))
done
exit "$status"
