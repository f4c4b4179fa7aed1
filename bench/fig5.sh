#!/usr/bin/env bash
# Zhou & Liu (ESWEEK 2014), Fig. 5 on this machine: every policy runs the three
# workload compositions of Sec. 5.2 (compute-intensive, data-intensive, mixed)
# for real with `hetsched run`, and one table per composition sets the measured
# makespan beside the simulator's prediction and the speedup over cpu-only.
#
#   measured   median over --runs of run's measured makespan (us)
#   predicted  run's predicted makespan: the same policy in the simulator,
#              with the workload's costs or the --model's (us)
#   ratio      measured / predicted
#   speedup    cpu-only's measured / this policy's measured (Fig. 5's bars)
#   pred.sp    the same from the predictions
# and per device, of the last run: busy share / idle while holding work
# (predicted) / of it with the held task's inputs there (predicted).  Last,
# two lines of agreement: over every cell, then over those of the policies
# but cpu-only, the range and median of measured / predicted, the median of
# |measured / predicted - 1|, and the cells within 0.9-1.1 and 0.95-1.05;
# with more than one run a cell, a third line over each run of those
# policies on its own (how far a single run strays).
#
# usage: bench/fig5.sh [options]
#   --size S            small, medium or large (large, as the paper's Fig. 5(b))
#   --backend B         run's backend, cpu, emu or cuda (default: run's own
#                       choice: cuda when CUDA finds a GPU, else emu; cpu for
#                       --gpus 0)
#   --model FILE        a calibrated performance model: the typed kernels'
#                       cost_us are dropped from the workload so that the model
#                       gives the predicted costs (run --model FILE)
#   --platform FILE     a platform YAML (`hetsched calibrate --out-platform`):
#                       it replaces the compositions' platform, so measured
#                       links and this machine's devices count
#   --policies LIST     comma-separated (default: every `map -a help` policy);
#                       cpu-only always runs, it is the speedup's base
#   --compositions LIST compute,data,mixed (default: all three); the 7
#                       benchmarks of Fig. 4 (xgemm, cg, cholesky, increment,
#                       va, pi, fblock) may be named too, each run alone
#   --runs N            runs per policy and composition, median taken (1)
#   --base-runs N       runs of cpu-only, the speedups' base, median taken
#                       (default: the larger of --runs and 3: a CPU's large
#                       sgemm on a VM's host can take 750 or 1000 ms from one
#                       run to the next, and every speedup divides by it)
#   --train             with --model: before a composition's measured runs,
#                       run it three times with cpu-only and three times
#                       with h-ratio, in turn (unmeasured), with `run
#                       --update-model` on a copy of the model, so that each
#                       kernel's history holds its times inside a run
#                       (memory and threads shared with the other device's
#                       work) beside calibrate's, over several runs (one run
#                       adds a share of an entry's window: a stray slow one
#                       does not move its median); the copy predicts the rest
#   --gpus N            GPUs of the platform (1: workloads/paper as committed;
#                       otherwise generated with `hetsched gen` into --keep)
#   --cores N           cores of the CPU device (4 in the committed files;
#                       another value regenerates as --gpus does)
#   --run-opts "OPTS"   more options for every `hetsched run` (e.g. --devices)
#   --hetsched PATH     the binary (default: $HETSCHED, else build/cli/hetsched)
#   --keep DIR          keep every run's output there, with its measured
#                       schedule (C-P-R.json) and trace (C-P-R.trace.json),
#                       and its prediction's trace (C-P-R.predicted.trace.json)
#                       (default: a temporary directory, removed at the end)
# Exit status 0 when every run succeeded (a kernel whose check fails fails
# its run; run checks a sample of the kernels, after the run), 1 when one
# did not (its row says why), 2 on bad usage.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

size=large backend="" model="" platform="" policies="" comps="compute,data,mixed" runs=1 gpus=1 cores=""
base_runs=""
train=0
run_opts="" keep="" hetsched=${HETSCHED:-$root/build/cli/hetsched}

# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"
while [ $# -gt 0 ]; do
    case "$1" in
    -h | --help) usage ;;
    --train)
        train=1
        shift
        ;;
    --size | --backend | --model | --platform | --policies | --compositions | --runs | --gpus | --cores | \
        --base-runs | --run-opts | --hetsched | --keep)
        [ $# -ge 2 ] || die "$1 needs a value"
        case "$1" in
        --size) size=$2 ;;
        --backend) backend=$2 ;;
        --model) model=$2 ;;
        --platform) platform=$2 ;;
        --policies) policies=$2 ;;
        --compositions) comps=$2 ;;
        --runs) runs=$2 ;;
        --base-runs) base_runs=$2 ;;
        --gpus) gpus=$2 ;;
        --cores) cores=$2 ;;
        --run-opts) run_opts=$2 ;;
        --hetsched) hetsched=$2 ;;
        --keep) keep=$2 ;;
        esac
        shift 2
        ;;
    *) die "unknown option '$1' (see --help)" ;;
    esac
done

case "$size" in small | medium | large) ;; *) die "--size wants small, medium or large" ;; esac
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || die "--runs wants a whole number >= 1, not '$runs'"
[ -n "$base_runs" ] || base_runs=$((runs > 3 ? runs : 3))
[[ "$base_runs" =~ ^[1-9][0-9]*$ ]] || die "--base-runs wants a whole number >= 1, not '$base_runs'"
most=$((runs > base_runs ? runs : base_runs))
[[ "$gpus" =~ ^[0-9]+$ ]] || die "--gpus wants a whole number >= 0, not '$gpus'"
[ -z "$cores" ] || [[ "$cores" =~ ^[1-9][0-9]*$ ]] || die "--cores wants a whole number >= 1"
[ -x "$hetsched" ] || die "no hetsched binary at $hetsched (build first, or --hetsched PATH)"
[ -z "$model" ] || [ -r "$model" ] || die "cannot read model $model"
[ "$train" = 0 ] || [ -n "$model" ] || die "--train needs --model (the model it trains)"
[ -z "$platform" ] || grep -q '^platform:' "$platform" 2>/dev/null ||
    die "$platform is not a platform YAML (no 'platform:' line)"
benchmarks=" xgemm cg cholesky increment va pi fblock "
for c in ${comps//,/ }; do
    case "$c" in
    compute | data | mixed) ;;
    *) [[ "$benchmarks" == *" $c "* ]] ||
        die "no composition '$c' (compute, data, mixed, or a benchmark:$benchmarks)" ;;
    esac
done

all_policies=$("$hetsched" map -a help 2>&1 | awk '/^policies:/ {on = 1; next}
                                                    on && /^  [a-z]/ {print $1}')
[ -n "$all_policies" ] || die "$hetsched map -a help lists no policies"
if [ -z "$policies" ]; then
    policies=$(paste -sd, - <<<"$all_policies")
fi
for p in ${policies//,/ }; do
    grep -qx -- "$p" <<<"$all_policies" || die "no policy '$p' (known: $(paste -sd' ' - <<<"$all_policies"))"
done
# cpu-only first: every speedup is over its measured makespan
plist="cpu-only $(tr ',' '\n' <<<"$policies" | grep -vx cpu-only | tr '\n' ' ')"

work_dir dir "$keep"
rm -f "$dir/ratios" "$dir/run-ratios" # this call's cells only, in a kept directory too

# The workload of composition (or benchmark) $1: the committed file, or one generated for
# another platform, or its applications on --platform; without cost_us on
# typed kernels when a model is given.
workload() {
    local c=$1 src=$root/workloads/paper/$1-$size.yaml dst
    if [ "$gpus" -ne 1 ] || [ -n "$cores" ]; then
        local devices="cpu:1,gpu:$gpus" generator=composition
        [ "$gpus" -gt 0 ] || devices=cpu:1
        [[ "$benchmarks" != *" $c "* ]] || generator=benchmark
        src=$dir/$c-$size.yaml
        "$hetsched" gen "$generator" "$c" --size "$size" --devices "$devices" \
            --cores "${cores:-4}" -o "$src" || return 1
    fi
    if [ -n "$platform" ]; then
        dst=$dir/$c-$size-platform.yaml
        { head -2 "$src" && cat "$platform" && sed -n '/^applications:/,$p' "$src"; } >"$dst" ||
            return 1
        src=$dst
    fi
    if [ -n "$model" ]; then
        dst=$dir/$c-$size-model.yaml
        sed '/ type: /s/, cost_us: {[^}]*}//' "$src" >"$dst" || return 1
        src=$dst
    fi
    echo "$src"
}

runs_of() { # policy -> how many times it runs
    [ "$1" = cpu-only ] && echo "$base_runs" || echo "$runs"
}


status=0
read -r -a extra <<<"$run_opts"
if [ "$train" = 1 ]; then
    cp "$model" "$dir/trained-model.json" || die "cannot copy $model"
    model=$dir/trained-model.json
fi
echo "Fig. 5 (Zhou & Liu, ESWEEK 2014) on $(hostname): size $size," \
    "$runs run(s) per cell, cpu-only $base_runs (median)${model:+, model $model}$([ "$train" = 0 ] || echo ", trained by three cpu-only and three h-ratio runs of each composition")${platform:+, platform $platform}${run_opts:+, run $run_opts}"
for c in ${comps//,/ }; do
    if ! w=$(workload "$c"); then
        echo "composition $c: cannot prepare the workload" >&2
        status=1
        continue
    fi
    for t in $([ "$train" = 0 ] || echo cpu-only h-ratio cpu-only.2 h-ratio.2 cpu-only.3 h-ratio.3); do
        p=${t%.*}
        "$hetsched" run -a "$p" ${backend:+--backend "$backend"} --model "$model" \
            --update-model "$model" --check none ${extra[@]+"${extra[@]}"} "$w" \
            >"$dir/$c-train-$t.log" 2>&1 || echo "training run $t on $c failed" >&2
    done
    # runs interleaved across policies, so a slow spell of the machine is shared
    for ((r = 1; r <= most; r++)); do
        for p in $plist; do
            [ "$r" -le "$(runs_of "$p")" ] || continue
            log=$dir/$c-$p-$r.log
            # with --keep, each run's measured schedule and trace too
            "$hetsched" run -a "$p" ${backend:+--backend "$backend"} ${model:+--model "$model"} \
                ${keep:+--json "$dir/$c-$p-$r.json" --trace "$dir/$c-$p-$r.trace.json"} \
                ${keep:+--predicted-trace "$dir/$c-$p-$r.predicted.trace.json"} \
                ${extra[@]+"${extra[@]}"} "$w" >"$log" 2>&1
            echo "exit $?" >>"$log"
        done
    done
    echo
    used=$(sed -n 's/.*, backend \([a-z]*\): measured makespan.*/\1/p' "$dir/$c-cpu-only-1.log")
    echo "composition $c ($(basename "$w"): $(sed -n 's/^# \([0-9]* tasks\).*/\1/p' "$w")," \
        "devices $(sed -n 's/^  - {name: \([a-z0-9]*\), kind:.*/\1/p' "$w" | paste -sd, -)," \
        "backend ${used:-${backend:-?}})"
    printf '%-10s %14s %14s %8s %8s %8s  %s\n' policy "measured us" "predicted us" ratio speedup \
        pred.sp "busy% / idle holding work% (predicted) / of it inputs there% (predicted) / of that behind a waiting task% (predicted) + launching%, per device (last run)"
    base="" pbase=""
    for p in $plist; do
        why="" meas="" pred=""
        for ((r = 1; r <= $(runs_of "$p"); r++)); do
            log=$dir/$c-$p-$r.log
            rc=$(sed -n 's/^exit //p' "$log")
            if [ "$rc" != 0 ]; then
                why="exit $rc: $(grep -m1 -i 'error\|hetsched' "$log" | cut -c1-100)"
                break
            fi
            sed -n 's/.*measured makespan \([0-9.]*\) us.*/\1/p' "$log" >>"$dir/m"
            pred=$(sed -n 's/^predicted makespan \([0-9.]*\) us.*/\1/p' "$log")
            awk -v p="$p" -v m="$(tail -1 "$dir/m")" -v q="$pred" \
                'BEGIN { if (q > 0) printf "%s %.10g\n", p, m / q }' >>"$dir/run-ratios"
        done
        if [ -n "$why" ]; then
            printf '%-10s FAILED (%s)\n' "$p" "$why"
            status=1
            rm -f "$dir/m"
            continue
        fi
        meas=$(median <"$dir/m")
        rm -f "$dir/m"
        if [ "$p" = cpu-only ]; then
            base=$meas pbase=$pred
        fi
        # "  gpu0   gpu  busy   251938.321 us   67.3%  3146 tasks; idle holding work ... (31.8%),
        # predicted 28.0%; inputs there ... (2.1%), predicted 0.3%", then under
        # "inputs there, of it: ..." "  gpu0   behind ... (1.2%), predicted 0.3%;
        # launching ... (0.8%)": one cell per device, 67.3/31.8(28.0)/2.1(0.3)/1.2(0.3)+0.8
        busy=$({
            sed -n 's/^  \([^ ]*\) .* busy .* \([0-9.]*\)%  [0-9]* tasks; idle holding work [0-9.]* us (\([0-9.]*\)%), predicted \([0-9.]*\)%; inputs there [0-9.]* us (\([0-9.]*\)%), predicted \([0-9.]*\)%$/\1 \2\/\3(\4)\/\5(\6)/p' "$log"
            sed -n 's/^  \([^ ]*\) *behind [0-9.]* us (\([0-9.]*\)%), predicted \([0-9.]*\)%; launching [0-9.]* us (\([0-9.]*\)%)$/\1 \/\2(\3)+\4/p' "$log"
        } | awk '{ if (!($1 in c)) d[++n] = $1; c[$1] = c[$1] $2 }
                 END { for (i = 1; i <= n; i++) printf "%s%s %s", (i > 1 ? " " : ""), d[i], c[d[i]] }')
        awk -v p="$p" -v m="$meas" -v q="$pred" -v b="$base" -v pb="$pbase" -v busy="$busy" 'BEGIN {
            ratio = q > 0 ? m / q : 0
            sp = b != "" && m > 0 ? sprintf("%.3f", b / m) : "-"
            psp = pb != "" && q > 0 ? sprintf("%.3f", pb / q) : "-"
            printf "%-10s %14.1f %14.1f %8.3f %8s %8s  %s\n", p, m, q, ratio, sp, psp, busy }'
        [ -z "$pred" ] || awk -v p="$p" -v m="$meas" -v q="$pred" \
            'BEGIN { if (q > 0) printf "%s %.10g\n", p, m / q }' >>"$dir/ratios"
    done
done

# agreement over the cells: all of them, then those of the policies besides
# cpu-only (whose one large sgemm a host may run at two speeds)
agreement() { # label, then "policy ratio" lines on stdin
    local rows
    rows=$(cat)
    [ -n "$rows" ] || return 0
    printf '%s (%s): measured / predicted %s, median %s, median error %s%%; %s within 0.9-1.1, %s within 0.95-1.05\n' \
        "$1" "$(wc -l <<<"$rows")" \
        "$(awk 'NR == 1 || $2 < lo { lo = $2 } NR == 1 || $2 > hi { hi = $2 }
                END { printf "%.3f-%.3f", lo, hi }' <<<"$rows")" \
        "$(awk '{ print $2 }' <<<"$rows" | median | awk '{ printf "%.3f", $1 }')" \
        "$(awk '{ d = $2 - 1; print 100 * (d < 0 ? -d : d) }' <<<"$rows" | median | awk '{ printf "%.1f", $1 }')" \
        "$(awk '$2 >= 0.9 && $2 <= 1.1' <<<"$rows" | wc -l)" \
        "$(awk '$2 >= 0.95 && $2 <= 1.05' <<<"$rows" | wc -l)"
}
if [ -s "$dir/ratios" ]; then
    echo
    agreement "all cells" <"$dir/ratios"
    grep -v '^cpu-only ' "$dir/ratios" | agreement "the cells of the policies but cpu-only"
    # with several runs a cell, each run on its own: how far one run strays
    [ "$(wc -l <"$dir/run-ratios")" -eq "$(wc -l <"$dir/ratios")" ] ||
        grep -v '^cpu-only ' "$dir/run-ratios" | agreement "single runs of the policies but cpu-only"
fi
[ -z "$keep" ] || echo "run outputs kept in $keep" >&2
exit $status
