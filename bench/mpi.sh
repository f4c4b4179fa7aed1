#!/usr/bin/env bash
# A run across nodes (mpirun -np N hetsched run) against its prediction and
# against the same workload run in one process: for N = 2 and 4 nodes of one
# cpu device each (one core), a fork-join and a random graph of cost-only
# tasks (each sleeps its cost, so the kernels take what the model says and
# the gap is the runtime's and the network's), each policy of POLICIES; the
# median of REPS runs of measured makespan, predicted makespan (executor
# model) and their ratio, in one process and across N ranks.  Then a chain
# of HOPS cost-only tasks alternating between two nodes (each costs COST on
# its node only), whose gap to the prediction, per hop, is what one message
# between ranks costs beside the model's 2 us.
#
#   bench/mpi.sh HETSCHED [N...]
#
# Environment: REPS (5), POLICIES ("heft dmda"), COST (task cost, us:
# 10000), HOPS (40).  On this machine's loopback (Open MPI's shared memory transport).
set -uo pipefail
bin=${1:?usage: bench/mpi.sh HETSCHED [N...]}
shift
nodes=("$@")
[ ${#nodes[@]} -gt 0 ] || nodes=(2 4)
reps=${REPS:-5}
policies=${POLICIES:-heft dmda}
cost=${COST:-10000}
hops=${HOPS:-40}
mpi=(mpirun --oversubscribe)
[ "$(id -u)" -eq 0 ] && mpi+=(--allow-run-as-root)
export OMPI_MCA_btl=self,vader
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

# measure NP WORKLOAD POLICY: "measured predicted" medians over $reps runs
# (NP 0: one process)
measure() {
    local np=$1 wl=$2 p=$3 out
    : >"$tmp/m"
    : >"$tmp/p"
    for ((i = 0; i < reps; i++)); do
        if [ "$np" -eq 0 ]; then
            out=$("$bin" run -a "$p" "$wl" --check none 2>&1)
        else
            out=$("${mpi[@]}" -np "$np" "$bin" run -a "$p" "$wl" --check none 2>&1)
        fi || {
            printf '%s\n' "$out" >&2
            return 1
        }
        printf '%s\n' "$out" | sed -n 's/.*measured makespan \([0-9.]*\) us.*/\1/p' >>"$tmp/m"
        printf '%s\n' "$out" | sed -n 's/^predicted makespan \([0-9.]*\) us.*/\1/p' >>"$tmp/p"
    done
    echo "$(median <"$tmp/m") $(median <"$tmp/p")"
}

printf '%-10s %5s %-6s %14s %14s %8s %14s %8s\n' graph nodes policy predicted_us \
    one_proc_us ratio mpi_us ratio
for n in "${nodes[@]}"; do
    "$bin" gen fork-join --width $((2 * n)) --depth 4 --cost "$cost" --bytes 1000 \
        --devices cpu:1 --cores 1 --nodes "$n" -o "$tmp/fj$n.yaml" || exit 1
    "$bin" gen random --tasks 100 --mean-cost "$cost" --ccr 0.01 --devices cpu:1 --cores 1 \
        --nodes "$n" --seed 3 -o "$tmp/rnd$n.yaml" || exit 1
    for g in fj rnd; do
        for p in $policies; do
            read -r m1 pred < <(measure 0 "$tmp/$g$n.yaml" "$p") || exit 1
            read -r mn _ < <(measure "$n" "$tmp/$g$n.yaml" "$p") || exit 1
            printf '%-10s %5d %-6s %14.1f %14.1f %8.3f %14.1f %8.3f\n' "$g" "$n" "$p" "$pred" \
                "$m1" "$(echo "$m1 / $pred" | bc -l)" "$mn" "$(echo "$mn / $pred" | bc -l)"
        done
    done
done

# the chain: task k on node k % 2, 1000-byte edges
{
    cat <<EOF
platform:
  nodes:
  - {name: n0, host: host, devices: [{name: n0.cpu0, kind: cpu, memory: host, cores: 1}]}
  - {name: n1, host: n1.host, devices: [{name: n1.cpu0, kind: cpu, memory: n1.host, cores: 1}]}
  network:
  - {from: n0, to: n1, bandwidth_gbps: 12.5, latency_us: 2}
  - {from: n1, to: n0, bandwidth_gbps: 12.5, latency_us: 2}
applications:
- name: chain
  kernels:
EOF
    for ((k = 0; k < hops; k++)); do
        echo "  - {name: t$k, cost_us: {n$((k % 2)).cpu0: $cost, n$(((k + 1) % 2)).cpu0: 1e9}}"
    done
    echo "  edges:"
    for ((k = 1; k < hops; k++)); do
        echo "  - {from: t$((k - 1)), to: t$k, bytes: 1000}"
    done
} >"$tmp/chain.yaml"
read -r m1 pred < <(measure 0 "$tmp/chain.yaml" heft) || exit 1
read -r m2 _ < <(measure 2 "$tmp/chain.yaml" heft) || exit 1
printf '\nchain of %d tasks across 2 nodes (heft): predicted %.1f us, one process %.1f us, ' \
    "$hops" "$pred" "$m1"
printf '2 ranks %.1f us: %.1f us per hop beyond the prediction (one process: %.1f)\n' "$m2" \
    "$(echo "($m2 - $pred) / ($hops - 1)" | bc -l)" "$(echo "($m1 - $pred) / ($hops - 1)" | bc -l)"
