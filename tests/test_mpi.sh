#!/usr/bin/env bash
# `mpirun -np N hetsched run` across the nodes of a cluster platform, on
# this machine's loopback: every policy on 2 ranks (emu: cpus and emulated
# gpus) and on 4 ranks (cpu), outputs byte-exact (their digest) against a
# one-process run of the same workload; the mapping run is the policy's in
# the simulator, or the schedule given; refusals; a killed rank ends the
# job.  Needs HETSCHED and HS_SOURCE_ROOT (tests/meson.build); skipped (77)
# without mpirun, and under the sanitizers (Open MPI's own allocations show
# as leaks under LeakSanitizer, and its shared-memory transport races under
# ThreadSanitizer).
set -u
if [ -n "${HS_SANITIZED:-}" ]; then
    echo "skipped: Open MPI under the sanitizers"
    exit 77
fi
if ! command -v mpirun >/dev/null; then
    echo "skipped: no mpirun (Debian: openmpi-bin)"
    exit 77
fi
cd "$HS_SOURCE_ROOT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
# oversubscribed: more ranks than cores; as root only where we are root
mpi=(mpirun --oversubscribe)
[ "$(id -u)" -eq 0 ] && mpi+=(--allow-run-as-root)
# shared memory between ranks on one machine, no network probing
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
export OPENBLAS_NUM_THREADS=1

ok() { pass=$((pass + 1)); }
bad() {
    fail=$((fail + 1))
    echo "FAIL: $*"
}

# digest FILE: the outputs line of a run's summary
digest() { grep -E '^outputs: ' "$1"; }

# Every device computes with one thread (cores: 1; an emulated gpu always
# does), so a kernel gives the same bytes on any device: a one-process run
# with any mapping is the reference.
"$HETSCHED" gen cholesky --tiles 4 --tile-size 64 --devices cpu:1,gpu:1 --cores 1 --nodes 2 \
    -o "$tmp/emu2.yaml" || bad "gen emu2"
"$HETSCHED" gen cholesky --tiles 5 --tile-size 32 --devices cpu:1 --cores 1 --nodes 4 \
    -o "$tmp/cpu4.yaml" || bad "gen cpu4"
policies=$("$HETSCHED" map -a help | awk 'NR > 1 { print $1 }')
[ -n "$policies" ] || bad "no policies listed"

# same_run NP WORKLOAD BACKEND ARGS...: the run on NP ranks and in one
# process both succeed and give the same outputs; rank 0 alone prints.
same_run() {
    local np=$1 w=$2 backend=$3
    shift 3
    if ! "$HETSCHED" run "$w" --backend "$backend" "$@" >"$tmp/one" 2>&1; then
        bad "one process: run $w $*"
        sed 's/^/  /' "$tmp/one" | head -5
        return
    fi
    if ! "${mpi[@]}" -np "$np" "$HETSCHED" run "$w" --backend "$backend" "$@" \
        >"$tmp/many" 2>&1; then
        bad "mpirun -np $np: run $w $*"
        sed 's/^/  /' "$tmp/many" | head -8
        return
    fi
    if [ "$(digest "$tmp/one")" = "$(digest "$tmp/many")" ] && [ -n "$(digest "$tmp/one")" ]
    then ok; else
        bad "-np $np run $w $*: outputs differ: '$(digest "$tmp/one")' vs '$(digest "$tmp/many")'"
    fi
    [ "$(grep -c '^policy\|^schedule' "$tmp/many")" -eq 1 ] && ok ||
        bad "-np $np run $w $*: not one summary"
    grep -q "^across $np MPI ranks" "$tmp/many" && ok || bad "-np $np run $w $*: no MPI line"
}

for p in $policies; do
    same_run 2 "$tmp/emu2.yaml" emu -a "$p"
    same_run 4 "$tmp/cpu4.yaml" cpu -a "$p"
done

# The mapping run across nodes is the one given, task by task, and the
# measured schedule is whole: every task once, on its device.
"$HETSCHED" map -a heft "$tmp/emu2.yaml" --json "$tmp/heft.json" >/dev/null || bad "map heft"
if "${mpi[@]}" -np 2 "$HETSCHED" run --schedule "$tmp/heft.json" "$tmp/emu2.yaml" \
    --backend emu --json "$tmp/ran.json" >"$tmp/many" 2>&1; then
    python3 - "$tmp/heft.json" "$tmp/ran.json" <<'PY' && ok || bad "-np 2 --schedule: mapping"
import json, sys
given, ran = (json.load(open(f)) for f in sys.argv[1:])
where = lambda s: {t["id"]: t["device"] for t in s["tasks"]}
a, b = where(given), where(ran)
assert len(ran["tasks"]) == len(given["tasks"]) == len(b), (len(ran["tasks"]), len(b))
assert a == b, [k for k in a if a[k] != b.get(k)]
assert all(t["end_us"] >= t["start_us"] >= 0 for t in ran["tasks"])
PY
else
    bad "-np 2 --schedule"
    sed 's/^/  /' "$tmp/many" | head -5
fi

# Where this build has CUDA and a GPU (the GPU machine; skipped elsewhere):
# the cuda backend across nodes, one node CPU-only and the other owning the
# GPU (its first local gpu device is CUDA device 0), a Cholesky whose
# results cross between them, byte-exact against one process running the
# same mapping (run --schedule of map's: a kernel's bits depend on the
# device that ran it, and a policy run in one process decides from the
# measured times, where the ranks run the simulator's mapping).
"$HETSCHED" gen cholesky --tiles 4 --tile-size 64 --devices cpu:1,gpu:1 --cores 1 \
    -o "$tmp/chol.yaml" || bad "gen chol"
cat >"$tmp/gpu2.yaml" <<'EOF'
platform:
  nodes:
    - name: n0
      host: host
      devices:
        - {name: cpu0, kind: cpu, memory: host, cores: 1}
    - name: n1
      host: n1.host
      devices:
        - {name: cpu1, kind: cpu, memory: n1.host, cores: 1}
        - {name: gpu0, kind: gpu, memory: n1.gpu0}
      links:
        - {from: n1.host, to: n1.gpu0, bandwidth_gbps: 10, latency_us: 10}
        - {from: n1.gpu0, to: n1.host, bandwidth_gbps: 10, latency_us: 10}
  network:
    - {from: n0, to: n1, bandwidth_gbps: 5, latency_us: 2}
    - {from: n1, to: n0, bandwidth_gbps: 5, latency_us: 2}
EOF
sed -n '/^applications:/,$p' "$tmp/chol.yaml" >>"$tmp/gpu2.yaml"
if "$HETSCHED" run -a eager "$tmp/gpu2.yaml" --backend cuda --check none >/dev/null 2>&1; then
    for p in eager h-ratio random; do # each puts tasks on gpu0
        "$HETSCHED" map -a "$p" "$tmp/gpu2.yaml" --json "$tmp/gpu2-$p.json" >/dev/null ||
            bad "map $p gpu2"
        same_run 2 "$tmp/gpu2.yaml" cuda --schedule "$tmp/gpu2-$p.json"
    done
else
    echo "skipped: the cuda backend across nodes (no CUDA or no GPU here)"
fi

# Refused, exit 2, said once (by rank 0): a rank count that is not the
# platform's node count; options that act on one process's devices.
"${mpi[@]}" -np 3 "$HETSCHED" run -a heft "$tmp/emu2.yaml" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && ok || bad "-np 3 on 2 nodes: exit $rc, expected 2"
[ "$(grep -c 'mpirun started 3 processes for a platform of 2 nodes' "$tmp/err")" -eq 1 ] && ok ||
    bad "-np 3 on 2 nodes: message: $(head -3 "$tmp/err")"
"${mpi[@]}" -np 2 "$HETSCHED" run -a heft "$tmp/emu2.yaml" --throttle n0.cpu0:2 \
    >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && ok || bad "--throttle across nodes: exit $rc, expected 2"
grep -q -- '--throttle does not apply to a run across nodes' "$tmp/err" && ok ||
    bad "--throttle across nodes: message: $(head -3 "$tmp/err")"

# A rank that fails during the run says so with its rank and ends the job
# (1K cannot hold a tile: the first kernel on a capped memory fails, at its
# launch or, when the worker already holds it as its next task, at the
# prefetch of its inputs; which comes first is the worker's timing).
timeout 120 "${mpi[@]}" -np 2 "$HETSCHED" run -a eager "$tmp/emu2.yaml" --backend emu \
    --device-memory 1K >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] && ok || bad "a failing rank: mpirun exit $rc"
grep -Eq "^hetsched: rank [01]: (memory .* is full|kernel .* needs [0-9]+ bytes on memory '.*', whose capacity is 1024 bytes)" \
    "$tmp/err" && ok ||
    bad "a failing rank: message: $(head -3 "$tmp/err")"

# A rank killed during the run ends the job: mpirun exits non-zero and no
# rank is left (timeout only guards against a hang; it is not a measure).
"$HETSCHED" gen fork-join --width 2 --depth 4 --cost 500000 --bytes 1000 --devices cpu:1 \
    --cores 1 --nodes 2 -o "$tmp/long.yaml" || bad "gen long"
timeout 120 "${mpi[@]}" -np 2 "$HETSCHED" run -a heft "$tmp/long.yaml" >"$tmp/out" 2>&1 &
job=$!
ranks=""
for _ in $(seq 100); do # the ranks are mpirun's children
    mpirun_pid=$(pgrep -P "$job" mpirun || true)
    [ -n "$mpirun_pid" ] && ranks=$(pgrep -P "$mpirun_pid" || true)
    [ "$(echo "$ranks" | wc -w)" -eq 2 ] && break
    sleep 0.1
done
if [ "$(echo "$ranks" | wc -w)" -eq 2 ]; then
    sleep 1
    kill -9 "$(echo "$ranks" | tail -1)"
    wait "$job"
    rc=$?
    [ $rc -ne 0 ] && [ $rc -ne 124 ] && ok || bad "a killed rank: mpirun exit $rc"
    for r in $ranks; do # gone, or going (a zombie is reaped by init)
        for _ in $(seq 100); do
            state=$(ps -o stat= -p "$r" 2>/dev/null)
            [ -z "$state" ] || [ "${state#Z}" != "$state" ] && break
            sleep 0.1
        done
        [ -z "$state" ] || [ "${state#Z}" != "$state" ] && ok ||
            bad "rank $r still runs (state $state) after the job ended"
    done
else
    bad "the ranks of the killed-rank run did not start: $(cat "$tmp/out")"
    kill "$job" 2>/dev/null
    wait "$job"
fi

echo "mpi: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
