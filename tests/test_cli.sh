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

# malformed workloads: exit 2, FILE:LINE:COL on stderr, nothing on stdout
for f in tests/cases/bad-*.yaml; do
    [ -e "$f" ] || continue
    expect 2 "bad input $f" -- "$H" info "$f"
    check "bad input $f message" "$tmp/err" "^hetsched: $f(:[0-9]+:[0-9]+)?: error: "
    empty "bad input $f stdout" "$tmp/out"
done
expect 2 "missing file" -- "$H" info /nonexistent.yaml
check "missing file named" "$tmp/err" "/nonexistent.yaml"
expect 2 "extra argument" -- "$H" info "$W" extra

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
    expect 2 "map unknown policy" -- "$H" map -a nope "$W"
    check "map unknown policy named" "$tmp/err" "unknown policy 'nope'"
    expect 0 "map -a help" -- "$H" map -a help
    check "map -a help lists heft" "$tmp/out" 'heft'
fi

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

    expect 0 "compare --optimal" -- "$H" compare "$W" --optimal --time-limit 60
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
expect 0 "map ad-part --model" -- "$H" map -a ad-part "$TW" --model "$TM"
check "map --model makespan" "$tmp/out" '^policy ad-part on .*: makespan [0-9]+\.[0-9]+ us$'
expect 2 "typed workload without --model" -- "$H" map -a ad-part "$TW"
check "typed workload without --model: why" "$tmp/err" \
    "kernel 'ab' of type 'gemm' has no cost_us and no performance model is loaded"
expect 2 "map --model unreadable" -- "$H" map -a heft "$TW" --model "$tmp/none.json"
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
# interrupt_when_caught PID: sends SIGINT once PID has its handler, waits for
# it and sets $got to its exit status
interrupt_when_caught() {
    for _ in $(seq 1 600); do
        caught_sigint "$1" && break
        sleep 0.05
    done
    kill -INT "$1"
    wait "$1"
    got=$?
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
    cat "$tmp/lp" >"$tmp/int.lp"
    kill -INT $pid
    wait $pid
    got=$?
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
# FIFO nobody reads, where the first one cannot end anything
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
wait $pid
got=$?
exec 3<&-
got_status 130 "optimal interrupted twice"
if [ -e "$tmp/int2.json" ]; then
    fail=$((fail + 1))
    echo "FAIL: optimal interrupted twice wrote its JSON"
else pass=$((pass + 1)); fi
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
check "run predicted" "$tmp/out" '^predicted makespan [0-9.]+ us \(measured / predicted [0-9.]+\)$'
check "run checked" "$tmp/out" '^checked 6 of 6 typed kernels; 2 cost-only tasks'
check "run trace" "$tmp/run.json" '"traceEvents"'
expect 2 "run cpu on a gpu platform" -- "$H" run -a heft --backend cpu "$RW"
check "run cpu on a gpu platform: why" "$tmp/err" "backend cpu runs cpu devices only"
expect 2 "run bad backend" -- "$H" run -a heft --backend sim "$RW"
expect 2 "run unknown policy" -- "$H" run -a nope "$RW"
# run: device memory capacity and device selection (exec/data.h)
expect 0 "run --device-memory" -- "$H" run -a heft "$RW" --backend emu --device-memory 1M
check "run --device-memory checked" "$tmp/out" '^checked 6 of 6 typed kernels'
expect 2 "run kernel too big" -- "$H" run -a heft "$RW" --backend emu --device-memory 100K
check "run kernel too big: why" "$tmp/err" \
    "scale\) needs 800000 bytes on memory 'gpu0', whose capacity is 102400 bytes"
expect 2 "run --device-memory bad" -- "$H" run -a heft "$RW" --device-memory 12Q
expect 0 "run --devices" -- "$H" run -a heft "$RW" --devices gpu0 --backend emu
check "run --devices: all on gpu0" "$tmp/out" '^  gpu0 +gpu +busy .* 8 tasks$'
expect 2 "run --devices unknown" -- "$H" run -a heft "$RW" --devices cpu0,gpu9
check "run --devices unknown: why" "$tmp/err" "the platform has no device 'gpu9'"

# calibrate: a small CPU calibration; its model and platform serve map and run
CM=$tmp/cal-model.json
CP=$tmp/cal-platform.yaml
expect 0 "calibrate cpu" -- "$H" calibrate --types va,scale --sizes 2000,20000,200000 \
    --reps 3 --threads 1 --devices cpu --out-model "$CM" --out-platform "$CP"
check "calibrate fit row" "$tmp/out" '^  va +cpu0 +3 +[0-9]+ +[0-9]+ +[-0-9.e+]+ '
check "calibrate progress on stderr" "$tmp/err" '^calibrate: scale on cpu0: 3 sizes'
check "calibrate wrote" "$tmp/out" "^wrote $CM and $CP\$"
check "calibrate model" "$CM" '"hetsched_perfmodel": 1'
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

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
