#!/usr/bin/env bash
# Command-line tests: exit statuses, stdout/stderr discipline, --help
# everywhere, and the subcommands end to end on the bundled workloads.
# Needs HETSCHED (the binary) and HS_SOURCE_ROOT, set by tests/meson.build.
set -u
cd "$HS_SOURCE_ROOT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

# expect STATUS DESCRIPTION -- COMMAND...: runs COMMAND, keeps its stdout and
# stderr in $tmp/out and $tmp/err, and checks the exit status.
expect() {
    local want=$1 what=$2
    shift 3
    "$@" >"$tmp/out" 2>"$tmp/err"
    local got=$?
    if [ "$got" -eq "$want" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: $what: exit $got, expected $want: $*"
        sed 's/^/  stderr: /' "$tmp/err" | head -5
    fi
}

# check DESCRIPTION FILE PATTERN: FILE must match the extended regex PATTERN.
check() {
    if grep -Eq -- "$3" "$2"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: $1: $2 does not match '$3'"
        sed 's/^/  /' "$2" | head -5
    fi
}

empty() {
    if [ ! -s "$2" ]; then pass=$((pass + 1)); else
        fail=$((fail + 1))
        echo "FAIL: $1: $2 is not empty"
    fi
}

H=$HETSCHED
W=workloads/case-study.yaml

expect 0 "version" -- "$H" --version
check "version" "$tmp/out" '^hetsched [0-9]+\.[0-9]+\.[0-9]+$'
expect 0 "help" -- "$H" --help
check "help lists commands" "$tmp/out" '^  map '
expect 2 "no command" -- "$H"
expect 2 "unknown command" -- "$H" frobnicate
check "unknown command named" "$tmp/err" "unknown command 'frobnicate'"
for cmd in $("$H" --help | awk '/^commands:/ {on = 1; next} on && /^  [a-z]/ {print $1}'); do
    expect 0 "$cmd --help" -- "$H" "$cmd" --help
    check "$cmd --help has usage" "$tmp/out" "^usage: hetsched $cmd"
done

# info: data on stdout, nothing on stderr
expect 0 "info" -- "$H" info "$W"
check "info tasks" "$tmp/out" '^task graph: 5 tasks, 3 edges'
empty "info stderr" "$tmp/err"
# where CUDA is built in, a command that needs no GPU loads none of its
# libraries (they live in the CUDA module, loaded on first use)
if [ -e "$HS_BUILD_ROOT/libhetsched-cuda.so" ]; then
    LD_DEBUG=files "$H" info "$W" >/dev/null 2>"$tmp/ld"
    if grep -Eq 'file=(libcudart|libcublas|libcusolver|libhetsched-cuda)' "$tmp/ld"; then
        fail=$((fail + 1))
        echo "FAIL: info loads CUDA libraries:"
        grep -E 'file=' "$tmp/ld" | grep -i cu | head -5
    else
        pass=$((pass + 1))
    fi
fi
for cmd in info validate dot; do
    expect 2 "$cmd unknown option" -- "$H" "$cmd" --bogus "$W"
    check "$cmd unknown option: said so" "$tmp/err" "^hetsched $cmd: unknown option '--bogus'$"
done
expect 2 "info --model without a value" -- "$H" info "$W" --model
check "info --model without a value: why" "$tmp/err" "option '--model' needs a value"

# options that do not apply to the policy or without --split are refused
for cmd in map run; do
    expect 2 "$cmd --thr for heft" -- "$H" "$cmd" -a heft --thr 3 "$W"
    check "$cmd --thr for heft: why" "$tmp/err" \
        "^hetsched $cmd: --thr does not apply to policy heft: it has no dispatch threshold\$"
    expect 0 "$cmd --thr for d-rank" -- "$H" "$cmd" -a d-rank --thr 1 "$W"
    expect 2 "$cmd --seed 0 for heft" -- "$H" "$cmd" -a heft --seed 0 "$W"
    check "$cmd --seed for heft: why" "$tmp/err" \
        "^hetsched $cmd: --seed does not apply to policy heft: it has no random choice\$"
    expect 0 "$cmd --seed for random" -- "$H" "$cmd" -a random --seed 3 "$W"
done
# every part of --disable applies to both formulations and both solvers
# (milp/paper.c adds the compact model's strengthening): only an unknown one
# is refused
expect 2 "optimal --disable unknown" -- "$H" optimal "$W" --disable cuts,frob
check "optimal --disable unknown: why" "$tmp/err" \
    "^hetsched optimal: --disable takes a comma-separated list of incumbent, symmetry, cuts, windows, search, not 'cuts,frob'$"
expect 0 "optimal --formulation paper --disable windows" -- \
    "$H" optimal workloads/tiny.yaml --formulation paper --disable windows,cuts,symmetry
expect 2 "map --split-option without --split" -- "$H" map -a heft --split-option beta=0.5 "$W"
check "map --split-option without --split: why" "$tmp/err" \
    '^hetsched map: --split-option applies to the splitter of --split; give --split SPLITTER$'
expect 2 "map --split-option of another splitter" -- \
    "$H" map -a heft --split hdss --split-option beta=0.5 "$W"
check "map --split-option of another splitter: why" "$tmp/err" \
    'option beta applies to boyer, not to hdss$'
expect 2 "map --split-option unknown" -- "$H" map -a heft --split boyer --split-option frob=1 "$W"
check "map --split-option unknown: the hint names a command" "$tmp/err" \
    "unknown splitter option 'frob' \(hetsched split -o help lists them\)"
expect 0 "split -o help" -- "$H" split -o help
expect 2 "split -p hdss -o beta" -- "$H" split -p hdss -o beta=0.5 --sim va
check "split -p hdss -o beta: why" "$tmp/err" \
    '^hetsched split: option beta applies to boyer, not to hdss$'
expect 2 "split -p hdss -o chunk" -- "$H" split -p hdss -o chunk=64 --sim va
check "split -p hdss -o chunk: the splitters that read it" "$tmp/err" \
    'option chunk applies to fixed gss fss tss, not to hdss$'
expect 0 "split -p gss -o chunk" -- "$H" split -p gss -o chunk=64 --sim va
expect 2 "run --split-option of another splitter" -- "$H" run -a heft workloads/split-small.yaml \
    --split hdss --split-option beta=0.5 --backend emu
check "run --split-option of another splitter: why" "$tmp/err" \
    '^hetsched: option beta applies to boyer, not to hdss$'

# compare --csv: the table as CSV, one line per policy, ratios empty where
# the table has '-'; beside a CSV on stdout the table goes to stderr
npol=$("$H" map -a help | awk 'NR > 1' | wc -l)
expect 0 "compare --csv -" -- "$H" compare "$W" --csv - --split hdss
check "compare --csv: header" "$tmp/out" \
    '^policy,split,makespan_us,speedup,slr,per_best,per_bound,per_optimum,map_ms,not_run$'
check "compare --csv: heft's row" "$tmp/out" '^heft,0,6390\.208,7\.43356084809759,1\.06149634551495,1,1,,[0-9.e-]+,$'
check "compare --csv: a policy that cannot run" "$tmp/out" \
    "^ad-part,0,,,,,,,,\"--split: policy 'ad-part' splits kernels itself\"$"
check "compare --csv -: the table on stderr" "$tmp/err" '^policy +makespan us'
check "compare --split, nothing splittable: warned" "$tmp/err" \
    "^hetsched compare: warning: --split: no kernel of $W is marked splittable"
if [ "$(wc -l <"$tmp/out")" -eq $((npol + 1)) ]; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: compare --csv: not $((npol + 1)) lines"; fi
expect 0 "compare --csv FILE --optimal" -- "$H" compare "$W" --csv "$tmp/cmp.csv" --optimal
check "compare --csv: the optimal row" "$tmp/cmp.csv" \
    '^optimal,0,6390\.208,7\.43356084809759,1\.06149634551495,1\.0[0-9]+,1,1,'
check "compare --csv FILE: the table on stdout" "$tmp/out" '^heft +6390\.208'
expect 2 "compare --random --csv" -- "$H" compare --random 2 --csv -
check "compare --random --csv: why" "$tmp/err" 'random does not take --csv'
expect 1 "compare --csv /dev/full" -- "$H" compare "$W" --csv /dev/full

# --split on a workload with nothing splittable: a warning, and the run goes on
expect 0 "map --split, nothing splittable" -- "$H" map -a heft "$W" --split hdss
check "map --split, nothing splittable: warned" "$tmp/err" \
    "^hetsched map: warning: --split: no kernel of $W is marked splittable, nothing is split$"
expect 0 "map --split, something splittable" -- "$H" map -a heft workloads/split-small.yaml --split hdss
empty "map --split, something splittable: no warning" "$tmp/err"
# a schedule's per-task and per-device CSV (heft on the case study, as in
# the README's JSON: cpu0 busy 874 + 568 + 1520 us of 6390.208)
expect 0 "map --tasks-csv -" -- "$H" map -a heft "$W" --tasks-csv - --devices-csv "$tmp/dev.csv"
check "tasks csv: header" "$tmp/out" '^task,device,start_us,end_us,duration_us,fraction$'
check "tasks csv: a task on cpu0" "$tmp/out" '^"va#0/scale","cpu0",1442,2962,1520,1$'
check "tasks csv: a task on gpu0" "$tmp/out" \
    '^"xgemm#0/ab","gpu0",10\.6826666666667,5610\.68266666667,5600,1$'
if [ "$(wc -l <"$tmp/out")" -eq 6 ]; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: tasks csv: not 6 lines"; fi
check "tasks csv -: the summary on stderr" "$tmp/err" '^policy heft on'
check "devices csv: header" "$tmp/dev.csv" '^device,kind,memory,tasks,busy_us,utilisation$'
check "devices csv: cpu0" "$tmp/dev.csv" '^"cpu0",cpu,"host",3,2962,0\.46352168818292$'
check "devices csv: gpu0" "$tmp/dev.csv" '^"gpu0",gpu,"gpu0",2,6020,0\.942066361533146$'
expect 2 "map --tasks-csv - --devices-csv -" -- "$H" map -a heft "$W" --tasks-csv - --devices-csv -
check "two csv on stdout: why" "$tmp/err" '--tasks-csv and --devices-csv both go to standard output'
expect 1 "map --devices-csv /dev/full" -- "$H" map -a heft "$W" --devices-csv /dev/full
expect 0 "optimal --tasks-csv" -- "$H" optimal workloads/tiny.yaml --tasks-csv "$tmp/opt-tasks.csv"
check "optimal --tasks-csv: a row per task" "$tmp/opt-tasks.csv" '^"tiny#0/c",'

# the Chrome trace draws each dependency as a flow: 3 edges, 3 arrows
expect 0 "map --trace" -- "$H" map -a heft "$W" --trace "$tmp/flows.json"
if [ "$(grep -o '"ph":"s"' "$tmp/flows.json" | wc -l)" -eq 3 ] &&
    [ "$(grep -o '"ph":"f"' "$tmp/flows.json" | wc -l)" -eq 3 ]; then
    pass=$((pass + 1))
else
    fail=$((fail + 1)); echo "FAIL: map --trace: not 3 flows (s and f events)"
fi

# a workload whose tasks cost nothing: no -nan, and "1 task" in the singular
cat >"$tmp/zero.yaml" <<'EOF'
platform:
  devices:
    - {name: cpu0, kind: cpu, memory: host, cores: 1}
    - {name: gpu0, kind: gpu, memory: gpu0}
  links:
    - {from: host, to: gpu0, bandwidth_gbps: 10, latency_us: 0}
    - {from: gpu0, to: host, bandwidth_gbps: 10, latency_us: 0}
applications:
  - name: z
    kernels:
      - {name: a, cost_us: {cpu: 0, gpu: 0}}
EOF
expect 0 "info one task" -- "$H" info "$tmp/zero.yaml"
check "info: 1 core" "$tmp/out" '^  cpu0     cpu, memory host, 1 core$'
check "info: 1 kernel, 0 edges" "$tmp/out" '^  z        x1: 1 kernel, 0 edges$'
check "info: 1 task" "$tmp/out" '^task graph: 1 task, 0 edges, 0 bytes on edges$'
for algo in $("$H" map -a help | awk 'NR > 1 {print $1}'); do
    expect 0 "map -a $algo zero costs" -- "$H" map -a "$algo" "$tmp/zero.yaml" --json "$tmp/zero.json"
    if grep -qi nan "$tmp/out"; then
        fail=$((fail + 1)); echo "FAIL: map -a $algo on zero costs prints nan"; sed 's/^/  /' "$tmp/out"
    else pass=$((pass + 1)); fi
done
check "map zero costs: the bound without a ratio" "$tmp/out" '^lower bound 0\.000 us$'
check "map zero costs: 1 task" "$tmp/out" ' 1 task$'
expect 0 "validate one task" -- "$H" validate "$tmp/zero.yaml" "$tmp/zero.json"
check "validate: 1 task, 0 transfers" "$tmp/out" '^valid: makespan 0\.000 us \(1 task, 0 transfers\)$'
expect 0 "compare one task" -- "$H" compare "$tmp/zero.yaml"
check "compare: 1 task, 0 edges, 2 devices" "$tmp/out" ': 1 task, 0 edges, 2 devices \('

# malformed workloads: exit 2, FILE:LINE:COL on stderr, nothing on stdout
for f in tests/cases/bad-*.yaml; do
    [ -e "$f" ] || continue
    expect 2 "bad input $f" -- "$H" info "$f"
    check "bad input $f message" "$tmp/err" "^hetsched: $f(:[0-9]+:[0-9]+)?: error: "
    empty "bad input $f stdout" "$tmp/out"
done
# every bundled workload loads (typed-example with the model it is written
# for; workloads/paper/ is tests/test_paper.sh's); a cg names the buffers
# its edges feed, and info loads it
for f in workloads/*.yaml; do
    if [ "$f" = workloads/typed-example.yaml ]; then
        expect 0 "bundled $f loads" -- "$H" map -a heft "$f" --model workloads/models/example.json
    else
        expect 0 "bundled $f loads" -- "$H" info "$f"
    fi
done
expect 0 "gen cg" -- "$H" gen benchmark cg --size small -o "$tmp/cg.yaml"
check "gen cg names buffers" "$tmp/cg.yaml" \
    "^  - \{from: dot_pq_0, to: axpy_x_0, bytes: 4, buffer: den\}$"
check "gen cg: each gemv reads its A from host" "$tmp/cg.yaml" \
    "^  - \{name: gemv_1, type: gemv, params: \{n: 1024\}, cost_us: \{[^}]*\}, input_bytes: 4194304\}$"
expect 0 "gen cg loads" -- "$H" info "$tmp/cg.yaml"
expect 2 "missing file" -- "$H" info /nonexistent.yaml
check "missing file named" "$tmp/err" "/nonexistent.yaml"
# the size cap on workloads, from the environment
expect 2 "info over HETSCHED_YAML_MAX_MIB" -- env HETSCHED_YAML_MAX_MIB=1 "$H" info \
    <(head -c 1100000 /dev/zero)
check "info over HETSCHED_YAML_MAX_MIB: why" "$tmp/err" \
    "error: the file is larger than 1 MiB \(the environment variable HETSCHED_YAML_MAX_MIB"
# the workload's JSON form: what gen writes for -o FILE.json maps as the YAML does; its
# errors are located, exit status 2; the same size cap
expect 0 "gen random -o .json" -- "$H" gen random --tasks 50 -o "$tmp/r50.json"
expect 0 "gen random -o .yaml" -- "$H" gen random --tasks 50 -o "$tmp/r50.yaml"
check "gen -o .json writes JSON" "$tmp/r50.json" '^  "platform": \{$'
expect 0 "map the JSON form" -- "$H" map -a heft "$tmp/r50.json" --json "$tmp/r50-heft.json"
check "map the JSON form: its makespan" "$tmp/out" "^policy heft on $tmp/r50.json: makespan"
sed -n 's/^policy heft on [^:]*: //p' "$tmp/out" >"$tmp/json-makespan"
expect 0 "map the YAML form" -- "$H" map -a heft "$tmp/r50.yaml"
check "the same makespan from both forms" "$tmp/out" "$(cat "$tmp/json-makespan")"
expect 0 "validate on the JSON form" -- "$H" validate "$tmp/r50.json" "$tmp/r50-heft.json"
sed 's/"to": "t[0-9]*", "bytes"/"to": "nope", "bytes"/' "$tmp/r50.json" >"$tmp/bad-to.json"
expect 2 "a bad edge in the JSON form" -- "$H" info "$tmp/bad-to.json"
check "a bad edge in the JSON form: where" "$tmp/err" \
    "^hetsched: $tmp/bad-to.json:[0-9]+:30: error: applications\[0\]\.edges\[0\]\.to: no kernel 'nope'"
printf '{"platform": {"devices": [}}' >"$tmp/bad-syntax.json"
expect 2 "bad JSON syntax" -- "$H" info "$tmp/bad-syntax.json"
check "bad JSON syntax: where" "$tmp/err" \
    "^hetsched: $tmp/bad-syntax.json:1:27: error: invalid JSON: unallowed token at this point"
expect 2 "the JSON form over HETSCHED_YAML_MAX_MIB" -- env HETSCHED_YAML_MAX_MIB=1 "$H" info \
    --format json <(head -c 1100000 /dev/zero)
check "the JSON form over HETSCHED_YAML_MAX_MIB: why" "$tmp/err" \
    "error: the file is larger than 1 MiB \(the environment variable HETSCHED_YAML_MAX_MIB"
expect 2 "info bad HETSCHED_YAML_MAX_MIB" -- env HETSCHED_YAML_MAX_MIB=x "$H" info "$W"
check "info bad HETSCHED_YAML_MAX_MIB: why" "$tmp/err" \
    "HETSCHED_YAML_MAX_MIB must be a whole number of MiB from 1 to 1048576, not 'x'"
# the task limit, from the environment: lowered to 5, a 6-task graph is refused where it
# is generated and where it is loaded (located); a bad value is refused before any command
expect 0 "gen 5 tasks under HETSCHED_MAX_TASKS=5" -- env HETSCHED_MAX_TASKS=5 "$H" gen random \
    --tasks 5 -o "$tmp/five.yaml"
expect 2 "gen 6 tasks under HETSCHED_MAX_TASKS=5" -- env HETSCHED_MAX_TASKS=5 "$H" gen random \
    --tasks 6
check "gen over HETSCHED_MAX_TASKS: why" "$tmp/err" \
    "tasks must be 1\.\.5 \(HETSCHED_MAX_TASKS raises the limit\), not 6"
"$H" gen random --tasks 6 -o "$tmp/six.yaml"
expect 2 "info over HETSCHED_MAX_TASKS" -- env HETSCHED_MAX_TASKS=5 "$H" info "$tmp/six.yaml"
check "info over HETSCHED_MAX_TASKS: located" "$tmp/err" \
    "six\.yaml:[0-9]+:[0-9]+: error: .*more than 5 kernels in the file \(the loader's limit, which HETSCHED_MAX_TASKS raises"
expect 0 "info at HETSCHED_MAX_TASKS=6" -- env HETSCHED_MAX_TASKS=6 "$H" info "$tmp/six.yaml"
for v in x 0 100000001 -3; do
    expect 2 "bad HETSCHED_MAX_TASKS=$v" -- env HETSCHED_MAX_TASKS=$v "$H" info "$W"
    check "bad HETSCHED_MAX_TASKS=$v: why" "$tmp/err" \
        "HETSCHED_MAX_TASKS must be a whole number of tasks from 1 to 100000000, not '$v'"
done
expect 2 "extra argument" -- "$H" info "$W" extra
# kernel types and params are checked at load, by every command, located
for cmd in "map -a heft" compare optimal; do
    # shellcheck disable=SC2086 # word splitting of $cmd is wanted
    expect 2 "$cmd: bad param" -- "$H" $cmd tests/cases/bad-param-negative.yaml
    check "$cmd: bad param located" "$tmp/err" \
        "^hetsched: tests/cases/bad-param-negative.yaml:12:41: error: .*params.n: va: param 'n'"
done
# generators: sizes beyond a workload's limits are usage errors, refused at once
expect 2 "gen cholesky --tiles 1000" -- "$H" gen cholesky --tiles 1000
check "gen cholesky --tiles 1000: why" "$tmp/err" "--tiles: expected a whole number in \[1, 180\]"
expect 2 "gen cholesky --instances" -- "$H" gen cholesky --tiles 180 --instances 2
check "gen cholesky --instances: why" "$tmp/err" "180 tiles \(988260 tasks\) x 2 instances"
expect 2 "gen random --tasks" -- "$H" gen random --tasks 1000001
expect 0 "gen cholesky" -- "$H" gen cholesky --tiles 3 -o "$tmp/chol.yaml"
expect 0 "gen cholesky loads" -- "$H" info "$tmp/chol.yaml"
check "gen cholesky loads: tasks" "$tmp/out" '^task graph: 10 tasks, 12 edges'

# a cluster platform (workloads/cluster.yaml, makespans checked by hand in
# its comment): every command treats the nodes' memories as memory spaces
C=workloads/cluster.yaml
expect 0 "cluster: info" -- "$H" info "$C"
check "cluster: info nodes" "$tmp/out" '^  n1       host memory n1.host, 2 devices$'
check "cluster: info network" "$tmp/out" '^  n0 -> n1: 5 GB/s, 2 us$'
expect 0 "cluster: map" -- "$H" map -a heft "$C" --json "$tmp/c.json" --trace "$tmp/ct.json" \
    --dot "$tmp/c.dot"
check "cluster: map makespan" "$tmp/out" 'makespan 1044\.000 us$'
expect 0 "cluster: validate" -- "$H" validate "$C" "$tmp/c.json"
check "cluster: validate" "$tmp/out" '^valid: makespan 1044\.000 us \(2 tasks, 3 transfers\)$'
check "cluster: trace names gpu1" "$tmp/ct.json" '"gpu1"'
check "cluster: dot" "$tmp/c.dot" 'gpu1'
expect 0 "cluster: optimal" -- "$H" optimal "$C"
check "cluster: optimal" "$tmp/out" '^makespan   1044\.000 us$'
expect 0 "cluster: compare" -- "$H" compare "$C"
check "cluster: compare heft" "$tmp/out" '^heft +1044\.000 '
expect 0 "cluster: dot" -- "$H" dot "$C" -o "$tmp/c2.dot"
expect 0 "cluster: a set on a cluster platform" -- "$H" map -a heft workloads/sets/fork.stg \
    --platform "$C"
check "cluster: a set on a cluster platform" "$tmp/out" '^  gpu1 +gpu '
if "$H" map -a heft "$W" --gantt "$tmp/g.png" >/dev/null 2>&1; then
    expect 0 "cluster: gantt" -- "$H" map -a heft "$C" --gantt "$tmp/cg.png"
fi
expect 0 "gen --nodes" -- "$H" gen random --tasks 40 --nodes 3 --devices cpu:1,gpu:2 \
    -o "$tmp/cl.yaml"
check "gen --nodes: a node's GPU" "$tmp/cl.yaml" '^    - \{name: n2.gpu1, kind: gpu, memory: n2.gpu1\}$'
check "gen --nodes: the network" "$tmp/cl.yaml" \
    '^  - \{from: n2, to: n1, bandwidth_gbps: 12.5, latency_us: 2\}$'
for a in $("$H" map -a help | awk '/^  [a-z]/ {print $1}'); do
    expect 0 "cluster: map -a $a" -- "$H" map -a "$a" "$tmp/cl.yaml" --json "$tmp/cl.json"
    expect 0 "cluster: map -a $a valid" -- "$H" validate "$tmp/cl.yaml" "$tmp/cl.json"
done
expect 0 "gen --nodes 64" -- "$H" gen random --tasks 20 --nodes 64 --devices cpu:1,gpu:4 \
    -o "$tmp/c64.yaml"
expect 0 "gen --nodes 64: 320 devices, a cost each, load" -- "$H" map -a dmda "$tmp/c64.yaml"
expect 2 "gen --nodes too many devices" -- "$H" gen random --nodes 200 --devices cpu:1,gpu:4
check "gen --nodes too many devices: why" "$tmp/err" \
    "nodes must be 1..256 with at most 512 devices in all, not 200 of 5 devices"

# validate: a mapped schedule is valid; a broken one is not
if "$H" map -a help >/dev/null 2>&1; then
    expect 0 "map" -- "$H" map -a heft "$W" --json "$tmp/s.json"
    check "map makespan" "$tmp/out" 'makespan [0-9.]+ us'
    expect 0 "validate" -- "$H" validate "$W" "$tmp/s.json"
    check "validate says valid" "$tmp/out" '^valid: makespan'
    # pull the first task 1 us earlier: it must now be invalid (exit 1)
    python3 - "$tmp/s.json" "$tmp/bad.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
t = max(s["tasks"], key=lambda t: t["start_us"])
t["start_us"] -= 1.0
t["end_us"] -= 1.0
json.dump(s, open(sys.argv[2], "w"))
PY
    expect 1 "validate broken" -- "$H" validate "$W" "$tmp/bad.json"
    check "validate broken says why" "$tmp/err" 'invalid schedule'
    echo '{"workload": 3' >"$tmp/junk.json"
    expect 2 "validate junk" -- "$H" validate "$W" "$tmp/junk.json"
    # read as it streams: the bad value is refused before the end of the text
    check "validate junk located" "$tmp/err" \
        "^hetsched: $tmp/junk.json:1:14: error: workload: must be a string or null, not a number$"
    # what cannot be read is bad input (2), not an invalid schedule (1)
    expect 2 "validate a directory" -- "$H" validate "$W" "$tmp"
    check "validate a directory: why" "$tmp/err" "^hetsched: $tmp: cannot read: Is a directory"
    expect 2 "validate a missing file" -- "$H" validate "$W" "$tmp/none.json"
    # a pipe (no size known ahead) of valid JSON so far: refused at the cap
    expect 2 "validate over the size cap" -- env HETSCHED_JSON_MAX_MIB=1 "$H" validate "$W" \
        <(printf '{"tasks": ['; head -c 1100000 /dev/zero | tr '\0' ' ')
    check "validate over the size cap: why" "$tmp/err" \
        "error: the file is larger than 1 MiB \(the environment variable HETSCHED_JSON_MAX_MIB"
    expect 2 "validate bad HETSCHED_JSON_MAX_MIB" -- env HETSCHED_JSON_MAX_MIB=0 "$H" validate \
        "$W" "$tmp/s.json"
    # every time printed with 3 decimals (what another tool may write): still
    # valid within the tolerance
    python3 - "$tmp/s.json" "$tmp/s3.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
for item in s["tasks"] + s["transfers"]:
    for k in ("start_us", "end_us"):
        item[k] = float("%.3f" % item[k])
s["makespan_us"] = float("%.3f" % s["makespan_us"])
json.dump(s, open(sys.argv[2], "w"))
PY
    expect 0 "validate 3 decimals" -- "$H" validate "$W" "$tmp/s3.json"
    # the schedule of another workload file (a copy), of one without its
    # tasks, and of another model
    cp "$W" "$tmp/copy.yaml"
    expect 1 "validate another workload" -- "$H" validate "$tmp/copy.yaml" "$tmp/s.json"
    check "validate another workload: why" "$tmp/err" \
        "^hetsched: invalid schedule: the schedule is of workload $W, not $tmp/copy.yaml$"
    expect 2 "validate another workload's tasks" -- "$H" validate workloads/tiny.yaml "$tmp/s.json"
    check "validate another workload's tasks: why" "$tmp/err" \
        "s.json:7:12: error: tasks\[0\].id: no task 'xgemm#0/cd' in the workload \(the schedule is of workload $W, not workloads/tiny.yaml\)$"
    sed 's/"model": "delay"/"model": "simulated"/' "$tmp/s.json" >"$tmp/other.json"
    expect 1 "validate another model" -- "$H" validate "$W" "$tmp/other.json"
    check "validate another model: why" "$tmp/err" \
        "the schedule's model is 'simulated', not 'delay', 'measured' or 'executor'"
    expect 2 "map unknown policy" -- "$H" map -a nope "$W"
    check "map unknown policy named" "$tmp/err" "unknown policy 'nope'"
    # what the user typed reaches the terminal escaped
    expect 2 "map policy with an escape code" -- "$H" map -a "$(printf '\033[2J')" "$W"
    check "map policy with an escape code: escaped" "$tmp/err" "unknown policy '\\\\x1b\\[2J'"
    expect 2 "option value with a newline" -- "$H" map -a heft --seed "$(printf '1\n2')" "$W"
    check "option value with a newline: one line" "$tmp/err" "not '1\\\\n2'$"
    expect 0 "map -a help" -- "$H" map -a help
    check "map -a help lists heft" "$tmp/out" 'heft'
fi

# best's budget: only for best, a number of ms above 0
expect 0 "map -a best --budget-ms" -- "$H" map -a best "$W" --budget-ms 50
check "map -a best: the optimum of the case study" "$tmp/out" 'makespan 6390\.208 us'
expect 2 "map --budget-ms for heft" -- "$H" map -a heft "$W" --budget-ms 50
check "map --budget-ms for heft: why" "$tmp/err" \
    '^hetsched map: --budget-ms does not apply to policy heft: it has no time budget$'
for b in 0 -5 x 1e9; do
    expect 2 "map --budget-ms $b" -- "$H" map -a best "$W" --budget-ms "$b"
    check "map --budget-ms $b: why" "$tmp/err" "--budget-ms wants a number of milliseconds above 0"
done

# adversary: the worst workload found reads back to the same ratio in
# compare; the search is the same for the same seed
expect 0 "adversary" -- "$H" adversary -a heft --iterations 60 --seed 2 -o "$tmp/adv.yaml"
check "adversary summary" "$tmp/out" '^adversary heft against optimal: 60 steps in '
check "adversary ratio" "$tmp/out" '^worst ratio [0-9]+\.[0-9]{4}: heft [0-9.]+ us, optimal [0-9.]+ us$'
check "adversary wrote" "$tmp/out" "^wrote $tmp/adv.yaml\$"
ratio=$(awk '/^worst ratio/ {sub(":", "", $3); print $3}' "$tmp/out")
expect 0 "adversary: compare reads it" -- "$H" compare "$tmp/adv.yaml" --optimal
awk -v r="$ratio" '$1 == "heft" {d = $7 - r; print (d < 0.00051 && d > -0.00051) ? "ok" : "differs " $7}' \
    "$tmp/out" >"$tmp/adv-check"
check "adversary: compare gives the same ratio" "$tmp/adv-check" '^ok$'
expect 0 "adversary to stdout" -- "$H" adversary -a heft --iterations 60 --seed 2
grep -v '^adversary heft' "$tmp/out" | grep -v '^wrote' >"$tmp/adv2.txt"
check "adversary to stdout: YAML" "$tmp/adv2.txt" '^applications:'
grep -v '^#' "$tmp/adv.yaml" >"$tmp/adv-a.yaml"
sed -n '/^platform:/,$p' "$tmp/adv2.txt" >"$tmp/adv-b.yaml"
expect 0 "adversary: same seed, same workload" -- cmp "$tmp/adv-a.yaml" "$tmp/adv-b.yaml"
expect 0 "adversary --against" -- "$H" adversary -a eager --against heft --iterations 30 \
    --tasks 4-6 --devices 3 -o "$tmp/adv3.yaml"
check "adversary --against: ratio" "$tmp/out" '^worst ratio [0-9.]+: eager [0-9.]+ us, heft [0-9.]+ us$'
check "adversary --against: 3 devices" "$tmp/out" '^worst workload: [4-6] tasks, [0-9]+ edges, 3 devices$'
expect 2 "adversary without -a" -- "$H" adversary
check "adversary without -a: why" "$tmp/err" 'no policy: give -a POLICY'
expect 2 "adversary unknown policy" -- "$H" adversary -a nope --iterations 5
check "adversary unknown policy: why" "$tmp/err" "unknown policy 'nope'"
expect 2 "adversary unknown --against" -- "$H" adversary -a heft --against nope --iterations 5
expect 2 "adversary --tasks 5-3" -- "$H" adversary -a heft --tasks 5-3
check "adversary --tasks 5-3: why" "$tmp/err" "--tasks wants MIN-MAX within 1-12, not '5-3'"
expect 2 "adversary --tasks 13" -- "$H" adversary -a heft --tasks 13
expect 2 "adversary --devices 0-2" -- "$H" adversary -a heft --devices 0-2
expect 2 "adversary --iterations 0" -- "$H" adversary -a heft --iterations 0
expect 2 "adversary --time-limit -1" -- "$H" adversary -a heft --time-limit -1
expect 2 "adversary a workload" -- "$H" adversary -a heft "$W"
expect 2 "adversary --budget-ms without best" -- "$H" adversary -a heft --budget-ms 10
check "adversary --budget-ms without best: why" "$tmp/err" '--budget-ms applies to policy best only'
expect 0 "adversary --against best --budget-ms" -- "$H" adversary -a heft --against best \
    --budget-ms 20 --iterations 5
expect 1 "adversary unwritable output" -- "$H" adversary -a heft --iterations 2 -o /nonexistent/x.yaml
check "adversary unwritable output: why" "$tmp/err" 'cannot write /nonexistent/x.yaml'

# outputs: written whole or not at all, never removing what the command did
# not create; /dev/full is written directly, the failure reported (exit 1),
# the device left in place; standard output is checked too
chardev() {
    if [ -c "$2" ]; then pass=$((pass + 1)); else
        fail=$((fail + 1))
        echo "FAIL: $1: $2 is no longer a character device"
    fi
}
for out in "map -a heft $W --json /dev/full" "map -a heft $W --dot /dev/full" \
    "map -a heft $W --trace /dev/full" "dot $W -o /dev/full" "gen random -o /dev/full" \
    "optimal $W --write-lp /dev/full" \
    "adversary -a heft --iterations 2 -o /dev/full"; do
    # shellcheck disable=SC2086 # word splitting of $out is wanted
    expect 1 "$out" -- "$H" $out
    check "$out: why" "$tmp/err" '^hetsched: cannot write /dev/full: No space left on device$'
    chardev "$out" /dev/full
done
if "$H" map -a heft "$W" --gantt "$tmp/g.png" >/dev/null 2>&1; then
    ln -s /dev/full "$tmp/full.png"
    expect 1 "map --gantt to /dev/full" -- "$H" map -a heft "$W" --gantt "$tmp/full.png"
    check "map --gantt to /dev/full: why" "$tmp/err" "cannot write $tmp/full.png: No space left"
    chardev "map --gantt to /dev/full" /dev/full
fi
expect 1 "summary to a full disk" -- bash -c "\"\$1\" map -a heft \"\$2\" >/dev/full" _ "$H" "$W"
check "summary to a full disk: why" "$tmp/err" \
    '^hetsched: cannot write standard output: No space left on device$'
expect 1 "--help to a full disk" -- bash -c "\"\$1\" map --help >/dev/full" _ "$H"
expect 2 "two outputs on stdout" -- "$H" map -a heft "$W" --json - --trace -
check "two outputs on stdout: why" "$tmp/err" \
    "^hetsched map: --json and --trace both go to standard output \('-'\); give one of them a file$"
expect 2 "run: two outputs on stdout" -- "$H" run -a heft "$W" --json - --trace -
expect 2 "optimal: two outputs on stdout" -- "$H" optimal "$W" --dot - --write-lp -
check "optimal: two outputs on stdout: why" "$tmp/err" "--dot and --write-lp both go to"
expect 0 "optimal --write-lp -" -- "$H" optimal "$W" --write-lp - --time-limit 30
check "optimal --write-lp -: the model on stdout" "$tmp/out" '^Minimize'
check "optimal --write-lp -: the summary on stderr" "$tmp/err" '^makespan +[0-9.]+ us'
expect 2 "split --chunks -" -- "$H" split -p hdss va --chunks -
# a file replaced keeps its permissions, and no temporary file is left
echo old >"$tmp/keep.json"
chmod 640 "$tmp/keep.json"
mkdir "$tmp/outdir"
expect 0 "map --json over a file" -- "$H" map -a heft "$W" --json "$tmp/outdir/s.json" \
    --trace "$tmp/outdir/t.json"
cp -p "$tmp/keep.json" "$tmp/outdir/s.json"
expect 0 "map --json over a file again" -- "$H" map -a heft "$W" --json "$tmp/outdir/s.json"
check "map --json over a file: replaced" "$tmp/outdir/s.json" '"algorithm": "heft"'
stat -c %a "$tmp/outdir/s.json" >"$tmp/mode"
check "map --json over a file: permissions kept" "$tmp/mode" '^640$'
ls -A "$tmp/outdir" >"$tmp/listing"
check "no temporary file left" "$tmp/listing" '^s\.json$'
check "no temporary file left (2)" "$tmp/listing" '^t\.json$'
[ "$(wc -l <"$tmp/listing")" -eq 2 ] && pass=$((pass + 1)) ||
    { fail=$((fail + 1)); echo "FAIL: outdir holds more than s.json and t.json"; }

# dot: loads in Graphviz
expect 0 "dot" -- "$H" dot "$W"
if command -v dot >/dev/null; then
    cp "$tmp/out" "$tmp/g.dot"
    expect 0 "dot -Tsvg" -- dot -Tsvg "$tmp/g.dot"
    check "svg" "$tmp/out" '<svg' 
fi

# compare: a row per registered policy, cpu-only is its own speedup baseline,
# every schedule written with --json is valid; --optimal adds a row `optimal`
# no longer than any policy that runs whole tasks (ad-part, marked *, splits
# tasks and may beat the whole-task optimum: 6283.014 < 6390.208 us here)
if "$H" map -a help >/dev/null 2>&1; then
    expect 0 "compare" -- "$H" compare "$W" --json "$tmp/cmp"
    cp "$tmp/out" "$tmp/compare.txt"
    for p in $("$H" map -a help | awk 'NR > 1 {print $1}'); do
        check "compare row $p" "$tmp/compare.txt" "^$p\\*? +[0-9]+\\.[0-9]+ "
        expect 0 "compare --json $p valid" -- "$H" validate "$W" "$tmp/cmp/$p.json"
    done
    check "compare cpu-only speedup" "$tmp/compare.txt" '^cpu-only +[0-9.]+ +1\.000 '
    check "compare header" "$tmp/compare.txt" '^workload .*: 5 tasks, 3 edges, 2 devices'
    check "compare lower bound" "$tmp/compare.txt" '^lower bound [0-9.]+ us'
    expect 2 "compare bad workload" -- "$H" compare tests/cases/bad-syntax.yaml
    empty "compare bad workload stdout" "$tmp/out"
    expect 2 "compare no workload" -- "$H" compare
    expect 2 "compare --time-limit without --optimal" -- "$H" compare "$W" --time-limit 5
    expect 2 "compare --random with a workload" -- "$H" compare --random 2 "$W"

    expect 0 "compare --optimal" -- "$H" compare "$W" --optimal --time-limit 100000
    cp "$tmp/out" "$tmp/optimal.txt"
    check "compare --optimal row" "$tmp/optimal.txt" '^optimal +[0-9]+\.[0-9]+ '
    check "compare --optimal column" "$tmp/optimal.txt" '^policy .*/optimum'
    check "compare --optimal proven" "$tmp/optimal.txt" '^optimal: proven optimal'
    awk '$1 == "optimal" && $2 ~ /^[0-9.]+$/ {opt = $2}
         $2 ~ /^[0-9.]+$/ && $1 != "optimal" && $1 !~ /\*$/ {if ($2 < min || !n++) min = $2}
         END {if (opt == "" || !n) print "no rows"; else if (opt > min + 1e-6) print "worse"
              else print "ok"}' "$tmp/optimal.txt" >"$tmp/cmp-check"
    check "compare optimal <= every whole-task policy" "$tmp/cmp-check" '^ok$'

    # 6 random workloads: every policy is summarised, none beats the best,
    # and each workload has at least one best policy
    expect 0 "compare --random" -- "$H" compare --random 6 --seed 3
    cp "$tmp/out" "$tmp/random.txt"
    for p in $("$H" map -a help | awk 'NR > 1 {print $1}'); do
        check "compare --random row $p" "$tmp/random.txt" "^$p +[0-9]+\\.[0-9]+ "
    done
    awk '$2 ~ /^[0-9]+\.[0-9]+$/ && $3 ~ /^[0-9.]+$/ {
             rows++; if ($2 < 1 || $3 < $2 - 1e-9) bad++; best += $4 }
         END {print (rows && !bad && best >= 6) ? "ok" : "bad"}' "$tmp/random.txt" \
        >"$tmp/rnd-check"
    check "compare --random ratios >= 1, worst >= mean" "$tmp/rnd-check" '^ok$'
fi

# typed kernels without cost_us, costed by a performance model (--model)
TW=workloads/typed-example.yaml
TM=workloads/models/example.json
expect 0 "info --model" -- "$H" info "$TW" --model "$TM"
check "info --model: the typed kernels counted" "$tmp/out" '^task graph: 6 tasks, 4 edges'
expect 0 "dot --model" -- "$H" dot "$TW" --model "$TM"
check "dot --model: the typed kernels drawn" "$tmp/out" '"xgemm#0/ab"'
for cmd in info dot; do
    expect 2 "$cmd typed without --model" -- "$H" "$cmd" "$TW"
done
expect 0 "map --model --json for validate" -- "$H" map -a heft "$TW" --model "$TM" --json "$tmp/typed.json"
expect 0 "validate --model" -- "$H" validate --model "$TM" "$TW" "$tmp/typed.json"
check "validate --model: valid" "$tmp/out" '^valid: makespan'
expect 2 "validate typed without --model" -- "$H" validate "$TW" "$tmp/typed.json"
expect 0 "map ad-part --model" -- "$H" map -a ad-part "$TW" --model "$TM"
check "map --model makespan" "$tmp/out" '^policy ad-part on .*: makespan [0-9]+\.[0-9]+ us$'
expect 2 "typed workload without --model" -- "$H" map -a ad-part "$TW"
check "typed workload without --model: why" "$tmp/err" \
    "kernel 'ab' of type 'gemm' has no cost_us and no performance model is loaded"
expect 2 "map --model unreadable" -- "$H" map -a heft "$TW" --model "$tmp/none.json"
echo '{"hetsched_perfmodel": 1, "history": [], "fits": []}' >"$tmp/empty-model.json"
expect 2 "map --model without the kernel" -- "$H" map -a heft "$TW" --model "$tmp/empty-model.json"
check "map --model without the kernel: names the model" "$tmp/err" \
    "kernel 'ab': no performance model for gemm on cpu0 in $tmp/empty-model.json \(run hetsched"
printf '{"hetsched_perfmodel": 1,\n "history": [], "fits": [], "\\u001b[2J": 1}' >"$tmp/esc-model.json"
expect 2 "map --model with an escape code" -- "$H" map -a heft "$TW" --model "$tmp/esc-model.json"
check "map --model with an escape code: escaped, located" "$tmp/err" \
    "^hetsched: $tmp/esc-model.json:2:42: error: \\\\x1b\\[2J: unknown key"
expect 0 "compare --model" -- "$H" compare "$TW" --model "$TM"
check "compare --model ad-part row" "$tmp/out" '^ad-part\*? +[0-9]+\.[0-9]+ '
expect 2 "compare --random --model" -- "$H" compare --random 2 --model "$TM"
expect 0 "optimal --model" -- "$H" optimal "$TW" --model "$TM" --time-limit 30
check "optimal --model makespan" "$tmp/out" '^makespan +[0-9]+\.[0-9]+ us'

# Interrupts (cli/interrupt.c).  A 60-task random workload that no solver
# closes in minutes; the verdicts hold wherever the signal lands.
R60=$tmp/r60.yaml
"$H" gen random --tasks 60 --devices cpu:1,gpu:2 --seed 5 -o "$R60"
mkfifo "$tmp/lp"
# caught_sigint PID: whether PID has a handler for SIGINT (bit 2 of SigCgt)
caught_sigint() {
    local mask
    mask=$(awk '/^SigCgt:/ {print $2}' "/proc/$1/status" 2>/dev/null)
    [ -n "$mask" ] && (((16#$mask >> 1) & 1))
}
# got_status WANT DESCRIPTION: checks $got, the exit status of a command run
# in the background
got_status() {
    if [ "$got" -eq "$1" ]; then pass=$((pass + 1)); else
        fail=$((fail + 1))
        echo "FAIL: $2: exit $got, expected $1"
    fi
}
# wait_stopped PID: waits for PID, interrupted, and sets $got to its exit
# status; one that still runs a minute later is killed and reported (status
# 124), so that a search that misses its interrupt fails here, named,
# instead of holding the suite until its time limit
wait_stopped() {
    for _ in $(seq 1 1200); do
        kill -0 "$1" 2>/dev/null || break
        sleep 0.05
    done
    if kill -0 "$1" 2>/dev/null; then
        echo "still running a minute after the interrupt: $(tr '\0' ' ' <"/proc/$1/cmdline")"
        kill -KILL "$1"
        wait "$1"
        got=124
        return
    fi
    wait "$1"
    got=$?
}
# interrupt_when_caught PID: sends SIGINT once PID has its handler, waits for
# it and sets $got to its exit status
interrupt_when_caught() {
    for _ in $(seq 1 600); do
        caught_sigint "$1" && break
        sleep 0.05
    done
    kill -INT "$1"
    wait_stopped "$1"
}
# optimal: the first interrupt stops the search; the status line has the gap
# and says so, every output is written.  The search starts once the model is
# written to --write-lp, here a FIFO read to its end, so the signal lands in
# the search (or, on a very fast machine, in the heuristics: same verdict).
gantt=()
"$H" map -a heft "$W" --gantt "$tmp/probe.svg" >/dev/null 2>&1 && gantt=(--gantt "$tmp/int.svg")
solvers=glpk
"$H" optimal "$W" --solver cbc >/dev/null 2>&1 && solvers="glpk cbc"
for solver in $solvers; do
    rm -f "$tmp/int".*
    "$H" optimal "$R60" --solver "$solver" --time-limit 600 --write-lp "$tmp/lp" \
        --json "$tmp/int.json" --dot "$tmp/int.dot" --trace "$tmp/int.trace" "${gantt[@]}" \
        >"$tmp/out" 2>"$tmp/err" &
    pid=$!
    # bounded: a hetsched that never opens the FIFO fails the checks below
    # instead of hanging the suite
    timeout 300 cat "$tmp/lp" >"$tmp/int.lp"
    kill -INT $pid
    wait_stopped $pid
    got_status 0 "optimal --solver $solver interrupted"
    check "optimal $solver interrupted: status" "$tmp/out" \
        '^status +feasible \(gap [0-9]+\.[0-9]+%\), interrupted$'
    check "optimal $solver interrupted: makespan" "$tmp/out" '^makespan +[0-9]+\.[0-9]+ us$'
    check "optimal $solver interrupted: said on stderr" "$tmp/err" \
        '^hetsched: interrupted: stopping the search'
    check "optimal $solver interrupted: model written first" "$tmp/int.lp" '^Minimize'
    expect 0 "optimal $solver interrupted: json valid" -- "$H" validate "$R60" "$tmp/int.json"
    check "optimal $solver interrupted: dot" "$tmp/int.dot" '^digraph'
    check "optimal $solver interrupted: trace" "$tmp/int.trace" '"traceEvents"'
    [ ${#gantt[@]} -eq 0 ] || check "optimal $solver interrupted: gantt" "$tmp/int.svg" '<svg'
done
# a second interrupt quits at once: here while the model is written into a
# FIFO nobody reads, where the first one cannot end anything.  Not under
# ThreadSanitizer, which delivers a signal once the call it came in returns
# (a write into that FIFO never does)
if ldd "$H" 2>/dev/null | grep -q libtsan; then
    echo "skip: optimal interrupted twice (ThreadSanitizer holds signals in a blocked write)"
else
    "$H" optimal "$R60" --time-limit 600 --write-lp "$tmp/lp" --json "$tmp/int2.json" \
        >"$tmp/out" 2>"$tmp/err" &
    pid=$!
    exec 3<"$tmp/lp" # returns once hetsched has opened the FIFO
    kill -INT $pid
    for _ in $(seq 1 600); do
        grep -q '^hetsched: interrupted' "$tmp/err" && break
        sleep 0.05
    done
    kill -INT $pid
    wait_stopped $pid
    exec 3<&-
    got_status 130 "optimal interrupted twice"
    if [ -e "$tmp/int2.json" ]; then
        fail=$((fail + 1))
        echo "FAIL: optimal interrupted twice wrote its JSON"
    else pass=$((pass + 1)); fi
fi
# compare --optimal: every policy's row, the optimal row, the note says why
# it is not proven
"$H" compare "$R60" --optimal --time-limit 600 >"$tmp/out" 2>"$tmp/err" &
interrupt_when_caught $!
got_status 0 "compare --optimal interrupted"
for p in $("$H" map -a help | awk 'NR > 1 {print $1}') optimal; do
    check "compare --optimal interrupted: row $p" "$tmp/out" "^$p\\*? +[0-9]+\\.[0-9]+ "
done
check "compare --optimal interrupted: note" "$tmp/out" \
    '^optimal: NOT proven \(interrupted, gap [0-9]+\.[0-9]+%'
# split --best-static: an interrupt during the runs before the search skips it
# (ss simulates 16M one-item chunks first, seconds), during it stops it
"$H" split -p ss va --sim --best-static >"$tmp/out" 2>"$tmp/err" &
interrupt_when_caught $!
got_status 0 "split --best-static interrupted"
check "split --best-static interrupted" "$tmp/out" \
    '^best static splits: interrupted after [0-9]+ of 202 splits$'
check "split report before the interrupt" "$tmp/out" '^split ss on va'

# large workloads: no MILP past 1000 tasks, but a schedule and a bound (the
# LP relaxation's when it finishes in time: tests/test_milp.c checks it)
"$H" gen random --tasks 1100 --devices cpu:1,gpu:1 --seed 2 -o "$tmp/r1100.yaml"
expect 0 "optimal past 1000 tasks" -- "$H" optimal "$tmp/r1100.yaml" --time-limit 8 \
    --json "$tmp/big.json"
check "optimal past 1000 tasks: why" "$tmp/out" \
    '^model +not built: the MILP takes at most 1000 tasks; this workload has 1100;'
expect 0 "optimal past 1000 tasks: json valid" -- "$H" validate "$tmp/r1100.yaml" "$tmp/big.json"
expect 0 "compare --optimal past 1000 tasks" -- "$H" compare "$tmp/r1100.yaml" --optimal \
    --time-limit 8
check "compare --optimal past 1000 tasks: row" "$tmp/out" '^optimal +[0-9]+\.[0-9]+ '
check "compare --optimal past 1000 tasks: note" "$tmp/out" \
    '^optimal: NOT proven: no MILP \(the MILP takes at most 1000 tasks'

# run: real execution on worker threads (exec/data.h)
RW=workloads/run-small.yaml
expect 0 "run emu" -- "$H" run -a heft "$RW" --trace "$tmp/run.json"
check "run measured" "$tmp/out" '^policy heft on .*, backend (emu|cuda): measured makespan [0-9.]+ us$'
check "run predicted" "$tmp/out" '^predicted makespan [0-9.]+ us \(executor model; measured / predicted [0-9.]+\)$'
check "run checked" "$tmp/out" '^checked 3 of 6 typed kernels \(sample, [0-9.]+ ms after the run\); 2 cost-only tasks'
check "run buffers" "$tmp/out" '^buffers: [0-9]+ reused, [0-9]+ made during the run, [0-9]+ made ahead$'
check "run outputs" "$tmp/out" '^outputs: [0-9]+ results, [0-9]+ bytes, digest [0-9a-f]{16}$'
check "run tables: gaps" "$tmp/out" '^  gpu0 +[0-9.]+ us +0\.000 us$'
check "run tables: kernels" "$tmp/out" '^  cost-only +cpu0 +[0-9]+ tasks? +[0-9.]+ us +[0-9.]+ us  x[0-9.]+$'
check "run tables: idle holding work, measured and predicted" "$tmp/out" \
    '^  gpu0 +gpu +busy .* tasks; idle holding work [0-9.]+ us \([0-9.]+%\), predicted [0-9.]+%; inputs there [0-9.]+ us \([0-9.]+%\), predicted [0-9.]+%$'
check "run tables: why inputs there" "$tmp/out" \
    '^inputs there, of it: behind a held task still waiting for its inputs; its worker launching \(the model has no launches, only overhead_us in each cost\):$'
check "run tables: behind and launching" "$tmp/out" \
    '^  gpu0   behind [0-9.]+ us \([0-9.]+%\), predicted [0-9.]+%; launching [0-9.]+ us \([0-9.]+%\)$'
# the predicted schedule's trace: the executor's model, its devices holding
# tasks (heft gives gpu0 the chains' scale kernels, held while va's results
# come)
expect 0 "run --predicted-trace" -- "$H" run -a heft "$RW" --backend emu --predicted-trace "$tmp/pred.json"
check "run --predicted-trace: the executor's model" "$tmp/pred.json" '"name":"hetsched heft, executor"'
check "run --predicted-trace: held tasks" "$tmp/pred.json" '"name":"held chain#0/scale","cat":"held"'
expect 2 "run --predicted-trace and --json on stdout" -- "$H" run -a heft "$RW" --json - \
    --predicted-trace -
check "run --predicted-trace and --json on stdout: why" "$tmp/err" \
    '--json and --predicted-trace both go to standard output'
expect 0 "run --predict delay: no predicted idle time" -- "$H" run -a heft "$RW" --backend emu --predict delay
check "run --predict delay: no predicted idle time" "$tmp/out" '^  gpu0 +gpu +busy .* tasks; idle holding work [0-9.]+ us \([0-9.]+%\); inputs there [0-9.]+ us \([0-9.]+%\)$'
check "run --predict delay: no predicted time behind" "$tmp/out" '^  gpu0   behind [0-9.]+ us \([0-9.]+%\); launching [0-9.]+ us \([0-9.]+%\)$'
# map --predict executor: what `run` predicts, without running: h-ratio on
# the case study is 6390.208 us in the delay model; the executor's model
# adds add's 4 MiB output going back to host after it (10 + 4194304 / 12000
# us on the 12 GB/s link)
expect 0 "map --predict executor" -- "$H" map -a h-ratio "$W" --predict executor
check "map --predict executor" "$tmp/out" \
    '^policy h-ratio on workloads/case-study.yaml: makespan 6749\.733 us \(executor.s model\)$'
# gpu0's kernels (6020 us) end at 6390.208 us; it is idle the other
# 370.208 us, each time holding a task whose input is on its way
check "map --predict executor: idle time while holding work" "$tmp/out" \
    '^  gpu0 +gpu +busy +6020\.000 us +89\.2%  2 tasks; idle holding work 370\.208 us \(5\.5%\); inputs there 0\.000 us \(0\.0%\)$'
expect 0 "map --predict delay" -- "$H" map -a h-ratio "$W" --predict delay
check "map --predict delay" "$tmp/out" '^policy h-ratio on workloads/case-study.yaml: makespan 6390\.208 us$'
check "map --predict delay: nothing held" "$tmp/out" '^  gpu0 +gpu +busy .* tasks$'
expect 2 "map --predict bad" -- "$H" map -a h-ratio "$W" --predict fast
check "map --predict bad: why" "$tmp/err" "--predict wants executor or delay, not 'fast'"
expect 0 "compare --predict executor" -- "$H" compare "$W" --predict executor
check "compare --predict executor: h-ratio" "$tmp/out" '^h-ratio +6749\.733 '
check "compare --predict executor: said" "$tmp/out" "^makespans in the executor's model"
expect 2 "compare --predict executor --optimal" -- "$H" compare "$W" --predict executor --optimal
check "compare --predict executor --optimal: why" "$tmp/err" \
    'optimal solves the delay model.s MILP: it does not go with --predict executor'
expect 0 "validate: the executor's model" -- "$H" map -a h-ratio "$W" --predict executor \
    --json "$tmp/exec.json"
expect 0 "validate: the executor's model" -- "$H" validate "$W" "$tmp/exec.json"
expect 0 "run predicts what map --predict executor says" -- "$H" run -a h-ratio "$W" --backend emu
check "run predicts what map --predict executor says" "$tmp/out" '^predicted makespan 6749\.733 us'
# cost-only data move as emulated copies on their links: the case study's
# h-ratio run shows them as transfers
check "run: cost-only data on the link" "$tmp/out" '^  host -> gpu0 +[0-9]+ bytes in [0-9]+ cop'
# the outputs' digest: the same bytes whatever the mapping, when every
# device computes with one thread (cores: 1; an emulated gpu does)
expect 0 "gen cholesky for the digest" -- "$H" gen cholesky --tiles 3 --tile-size 32 --cores 1 \
    -o "$tmp/chol3.yaml"
expect 0 "run heft: digest" -- "$H" run -a heft "$tmp/chol3.yaml" --backend emu --check none
check "run heft: one output" "$tmp/out" '^outputs: 1 results, 4096 bytes, digest [0-9a-f]{16}$'
grep '^outputs: ' "$tmp/out" >"$tmp/run-digest"
expect 0 "run eager: digest" -- "$H" run -a eager "$tmp/chol3.yaml" --backend emu --check none
check "run: the outputs do not depend on the mapping" "$tmp/out" "^$(cat "$tmp/run-digest")\$"
# run starts again with OpenBLAS's idle threads sleeping soon, unless told otherwise
expect 0 "run: OpenBLAS spin" -- env -u OPENBLAS_THREAD_TIMEOUT "$H" run -a heft "$RW" --backend emu --check none
check "run: OpenBLAS spin set" "$tmp/out" "^OpenBLAS's idle threads sleep after 2\^20 cycles \(OPENBLAS_THREAD_TIMEOUT\)$"
expect 0 "run: OpenBLAS spin given" -- env OPENBLAS_THREAD_TIMEOUT=7 "$H" run -a heft "$RW" --backend emu --check none
check "run: OpenBLAS spin kept" "$tmp/out" "^OpenBLAS's idle threads sleep after 2\^7 cycles "
expect 0 "run --predict delay" -- "$H" run -a heft "$RW" --backend emu --predict delay
check "run --predict delay" "$tmp/out" '^predicted makespan 990.000 us \(delay model; '
expect 2 "run --predict bad" -- "$H" run -a heft "$RW" --predict nope
check "run --predict bad: why" "$tmp/err" "predict wants executor or delay, not 'nope'"
expect 0 "run --check none" -- "$H" run -a heft "$RW" --backend emu --check none
check "run --check none: nothing checked" "$tmp/out" '^checked 0 of 6 typed kernels \(none, '
expect 0 "run --check full" -- "$H" run -a heft "$RW" --backend emu --check full --json "$tmp/run-m.json"
check "run --check full: all checked" "$tmp/out" '^checked 6 of 6 typed kernels \(full, '
check "run --json: measured" "$tmp/run-m.json" '"model": "measured"'
expect 0 "validate a run's schedule" -- "$H" validate "$RW" "$tmp/run-m.json"
check "validate a run's schedule: valid" "$tmp/out" '^valid: makespan [0-9.]+ us \(8 tasks, [0-9]+ transfers\)$'
expect 0 "run --fail" -- "$H" run -a heft "$RW" --backend emu --fail gpu0:after=2 --check full --json "$tmp/run-f.json"
check "run --fail: all checked" "$tmp/out" '^checked 6 of 6 typed kernels \(full, '
check "run --fail: said" "$tmp/out" '^device gpu0 failed at its task 2 \(--fail\): it ran nothing more; [1-9][0-9]* tasks? it held ran elsewhere$'
expect 0 "run --fail: the schedule validates" -- "$H" validate "$RW" "$tmp/run-f.json"
expect 2 "run --fail bad" -- "$H" run -a heft "$RW" --fail gpu0
check "run --fail bad: why" "$tmp/err" "fail wants DEVICE:after=N \(N >= 1\), not 'gpu0'"
expect 2 "run --fail unknown device" -- "$H" run -a heft "$RW" --fail gpu9:after=1
check "run --fail unknown device: why" "$tmp/err" "no device 'gpu9'"
# a kernel split by ad-part shifts the tasks after it in the graph run: a
# cost-only task's copies still name it, and the measured schedule validates
AW=tests/cases/run-adpart-costonly.yaml
expect 0 "run ad-part, cost-only after a split" -- "$H" run -a ad-part "$AW" --backend emu --json "$tmp/run-a.json"
expect 0 "run ad-part: the schedule validates" -- "$H" validate "$AW" "$tmp/run-a.json"
check "run ad-part: parts and copies" "$tmp/out" '^valid: makespan [0-9.]+ us \(3 tasks, [0-9]+ transfers\)$'
# splitting at run time: every item once (full checks), the schedule valid;
# the fractions fixed before the run (planned) as well
SW=workloads/split-small.yaml
expect 0 "run --split live" -- "$H" run -a heft "$SW" --split hdss --check full --json "$tmp/run-s.json"
check "run --split live: all checked" "$tmp/out" '^checked 3 of 3 typed kernels \(full, '
check "run --split live: said" "$tmp/out" '^split at run time by hdss: 4 kernels in [0-9]+ chunks$'
expect 0 "run --split live: the schedule validates" -- "$H" validate "$SW" "$tmp/run-s.json"
expect 0 "run --split live, throttled cpu" -- "$H" run -a heft "$SW" --split hdss --backend cpu --devices cpu0,cpu1 --throttle cpu1:3 --check full
check "run --throttle: said" "$tmp/out" '^device cpu1 ran 3 times slower \(--throttle\)$'
expect 0 "run --split planned" -- "$H" run -a heft "$SW" --split hdss --split-mode planned --check full --json "$tmp/run-p.json"
expect 0 "run --split planned: the schedule validates" -- "$H" validate "$SW" "$tmp/run-p.json"
expect 2 "run --split-mode alone" -- "$H" run -a heft "$SW" --split-mode planned
check "run --split-mode alone: why" "$tmp/err" "split-mode applies to --split only"
expect 2 "run --split-mode bad" -- "$H" run -a heft "$SW" --split hdss --split-mode later
expect 2 "run --split live with --fail" -- "$H" run -a heft "$SW" --split hdss --fail cpu0:after=1
check "run --split live with --fail: why" "$tmp/err" "fail does not apply to a split at run time"
expect 2 "run --split unknown" -- "$H" run -a heft "$SW" --split nosuch
expect 2 "run --throttle bad" -- "$H" run -a heft "$SW" --throttle cpu1:0.5
check "run --throttle bad: why" "$tmp/err" "throttle wants DEVICE:FACTOR with a FACTOR above 1"
expect 2 "run --throttle a gpu" -- "$H" run -a heft "$SW" --throttle gpu0:2
check "run --throttle a gpu: why" "$tmp/err" "no cpu device 'gpu0'"
expect 2 "run --check bad" -- "$H" run -a heft "$RW" --check some
check "run --check bad: why" "$tmp/err" "check wants sample, full or none, not 'some'"
check "run trace" "$tmp/run.json" '"traceEvents"'
check "run trace: measured on a backend" "$tmp/run.json" '"name":"hetsched heft, measured on backend (emu|cuda)"'
check "run trace: workers" "$tmp/run.json" '"name":"cpu0 worker"'
check "run trace: checks" "$tmp/run.json" '"name":"check chain#0/va"'
expect 2 "run cpu on a gpu platform" -- "$H" run -a heft --backend cpu "$RW"
check "run cpu on a gpu platform: why" "$tmp/err" "backend cpu runs cpu devices only"
expect 2 "run bad backend" -- "$H" run -a heft --backend sim "$RW"
expect 2 "run unknown policy" -- "$H" run -a nope "$RW"
# run: device memory capacity and device selection (exec/data.h)
expect 0 "run --device-memory" -- "$H" run -a heft "$RW" --backend emu --device-memory 1M
check "run --device-memory checked" "$tmp/out" '^checked 3 of 6 typed kernels'
expect 2 "run kernel too big" -- "$H" run -a heft "$RW" --backend emu --device-memory 100K
check "run kernel too big: why" "$tmp/err" \
    "scale\) needs 800000 bytes on memory 'gpu0', whose capacity is 102400 bytes"
expect 2 "run --device-memory bad" -- "$H" run -a heft "$RW" --device-memory 12Q
expect 0 "run --devices" -- "$H" run -a heft "$RW" --devices gpu0 --backend emu
check "run --devices: all on gpu0" "$tmp/out" '^  gpu0 +gpu +busy .* 8 tasks; idle holding work '
expect 2 "run --devices unknown" -- "$H" run -a heft "$RW" --devices cpu0,gpu9
check "run --devices unknown: why" "$tmp/err" "the platform has no device 'gpu9'"

# run and map --schedule: a schedule of optimal, map or run, run as given
# (mapper/given.c).  The case study's MILP optimum run in the simulator
# again: its makespan, 6390.208 us, exactly
G=$tmp/given
expect 0 "optimal --json for --schedule" -- "$H" optimal "$W" --json "$G-opt.json"
check "optimal: the case study's optimum" "$tmp/out" '^makespan +6390\.208 us$'
expect 0 "map --schedule" -- "$H" map --schedule "$G-opt.json" "$W" --json "$G-map.json"
check "map --schedule: the optimum's makespan" "$tmp/out" \
    "^schedule $G-opt.json on $W: makespan 6390\.208 us\$"
check "map --schedule: algorithm given" "$G-map.json" '"algorithm": "given"'
expect 0 "map --schedule - (stdin)" -- "$H" map --schedule - "$W" <"$G-opt.json"
check "map --schedule -: the optimum's makespan" "$tmp/out" 'on .*: makespan 6390\.208 us$'
# run --backend emu --schedule: each task on the device and in the order the
# schedule gives, although no policy would choose them (va#0/scale alone on
# cpu0; gpu0 runs cd, va's add, ab, then xgemm's add)
cat >"$G-order.json" <<'END'
{"workload": null, "algorithm": null, "model": "delay", "makespan_us": 0,
 "tasks": [
  {"id": "xgemm#0/add", "device": "gpu0", "start_us": 40, "end_us": 41, "fraction": 1},
  {"id": "va#0/scale", "device": "cpu0", "start_us": 0, "end_us": 1, "fraction": 1},
  {"id": "xgemm#0/ab", "device": "gpu0", "start_us": 30, "end_us": 31, "fraction": 1},
  {"id": "va#0/add", "device": "gpu0", "start_us": 20, "end_us": 21, "fraction": 1},
  {"id": "xgemm#0/cd", "device": "gpu0", "start_us": 10, "end_us": 11, "fraction": 1}
 ],
 "transfers": []}
END
# "DEVICE: ID ID ..." per device, in the order of their start times in FILE
device_orders() {
    awk -F'"' '$2 == "id" { s = $0; sub(/.*"start_us": /, "", s); sub(/,.*/, "", s)
        print $8, s, $4 }' "$1" | sort -k1,1 -k2,2g |
        awk '$1 != d { if (d != "") print line; d = $1; line = d ":" } { line = line " " $3 }
             END { print line }'
}
expect 0 "run --schedule" -- "$H" run --backend emu --schedule "$G-order.json" "$W" \
    --json "$G-run.json"
check "run --schedule: said" "$tmp/out" \
    "^schedule $G-order.json on $W, backend emu: measured makespan [0-9.]+ us\$"
device_orders "$G-run.json" >"$G-orders"
check "run --schedule: cpu0 ran va's scale alone" "$G-orders" '^cpu0: va#0/scale$'
check "run --schedule: gpu0 in the schedule's order" "$G-orders" \
    '^gpu0: xgemm#0/cd va#0/add xgemm#0/ab xgemm#0/add$'
check "run --schedule: the measured schedule says given" "$G-run.json" '"algorithm": "given"'
expect 0 "run --schedule: the measured schedule validates" -- "$H" validate "$W" "$G-run.json"
# a run's measured schedule runs as given again: the same devices and orders
expect 0 "map --schedule of a run's" -- "$H" map --schedule "$G-run.json" "$W" \
    --json "$G-remap.json"
device_orders "$G-remap.json" >"$G-reorders"
expect 0 "map --schedule of a run's: the same orders" -- cmp "$G-orders" "$G-reorders"
# refused: exit 2, one line that says where and why (a usage error's
# "Try 'hetsched CMD --help'." after it)
given_refused() { # given_refused DESCRIPTION PATTERN -- COMMAND...
    local what=$1 pattern=$2
    shift 2
    expect 2 "$what" "$@"
    check "$what: why" "$tmp/err" "$pattern"
    if [ "$(grep -vc "^Try 'hetsched [a-z]* --help'\.\$" "$tmp/err")" -eq 1 ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: $what: not one line on stderr"
    fi
}
given_refused "run --schedule with -a" \
    '^hetsched run: --schedule runs the schedule it is given: no policy \(-a heft\) with it$' \
    -- "$H" run -a heft --schedule "$G-opt.json" "$W"
given_refused "map --schedule with -a" \
    '^hetsched map: --schedule runs the schedule it is given: no policy \(-a heft\) with it$' \
    -- "$H" map -a heft --schedule "$G-opt.json" "$W"
given_refused "map --schedule --seed" 'seed does not apply to --schedule' \
    -- "$H" map --schedule "$G-opt.json" "$W" --seed 3
given_refused "map --schedule --split" 'split does not apply to --schedule' \
    -- "$H" map --schedule "$G-opt.json" "$SW" --split hdss
given_refused "run --schedule --split" \
    'split does not apply to --schedule: the schedule places whole tasks' \
    -- "$H" run --schedule "$G-opt.json" "$SW" --split hdss
given_refused "run: neither -a nor --schedule" 'no policy: give -a ALGO or --schedule FILE' \
    -- "$H" run "$W"
given_refused "run --schedule: no such file" "^hetsched: $G-none.json: cannot read" \
    -- "$H" run --schedule "$G-none.json" "$W"
expect 0 "map --json of another workload" -- "$H" map -a heft workloads/tiny.yaml \
    --json "$G-tiny.json"
given_refused "map --schedule of another workload" \
    "^hetsched: $G-tiny.json:[0-9]+:[0-9]+: error: tasks\[0\]\.id: no task 'tiny#0/[a-z]+' in the workload \(the schedule is of workload workloads/tiny.yaml, not $W\)\$" \
    -- "$H" map --schedule "$G-tiny.json" "$W"
grep -v 'va#0/scale' "$G-order.json" >"$G-short.json"
given_refused "run --schedule without a task" \
    "^hetsched: $G-short.json:1:1: error: task 'va#0/scale' is not placed \(the schedule places 4 of the workload's 5 tasks\)\$" \
    -- "$H" run --backend emu --schedule "$G-short.json" "$W"
sed 's|"va#0/scale", "device": "cpu0"|"va#0/scale", "device": "gpu0"|' "$G-order.json" \
    >"$G-cycle.json"
given_refused "map --schedule: scale before add on gpu0" \
    "^hetsched: $G-cycle.json:4:54: error: tasks\[1\]\.start_us: 'va#0/scale' starts at 0\.000 us on gpu0, before 'va#0/add' that it needs \(tasks\[3\], at 20\.000 us\)\$" \
    -- "$H" map --schedule "$G-cycle.json" "$W"
given_refused "run --schedule on fewer devices" \
    "^hetsched: $G-opt.json:[0-9]+:[0-9]+: error: tasks\[[0-9]+\]\.device: no device 'gpu0' in the workload\$" \
    -- "$H" run --backend cpu --devices cpu0 --schedule "$G-opt.json" "$W"
expect 0 "map -a ad-part --json" -- "$H" map -a ad-part "$W" --json "$G-parts.json"
check "map -a ad-part: below the bound, said why" "$tmp/out" \
    '^lower bound 6390\.208 us \(makespan / bound 0\.983; the bound is over whole tasks, which this schedule splits\)$'
given_refused "run --schedule of split tasks" \
    "error: tasks\[[0-9]+\]\.id: 'xgemm#0/ab\[0/[0-9]+\]' is a part of a split task: a given schedule runs whole tasks\$" \
    -- "$H" run --schedule "$G-parts.json" "$W"

# calibrate: a small CPU calibration; its model and platform serve map and run
CM=$tmp/cal-model.json
CP=$tmp/cal-platform.yaml
expect 0 "calibrate cpu" -- "$H" calibrate --types va,scale --sizes 2000,20000,200000 \
    --reps 3 --threads 1 --devices cpu --out-model "$CM" --out-platform "$CP"
check "calibrate fit row" "$tmp/out" '^  va +cpu0 +3 +[0-9]+ +[0-9]+ +[-0-9.e+]+ '
check "calibrate progress on stderr" "$tmp/err" '^calibrate: scale on cpu0: 3 sizes'
check "calibrate wrote" "$tmp/out" "^wrote $CM and $CP\$"
check "calibrate model" "$CM" '"hetsched_perfmodel": 2'
check "calibrate platform" "$CP" '^  - \{name: cpu0, kind: cpu, memory: host, cores: 1\}'
cat "$CP" - >"$tmp/cal-work.yaml" <<'EOF'
applications:
  - name: cal
    kernels:
      - {name: a, type: va, params: {n: 50000}}
      - {name: b, type: scale, params: {n: 50000}}
    edges:
      - {from: a, to: b, bytes: 200000}
EOF
expect 0 "map with the calibrated model" -- "$H" map -a heft "$tmp/cal-work.yaml" --model "$CM"
expect 0 "run with the calibrated model" -- "$H" run -a heft "$tmp/cal-work.yaml" --model "$CM"
check "run with the calibrated model: checked" "$tmp/out" '^checked 2 of 2 typed kernels'
expect 0 "calibrate --types help" -- "$H" calibrate --types help
check "calibrate --types help lists gemm" "$tmp/out" '^  gemm '
for bad in "--reps 2" "--reps x" "--threads 0" "--sizes huge" "--sizes 0" "--sizes 1,,2" \
    "--types nope" "--types va,va" "--devices tpu" "--devices gpu99" "--bogus" "extra"; do
    # shellcheck disable=SC2086 # word splitting of $bad is wanted
    expect 2 "calibrate $bad" -- "$H" calibrate -q $bad --out-model "$tmp/x.json" \
        --out-platform "$tmp/x.yaml"
    check "calibrate $bad: try --help" "$tmp/err" "^Try 'hetsched calibrate --help'"
done
check "calibrate extra argument: why" "$tmp/err" "unexpected argument 'extra'"
expect 2 "calibrate --devices gpu99" -- "$H" calibrate -q --devices gpu99
check "calibrate --devices gpu99: why" "$tmp/err" 'devices: no device gpu99'
expect 2 "calibrate --types nope" -- "$H" calibrate -q --types nope
check "calibrate --types nope: why" "$tmp/err" "unknown kernel type 'nope' \(known: va, "
expect 2 "calibrate both outputs on stdout" -- "$H" calibrate --out-model - --out-platform -

# calibrate --for: exactly the kernels of a workload (no cost_us: the model
# gives them); run --update-model adds each run's task times; model show
FW=$tmp/for.yaml
FM=$tmp/for-model.json
cat >"$FW" <<'EOF'
platform:
  devices:
    - {name: cpu0, kind: cpu, memory: host, cores: 1}
applications:
  - name: f
    instances: 2
    kernels:
      - {name: a, type: va, params: {n: 50000}}
      - {name: b, type: scale, params: {n: 50000, s: 3}}
    edges:
      - {from: a, to: b, bytes: 200000}
EOF
expect 0 "calibrate --for" -- "$H" calibrate --for "$FW" --devices cpu --reps 3 \
    --out-model "$FM" --out-platform "$tmp/for-platform.yaml"
check "calibrate --for: va row" "$tmp/out" \
    '^  va +cpu0 +n=50000 +5e\+04 +3 +[0-9.e+]+ +[0-9.]+% +- +-$'
check "calibrate --for: scale row, its params" "$tmp/out" '^  scale +cpu0 +n=50000,s=3 +5e\+04 +3 '
check "calibrate --for: cores of the workload" "$tmp/out" '^devices: cpu0 \(host, 1 thread\)$'
check "calibrate --for: params in the model" "$FM" '"params": "n=50000,s=3"'
check "calibrate --for: progress" "$tmp/err" '^calibrate: scale on cpu0: 1 kernel \(D 5e\+04'
expect 0 "run --update-model" -- "$H" run -a heft "$FW" --backend cpu --model "$FM" \
    --update-model "$FM"
check "run --update-model: what it added" "$tmp/out" \
    "^model $FM: added 4 task times \(4 whole, 0 parts of split kernels\); 0 cost-only tasks not recorded; 2 entries, 0 fits\$"
expect 0 "model show" -- "$H" model show "$FM"
check "model show: run's samples added" "$tmp/out" '^  va +cpu0 +n=50000 +5e\+04 +5 '
check "model show: header" "$tmp/out" \
    '^  type +device +params +D +n +median us +spread +fit us +median/fit$'
# a device that ran 5 tasks or more gets its overhead per task recorded,
# which the model then gives the platform (it has none of its own)
sed 's/instances: 2/instances: 3/' "$FW" >"$tmp/for3.yaml"
expect 0 "run --update-model: overhead" -- "$H" run -a heft "$tmp/for3.yaml" --backend cpu \
    --model "$FM" --update-model "$FM"
check "run --update-model: overhead added" "$tmp/out" \
    "^model $FM: added 6 task times \(6 whole, 0 parts of split kernels\), 1 device's overhead per task; "
check "run: measured overhead beside the platform's" "$tmp/out" \
    '^  cpu0 +[0-9]+\.[0-9]{3} us +0\.000 us$'
expect 0 "model show: overhead" -- "$H" model show "$FM"
check "model show: the overhead row" "$tmp/out" '^  overhead +cpu0 +- +1 +1 '
expect 0 "run with the model's overhead" -- "$H" run -a heft "$tmp/for3.yaml" --backend cpu \
    --model "$FM"
check "run with the model's overhead: in the platform's column" "$tmp/out" \
    '^  cpu0 +[0-9]+\.[0-9]{3} us +([1-9][0-9]*\.[0-9]{3}|0\.[0-9]*[1-9][0-9]*) us$'
expect 0 "run --update-model, a new file" -- "$H" run -a heft "$RW" --backend emu \
    --update-model "$tmp/new-model.json"
check "run --update-model, a new file: added" "$tmp/out" \
    "added 6 task times \(6 whole, 0 parts of split kernels\), 1 device's overhead per task; 2 cost-only tasks not recorded"
cat >"$tmp/split.yaml" <<'EOF'
platform:
  devices:
    - {name: cpu0, kind: cpu, memory: host, cores: 1}
    - {name: gpu0, kind: gpu, memory: gpu0}
  links:
    - {from: host, to: gpu0, bandwidth_gbps: 10, latency_us: 5}
    - {from: gpu0, to: host, bandwidth_gbps: 10, latency_us: 5}
applications:
  - name: s
    kernels:
      - {name: v, type: va, params: {n: 100000}, splittable: true, items: 100000,
         cost_us: {cpu: 100, gpu: 100}}
EOF
expect 0 "run --split --update-model" -- "$H" run -a heft "$tmp/split.yaml" --backend emu \
    --split static --update-model "$tmp/split-model.json"
check "run --split --update-model: parts" "$tmp/out" \
    'added 2 task times \(0 whole, 2 parts of split kernels\)'
expect 0 "model show: parts" -- "$H" model show "$tmp/split-model.json"
check "model show: a part at half the flops" "$tmp/out" '^  va +gpu0 +part +5e\+04 +1 '
if grep -q 'HS_HAVE_CAIRO 1' "$HS_BUILD_ROOT/hs_config.h"; then
    expect 0 "model show --plot" -- "$H" model show "$FM" --plot "$tmp/model.png"
    check "model show --plot: a PNG" "$tmp/model.png" 'PNG'
    expect 2 "model show --plot bad extension" -- "$H" model show "$FM" --plot "$tmp/model.txt"
    check "model show --plot bad extension: why" "$tmp/err" 'a model plot is written as .png or .svg'
else
    expect 1 "model show --plot without cairo" -- "$H" model show "$FM" --plot "$tmp/model.png"
    check "model show --plot without cairo: why" "$tmp/err" 'model plots need cairo: not built in'
fi
expect 2 "calibrate --for with --types" -- "$H" calibrate -q --for "$FW" --types va
check "calibrate --for with --types: why" "$tmp/err" \
    "types: a workload's kernels are measured at their own types and sizes"
expect 2 "calibrate --for missing file" -- "$H" calibrate -q --for "$tmp/none.yaml"
expect 2 "calibrate --for untyped" -- "$H" calibrate -q --for "$W" --devices cpu \
    --out-model "$tmp/x.json" --out-platform "$tmp/x.yaml"
check "calibrate --for untyped: why" "$tmp/err" "$W has no typed kernel to measure"
expect 2 "run --update-model stdout" -- "$H" run -a heft "$RW" --update-model -
echo '{"hetsched_perfmodel": 2' >"$tmp/broken.json"
expect 2 "run --update-model broken" -- "$H" run -a heft "$RW" --backend emu \
    --update-model "$tmp/broken.json"
empty "run --update-model broken: refused before running" "$tmp/out"
expect 2 "model without action" -- "$H" model
expect 2 "model frob" -- "$H" model frob "$FM"
check "model frob: why" "$tmp/err" "unknown action 'frob'"
expect 2 "model show two files" -- "$H" model show "$FM" "$FM"
expect 2 "model show missing" -- "$H" model show "$tmp/none.json"

# task-graph sets (STG, WfFormat, DOT): the fork of tests/test_read.c, worked
# out by hand there, reads alike in each format; a platform is needed and
# only a set takes one; the DOT that `dot` writes maps like its workload
cat >"$tmp/plat.yaml" <<'EOF'
platform:
  devices:
    - {name: cpu0, kind: cpu, memory: host}
    - {name: gpu0, kind: gpu, memory: gpu0}
  links:
    - {from: host, to: gpu0, bandwidth_gbps: 1, latency_us: 5}
    - {from: gpu0, to: host, bandwidth_gbps: 1, latency_us: 5}
EOF
for f in workloads/sets/fork.stg workloads/sets/fork.json workloads/sets/fork.dot; do
    expect 0 "map $f" -- "$H" map -a heft "$f" --platform "$tmp/plat.yaml" --speed gpu=2
    check "map $f: heft by hand" "$tmp/out" "^policy heft on $f: makespan 23\.000 us"
    expect 0 "info $f" -- "$H" info "$f" --platform "$tmp/plat.yaml"
    check "info $f" "$tmp/out" '^task graph: 4 tasks, 4 edges, 19000 bytes on edges'
    expect 2 "map $f without a platform" -- "$H" map -a heft "$f"
    check "map $f without a platform: why" "$tmp/err" "is a task-graph set .* give --platform"
    empty "map $f without a platform: stdout" "$tmp/out"
done
expect 0 "map --json of a set" -- "$H" map -a dmda workloads/sets/fork.stg \
    --platform "$tmp/plat.yaml" --speed gpu=2 --json "$tmp/fork.json"
check "map --json of a set: dmda by hand" "$tmp/out" 'makespan 22\.000 us'
expect 0 "validate a set's schedule" -- "$H" validate workloads/sets/fork.stg "$tmp/fork.json" \
    --platform "$tmp/plat.yaml" --speed gpu=2
check "validate a set's schedule" "$tmp/out" '^valid: makespan 22\.000 us'
expect 1 "validate with other costs" -- "$H" validate workloads/sets/fork.stg "$tmp/fork.json" \
    --platform "$tmp/plat.yaml"
cp workloads/sets/fork.stg "$tmp/fork.txt"
expect 0 "--format stg" -- "$H" map -a heft "$tmp/fork.txt" --format stg \
    --platform "$tmp/plat.yaml" --speed gpu=2
check "--format stg" "$tmp/out" 'makespan 23\.000 us'
expect 2 "--format txt" -- "$H" info "$tmp/fork.txt" --format txt
check "--format txt: why" "$tmp/err" "^hetsched info: --format wants yaml, json, stg, wfformat or dot"
expect 2 "--platform on YAML" -- "$H" map -a heft "$W" --platform "$tmp/plat.yaml"
check "--platform on YAML: why" "$tmp/err" "--platform is for task-graph sets"
expect 2 "--speed bad" -- "$H" dot workloads/sets/fork.dot --platform "$tmp/plat.yaml" \
    --speed gpu
check "--speed bad: why" "$tmp/err" "^hetsched dot: --speed: speed 'gpu': expected"
expect 2 "--speed unknown device" -- "$H" info workloads/sets/fork.dot \
    --platform "$tmp/plat.yaml" --speed tpu=2
check "--speed unknown device: why" "$tmp/err" "the platform has no device or kind 'tpu'"
expect 2 "--beta 2" -- "$H" optimal workloads/sets/fork.dot --platform "$tmp/plat.yaml" --beta 2
expect 2 "--beta-seed alone" -- "$H" info workloads/sets/fork.dot --platform "$tmp/plat.yaml" \
    --beta-seed 3
expect 0 "--beta" -- "$H" info workloads/sets/fork.dot --platform "$tmp/plat.yaml" --beta 1 \
    --beta-seed 3
expect 2 "--platform missing" -- "$H" info workloads/sets/fork.dot --platform "$tmp/none.yaml"
check "--platform missing: why" "$tmp/err" "none.yaml: cannot read"
printf '2\n0 0 0\n1 x 1 0\n' >"$tmp/bad.stg"
expect 2 "bad STG" -- "$H" map -a heft "$tmp/bad.stg" --platform "$tmp/plat.yaml"
check "bad STG: located" "$tmp/err" "^hetsched: $tmp/bad.stg:3:3: error: task 1: expected a processing time, not 'x'$"
empty "bad STG: stdout" "$tmp/out"
printf 'digraph g { a [cost=1]; b [cost=2]; a -> b [bytes=x] }\n' >"$tmp/bad.dot"
expect 2 "bad DOT" -- "$H" run -a heft "$tmp/bad.dot" --platform "$tmp/plat.yaml"
check "bad DOT: named" "$tmp/err" "^hetsched: $tmp/bad.dot: error: edge 'a' -> 'b': bytes: expected a whole number >= 0, not 'x'$"
for rw in "$W" workloads/run-small.yaml workloads/two-gpus.yaml; do
    expect 0 "dot $rw" -- "$H" dot "$rw" -o "$tmp/rt.dot"
    for p in $("$H" map -a help | awk 'NR > 1 {print $1}'); do
        a=$("$H" map -a "$p" "$rw" | head -1 | sed 's/.*: makespan //')
        b=$("$H" map -a "$p" "$tmp/rt.dot" --platform "$rw" | head -1 | sed 's/.*: makespan //')
        if [ -n "$a" ] && [ "$a" = "$b" ]; then pass=$((pass + 1)); else
            fail=$((fail + 1))
            echo "FAIL: dot of $rw read back, $p: makespan '$a', read back '$b'"
        fi
    done
done

# compare --suite: every policy over the bundled sets, rows in CSV and JSON
npol=$("$H" map -a help | awk 'NR > 1' | wc -l)
expect 0 "compare --suite" -- "$H" compare --suite workloads/sets --platform "$tmp/plat.yaml" \
    --speed gpu=4 --csv "$tmp/suite.csv" --json "$tmp/suite.json"
check "compare --suite summary" "$tmp/out" '^suite: 7 workloads$'
check "compare --suite tables" "$tmp/out" '^workload workloads/sets/stencil\.dot: 9 tasks, 12 edges'
check "compare --suite csv header" "$tmp/suite.csv" '^workload,format,tasks,edges,devices,policy,makespan_us,speedup,slr,ratio_best,ratio_bound,map_ms,lower_bound_us,critical_path_us,split,note$'
check "compare --suite csv heft on fork.stg" "$tmp/suite.csv" '^workloads/sets/fork\.stg,stg,4,4,2,heft,[0-9.]+,'
if [ "$(wc -l <"$tmp/suite.csv")" -eq $((1 + 7 * npol)) ] &&
    [ "$(grep -c '"policy": ' "$tmp/suite.json")" -eq $((7 * npol)) ]; then
    pass=$((pass + 1))
else
    fail=$((fail + 1))
    echo "FAIL: compare --suite: not one row per workload and policy ($npol policies)"
fi
expect 2 "compare --suite without a platform" -- "$H" compare --suite workloads/sets
check "compare --suite without a platform: why" "$tmp/err" "give --platform FILE"
expect 2 "compare --suite with a bad file" -- "$H" compare --suite "$W" "$tmp/bad.stg" \
    --platform "$tmp/plat.yaml" --csv "$tmp/two.csv"
check "compare --suite with a bad file: said" "$tmp/err" "bad.stg:3:3: error"
check "compare --suite with a bad file: the others done" "$tmp/out" '^suite: 1 workloads \(1 more could not be read\)$'
check "compare --suite with a bad file: rows" "$tmp/two.csv" '^workloads/case-study\.yaml,yaml,5,3,2,heft,6390\.208,'
expect 2 "compare --suite --platform, only YAML" -- "$H" compare --suite "$W" \
    --platform "$tmp/plat.yaml"
mkdir "$tmp/emptydir"
expect 2 "compare --suite empty directory" -- "$H" compare --suite "$tmp/emptydir"
expect 2 "compare --suite --optimal" -- "$H" compare --suite "$W" --optimal
expect 2 "compare --random --platform" -- "$H" compare --random 2 --platform "$tmp/plat.yaml"

# scripts/convert-sets.sh: every bundled set as DOT with frozen costs, read
# back by compare --suite; a set that does not convert is named, exit 1
expect 0 "convert-sets" -- env HETSCHED="$H" scripts/convert-sets.sh workloads/sets \
    "$tmp/conv" "$tmp/plat.yaml"
check "convert-sets: all" "$tmp/out" "^converted 7 sets into $tmp/conv$"
expect 1 "convert-sets --beta" -- env HETSCHED="$H" scripts/convert-sets.sh workloads/sets \
    "$tmp/convb" "$tmp/plat.yaml" --beta 0.5 --beta-seed 2
check "convert-sets --beta: stencil.dot has its costs per device" "$tmp/err" \
    "^convert-sets\.sh: hetsched: workloads/sets/stencil\.dot: error: speeds and beta derive"
check "convert-sets --beta: the others" "$tmp/out" "^converted 6 sets into $tmp/convb, 1 failed$"
expect 0 "compare --suite converted" -- "$H" compare --suite "$tmp/conv" \
    --platform "$tmp/plat.yaml" --csv "$tmp/conv.csv"
check "compare --suite converted: fork.stg" "$tmp/conv.csv" \
    "^$tmp/conv/fork\\.stg\\.dot,dot,4,4,2,cpu-only,"
mkdir -p "$tmp/badsets" && cp "$tmp/bad.stg" workloads/sets/fork.dot "$tmp/badsets/"
expect 1 "convert-sets with a bad set" -- env HETSCHED="$H" scripts/convert-sets.sh \
    "$tmp/badsets" "$tmp/conv2" "$tmp/plat.yaml"
check "convert-sets with a bad set: named" "$tmp/err" "^convert-sets\.sh: hetsched: $tmp/badsets/bad\.stg:3:3: error"
check "convert-sets with a bad set: counted" "$tmp/out" "^converted 1 sets into $tmp/conv2, 1 failed$"
expect 2 "convert-sets without a platform" -- env HETSCHED="$H" scripts/convert-sets.sh \
    workloads/sets "$tmp/conv3"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
