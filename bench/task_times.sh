#!/usr/bin/env bash
# Where a short run's time goes: runs `hetsched run` on a workload several
# times with its Chrome traces (--trace, --predicted-trace) and sets each
# task's measured times beside the prediction's, task by task in the order
# the prediction starts them:
#
#   predicted  the task's kernel in the prediction (the model's cost, us)
#   kernel     its kernel as measured: median (min) over the runs
#   held       how long its device held it before the kernel started (inputs
#              on their way, the worker waking, what the data manager did)
#
# (a split task's parts summed), then the makespan measured beside
# predicted, and the medians over the runs of the sum of the kernels, of the
# holds and of the rest (the engine's steps, gaps, copies nobody waited
# for), beside the prediction's.  Meant for workloads of
# a few tasks (the Fig. 4 benchmarks alone), where a fixed cost per run
# shows; run it under `chrt -f 10` on a loaded machine to keep other
# processes off the cores while it measures.
#
# usage: bench/task_times.sh [options] WORKLOAD -- RUN-OPTIONS...
#   --runs N          runs (default 10)
#   --hetsched PATH   the binary (default: $HETSCHED, else build/cli/hetsched)
#   --keep DIR        keep each run's output and traces there
#   RUN-OPTIONS       hetsched run's options (-a POLICY is required)
# Exit status 0, 1 when a run failed, 2 on bad usage.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=10 keep="" hetsched=${HETSCHED:-$root/build/cli/hetsched} workload=""

# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"
while [ $# -gt 0 ]; do
    case "$1" in
    -h | --help) usage ;;
    --runs | --hetsched | --keep)
        [ $# -ge 2 ] || die "$1 needs a value"
        case "$1" in
        --runs) runs=$2 ;;
        --hetsched) hetsched=$2 ;;
        --keep) keep=$2 ;;
        esac
        shift 2
        ;;
    --)
        shift
        break
        ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *)
        [ -z "$workload" ] || die "one workload, not '$workload' and '$1'"
        workload=$1
        shift
        ;;
    esac
done
[ -n "$workload" ] || die "no workload (see --help)"
[ -r "$workload" ] || die "cannot read $workload"
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || die "--runs wants a whole number >= 1, not '$runs'"
[ -x "$hetsched" ] || die "no hetsched binary at $hetsched (build first, or --hetsched PATH)"
[ $# -gt 0 ] || die "no run options after -- (-a POLICY at least)"
command -v python3 >/dev/null || die "python3 is needed to read the traces"

work_dir dir "$keep"

for ((r = 1; r <= runs; r++)); do
    if ! "$hetsched" run "$@" --trace "$dir/$r.trace.json" \
        --predicted-trace "$dir/$r.predicted.trace.json" "$workload" >"$dir/$r.log" 2>&1; then
        echo "task_times.sh: run $r failed:" >&2
        tail -3 "$dir/$r.log" >&2
        exit 1
    fi
done

echo "$runs runs of: hetsched run $* $workload (load: $(cut -d' ' -f1-3 /proc/loadavg))"
python3 - "$dir" "$runs" <<'EOF'
import json, statistics, sys

folder, runs = sys.argv[1], int(sys.argv[2])


def events(path):
    t = json.load(open(path))
    ev = t["traceEvents"] if isinstance(t, dict) else t
    lanes = {e["tid"]: e["args"]["name"] for e in ev
             if e.get("ph") == "M" and e["name"] == "thread_name"}
    return ev, lanes


def kernels(ev, lanes):
    """Each task's kernel time (its parts summed), its first start and device: the X
    events named like app#i/kernel on a device's lane."""
    k = {}
    for e in ev:
        if (e.get("ph") == "X" and "/" in e["name"] and " " not in e["name"]
                and " " not in lanes.get(e["tid"], " ")):
            t = k.setdefault(e["name"], {"dur": 0.0, "ts": e["ts"], "device": lanes[e["tid"]]})
            t["dur"] += e["dur"]
            t["ts"] = min(t["ts"], e["ts"])
    return k


def med_min(v):
    return "%9.1f (%8.1f)" % (statistics.median(v), min(v)) if v else "%20s" % "-"


pred_ev, pred_lanes = events("%s/1.predicted.trace.json" % folder)
pred = kernels(pred_ev, pred_lanes)
order = sorted(pred, key=lambda n: pred[n]["ts"])
kern = {n: [] for n in order}
held = {n: [] for n in order}
makespan, sums, predicted = [], [], None
for r in range(1, runs + 1):
    ev, lanes = events("%s/%d.trace.json" % (folder, r))
    k = kernels(ev, lanes)
    h = [e for e in ev if e.get("ph") == "X" and e.get("cat") == "held"]
    for n, e in k.items():
        kern.setdefault(n, []).append(e["dur"])
    for e in h:
        held.setdefault(e["name"][len("held "):], []).append(e["dur"])
    for line in open("%s/%d.log" % (folder, r)):
        if "measured makespan" in line:
            makespan.append(float(line.split("measured makespan")[1].split()[0]))
        if line.startswith("predicted makespan"):
            predicted = float(line.split()[2])
    sums.append((sum(e["dur"] for e in k.values()), sum(e["dur"] for e in h)))

print("%-28s %-6s %10s %20s %20s" % ("task", "device", "predicted", "kernel med (min)",
                                     "held med (min)"))
for n in order:
    print("%-28s %-6s %10.1f %s %s" % (n, pred[n]["device"], pred[n]["dur"],
                                       med_min(kern.get(n, [])), med_min(held.get(n, []))))
m = statistics.median(makespan)
pk = sum(pred[n]["dur"] for n in order)
print("makespan: measured %.1f us (median; min %.1f), predicted %.1f us, measured / predicted %.3f"
      % (m, min(makespan), predicted, m / predicted))
print("sums per run (medians, us): kernels %.1f (predicted %.1f), held %.1f, the rest %.1f "
      "(predicted %.1f)" % (statistics.median(k for k, _ in sums), pk,
                            statistics.median(h for _, h in sums),
                            statistics.median(mk - k - h for mk, (k, h) in zip(makespan, sums)),
                            predicted - pk))
EOF
