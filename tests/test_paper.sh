#!/usr/bin/env bash
# The paper's workloads (workloads/paper/, Zhou & Liu Fig. 4 and Sec. 5.2):
#   - the committed files are what scripts/gen-paper-workloads.sh makes now;
#   - every file loads and maps with every policy (`compare`);
#   - the ones small enough for CI run for real on the emu backend (the
#     files as they are: one CPU device and one emulated GPU) and on the cpu
#     backend (the file's CPU device alone, and the same workload generated
#     on two CPU devices), with several policies, every typed kernel checked
#     against its reference;
#   - bench/fig5.sh and bench/task_times.sh on small ones.
# Sizes left out: xgemm medium and large (275 and 2200 GFLOP), cg, cholesky
# and fblock large and the medium and large compositions (seconds to minutes
# each and up to 1.4 GB here).  Under HS_SANITIZED (build.sh's ASan run) only
# the small files are mapped and run, with fewer policies.
# Needs HETSCHED and HS_SOURCE_ROOT, set by tests/meson.build.
set -u
cd "$HS_SOURCE_ROOT" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
H=$HETSCHED
P=workloads/paper

ok() { pass=$((pass + 1)); }
bad() {
    fail=$((fail + 1))
    echo "FAIL: $*"
}

# run_checked FILE BACKEND POLICY TYPED UNTYPED [RUN OPTIONS...]: `hetsched
# run` exits 0 and reports every one of the TYPED typed kernels checked and
# UNTYPED cost-only.
run_checked() {
    local f=$1 be=$2 pol=$3 typed=$4 untyped=$5
    shift 5
    if ! "$H" run -a "$pol" --backend "$be" --check full "$@" "$f" >"$tmp/out" 2>"$tmp/err"; then
        bad "run -a $pol --backend $be $* $f: exit $?"
        sed 's/^/  stderr: /' "$tmp/err" | head -5
        return
    fi
    if grep -Eq "^checked $typed of $typed typed kernels \(full, [0-9.]+ ms after the run\); $untyped cost-only tasks" "$tmp/out" &&
        grep -Eq "backend $be: measured makespan [0-9.]+ us$" "$tmp/out"; then
        ok
    else
        bad "run -a $pol --backend $be $f: expected $typed of $typed checked, $untyped cost-only"
        sed 's/^/  /' "$tmp/out" | head -4
    fi
}

# 1. The committed files are up to date with the generator.
if scripts/gen-paper-workloads.sh "$H" "$tmp/paper" 2>"$tmp/err" &&
    diff -r "$tmp/paper" "$P" >"$tmp/diff"; then
    ok
else
    bad "workloads/paper differs from scripts/gen-paper-workloads.sh's output" \
        "(rerun it and commit):"
    head -10 "$tmp/diff" "$tmp/err"
fi
n=$(find "$P" -name "*.yaml" | wc -l)
[ "$n" -eq 30 ] && ok || bad "workloads/paper holds $n workloads, expected 30 (7 x 3 + 3 x 3)"

# 2. Every file loads and maps with every policy (compare loads it as info
# does, then runs each policy in the simulator).
npol=$("$H" map -a help 2>&1 | awk '/^policies:/ {on = 1; next} on && /^  [a-z]/' | wc -l)
maps="$P/*.yaml"
[ -z "${HS_SANITIZED:-}" ] || maps="$P/*-small.yaml"
for f in $maps; do
    tasks=$(sed -n 's/^# \([0-9]*\) tasks.*/\1/p' "$f")
    if "$H" compare "$f" >"$tmp/out" 2>"$tmp/err"; then
        rows=$(grep -Ec '^[a-z-]+\*? +[0-9.]+ +[0-9.]+ ' "$tmp/out")
        [ "$rows" -eq "$npol" ] && ok || bad "compare $f: $rows policy rows, expected $npol"
        grep -q "^workload $f: $tasks tasks" "$tmp/out" && ok ||
            bad "compare $f: expected $tasks tasks"
    else
        bad "compare $f: exit $?"
        head -3 "$tmp/err"
    fi
done
"$H" info "$P/mixed-large.yaml" >"$tmp/out" 2>"$tmp/err" &&
    grep -Eq '^  xgemm +x2: 3 kernels, 2 edges' "$tmp/out" && ok || bad "info mixed-large"

# 3. Real runs.  Typed kernels per benchmark instance (gen.c):
#   xgemm 3 (ab, cd, add); cg 18 (6 per iteration x 3); cholesky 20 (4 x 4
#   tiles: 4 potrf + 6 trsm + 6 syrk + 4 gemm); increment 4; va 2 (add,
#   scale); pi 1000 hit tasks and 1 untyped reduce; fblock 4 blocks.
# One of each (the base case): 3+18+20+4+2+1000+4 = 1051 typed, 1 untyped.
#   compute = base + 3 x (cholesky 20 + pi 1000) = 4111 typed, 4 untyped
#   data    = base + 3 x (increment 4 + va 2)    = 1069 typed, 1 untyped
#   mixed   = 2 x base                           = 2102 typed, 2 untyped
declare -A typed=([xgemm]=3 [cg]=18 [cholesky]=20 [increment]=4 [va]=2 [pi]=1000 [fblock]=4
    [compute]=4111 [data]=1069 [mixed]=2102)
declare -A untyped=([pi]=1 [compute]=4 [data]=1 [mixed]=2)
# NAME:EMU POLICIES:CPU POLICIES (on two CPU devices): three policies on emu
# for the compositions, two for the small benchmarks, one for larger sizes;
# and eager on the small files' own CPU device
comp_pols=h-ratio,dmdar,ad-part:h-ratio bench_pols=h-ratio,ad-part:h-ratio
[ -z "${HS_SANITIZED:-}" ] || comp_pols=h-ratio:h-ratio
runs="compute-small:$comp_pols data-small:$comp_pols mixed-small:$comp_pols"
for b in xgemm cg cholesky increment va pi fblock; do
    runs="$runs $b-small:$bench_pols"
done
if [ -z "${HS_SANITIZED:-}" ]; then
    for name in cg-medium cholesky-medium increment-medium va-medium pi-medium fblock-medium \
        increment-large va-large pi-large; do
        runs="$runs $name:dmdar:h-ratio"
    done
fi
for item in $runs; do
    IFS=: read -r name emu_pols cpu_pols <<<"$item"
    b=${name%-*} f=$P/$name.yaml
    for pol in ${emu_pols//,/ }; do
        run_checked "$f" emu "$pol" "${typed[$b]}" "${untyped[$b]:-0}"
    done
    # the same workload on two CPU devices: the file's own gen command with
    # another platform
    cmd=$(sed -n '1s/^# generated by: hetsched //p' "$f")
    if "$H" ${cmd/--devices cpu:1,gpu:1/--devices cpu:2} -o "$tmp/cpu.yaml" 2>"$tmp/err"; then
        for pol in ${cpu_pols//,/ }; do
            run_checked "$tmp/cpu.yaml" cpu "$pol" "${typed[$b]}" "${untyped[$b]:-0}"
        done
    else
        bad "gen for the cpu backend: $cmd"
    fi
    # and the committed file itself, its cpu device alone
    if [ "${name%-small}" != "$name" ]; then
        run_checked "$f" cpu eager "${typed[$b]}" "${untyped[$b]:-0}" --devices cpu0
    fi
done

# 4. bench/fig5.sh end to end on one small composition (emu).
if bench/fig5.sh --hetsched "$H" --size small --compositions data --policies h-ratio \
    --runs 2 --base-runs 1 >"$tmp/out" 2>"$tmp/err"; then
    # per device: busy / idle holding work (predicted) / inputs there
    # (predicted) / of that behind a waiting task (predicted) + launching
    dev='[0-9.]+/[0-9.]+\([0-9.]+\)/[0-9.]+\([0-9.]+\)/[0-9.]+\([0-9.]+\)\+[0-9.]+'
    grep -Eq "^cpu-only +[0-9.]+ +[0-9.]+ +[0-9.]+ +1\.000 +1\.000  cpu0 $dev gpu0 0\.0/0\.0\(0\.0\)/0\.0\(0\.0\)/0\.0\(0\.0\)\+0\.0\$" "$tmp/out" &&
        grep -Eq "^h-ratio +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+  cpu0 $dev gpu0 $dev\$" "$tmp/out" &&
        # the agreement over both cells, then over h-ratio's alone (its
        # range one value, its median that value: the median of its runs)
        grep -Eq '^all cells \(2\): measured / predicted [0-9.]+-[0-9.]+, median [0-9.]+, median error [0-9.]+%; [0-2] within 0\.9-1\.1, [0-2] within 0\.95-1\.05$' "$tmp/out" &&
        grep -Eq '^the cells of the policies but cpu-only \(1\): measured / predicted ([0-9.]+)-\1, median \1, median error [0-9.]+%; [01] within 0\.9-1\.1, [01] within 0\.95-1\.05$' "$tmp/out" &&
        # and h-ratio's two runs, each on its own
        grep -Eq '^single runs of the policies but cpu-only \(2\): measured / predicted [0-9.]+-[0-9.]+, median [0-9.]+, median error [0-9.]+%; [0-2] within 0\.9-1\.1, [0-2] within 0\.95-1\.05$' "$tmp/out" && ok ||
        { bad "fig5.sh table"; cat "$tmp/out"; }
else
    bad "bench/fig5.sh: exit $?"
    head -5 "$tmp/err" "$tmp/out"
fi
bench/fig5.sh --hetsched "$H" --size huge >/dev/null 2>&1
[ $? -eq 2 ] && ok || bad "fig5.sh --size huge: expected exit 2"

# 5. bench/task_times.sh: a row per task of increment-small (4 links, cpu0
# alone), predicted at the file's cost_us (5 us each), the makespan
# predicted at 4 x 5 = 20 us; bad usage is exit 2.
if bench/task_times.sh --hetsched "$H" --runs 2 $P/increment-small.yaml -- -a cpu-only \
    --backend cpu --devices cpu0 >"$tmp/out" 2>"$tmp/err"; then
    [ "$(grep -Ec '^increment#0/inc[0-3] +cpu0 +5\.0 +[0-9.]+ \( *[0-9.]+\) +[0-9.]+ \( *[0-9.]+\)$' \
        "$tmp/out")" = 4 ] &&
        grep -Eq '^makespan: measured [0-9.]+ us \(median; min [0-9.]+\), predicted 20\.0 us' "$tmp/out" &&
        grep -q '^sums per run (medians, us): kernels [0-9.]* (predicted 20.0), held ' "$tmp/out" &&
        ok || { bad "task_times.sh table"; cat "$tmp/out"; }
else
    bad "bench/task_times.sh: exit $?"
    head -5 "$tmp/err" "$tmp/out"
fi
bench/task_times.sh --hetsched "$H" --runs 0 $P/increment-small.yaml -- -a eager >/dev/null 2>&1
[ $? -eq 2 ] && ok || bad "task_times.sh --runs 0: expected exit 2"
bench/task_times.sh --hetsched "$H" $P/increment-small.yaml >/dev/null 2>&1
[ $? -eq 2 ] && ok || bad "task_times.sh without run options: expected exit 2"

echo "test_paper.sh: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
