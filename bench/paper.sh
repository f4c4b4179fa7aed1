#!/usr/bin/env bash
# Zhou & Liu (ESWEEK 2014), Sec. 5, on this machine in one command:
#   1. calibrates the machine for the paper's workloads (`hetsched calibrate
#      --for` the mixed composition, which holds every kernel of its size)
#      and keeps the model and the platform;
#   2. Fig. 5: the three compositions, every policy, for real (median of
#      --runs) and in the simulator with the calibrated model, speedup over
#      cpu-only (bench/fig5.sh); then the 7 benchmarks of Fig. 4 alone;
#   3. Table 3: every heuristic against the MILP optimum (`hetsched compare
#      --optimal`) on the paper's three sets: the case study x5, va + xgemm +
#      increment x5 and xgemm + fblock + pi x2, costs from the calibrated
#      model (the case study's kernels have no type: its costs stay the
#      paper's Table 2); then for real (median of --runs), the MILP's
#      schedule (`hetsched run --schedule` of compare's optimal.json) beside
#      the heuristics of the report's Table 3 (h-ratio, d-rank, ad-part,
#      dmdar and best; those of --policies when given);
#   4. writes under --out DATE-LABEL-paper.csv (one row per workload and
#      policy), DATE-LABEL-fig5.png and DATE-LABEL-fig4.png (bars in the
#      paper's layout: measured on the first row, simulated on the second),
#      DATE-LABEL-paper.md (the report) and the model and platform it used.
# Without a GPU it runs on the emu backend: the calibration measures the CPU
# device, and the emulated gpu0 (one thread with a memory of its own) is
# measured by one run of the mixed composition on it alone (run
# --update-model); the workloads keep their generated platform.
#
# usage: bench/paper.sh [options]
#   --size LIST         small, medium or large, or a comma list (default large)
#   --runs N            real runs per policy and workload, median taken (3;
#                       cpu-only, the speedups' base, at least 3: fig5.sh --base-runs)
#   --out DIR           where the results go (default docs/results)
#   --backend B         cuda or emu (default: cuda when calibrate measured a
#                       GPU, else emu)
#   --cores N           cores of the CPU device (default: the committed
#                       workloads' 4; 14 on the 16-core GPU machine, leaving
#                       cores to the GPU's worker and the engine)
#   --policies LIST     comma-separated (default: every policy); cpu-only
#                       always runs; Table 3 runs those of its columns
#                       (h-ratio, d-rank, ad-part, dmdar, best) for real
#   --benchmarks LIST   the Fig. 4 benchmarks run alone (default: all 7;
#                       none to skip them)
#   --benchmark-policies LIST
#                       the policies that run them (default: the paper's
#                       h-ratio, d-rank, ad-part and dmdar; cpu-only always)
#   --time-limit S      seconds of the MILP per Table 3 set (default 60)
#   --label NAME        the machine in the file names (default: hostname -s)
#   --hetsched PATH     the binary (default: $HETSCHED, else build/cli/hetsched)
#   --plot PATH         the chart program (default: $PAPER_PLOT, else
#                       paper_plot beside the binary's build; no charts when
#                       it is missing or built without cairo)
#   --train             before Fig. 5's measured runs, each composition runs
#                       three times with cpu-only and three times with
#                       h-ratio, in turn (unmeasured) with `run
#                       --update-model` (bench/fig5.sh --train), so that the
#                       model holds each kernel's times inside a run beside
#                       calibrate's; that model (kept as
#                       DATE-LABEL-SIZE-trained-model.json) predicts the rest
#                       of Fig. 5, Fig. 4 and Table 3
#   --keep DIR          keep every intermediate file there (default: removed)
# Stopped by SIGINT or SIGTERM (e.g. `timeout`), it still writes the charts
# and the report of the steps that ended.
# Exit status 0 when every step succeeded, 1 when one failed or the run was
# stopped (the report and the progress lines say which), 2 on bad usage.
set -uo pipefail
args="$*"
root=$(cd "$(dirname "$0")/.." && pwd)

sizes=large runs=3 out=$root/docs/results backend="" cores="" policies="" time_limit=60
benchmarks="xgemm,cg,cholesky,increment,va,pi,fblock" bench_policies="h-ratio,d-rank,ad-part,dmdar"
label="" keep="" train=0
hetsched=${HETSCHED:-$root/build/cli/hetsched} plot=${PAPER_PLOT:-}

# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"
while [ $# -gt 0 ]; do
    case "$1" in
    -h | --help) usage ;;
    --train)
        train=1
        shift
        ;;
    --size | --runs | --out | --backend | --cores | --policies | --benchmarks | --benchmark-policies | \
        --time-limit | --label | --hetsched | --plot | --keep)
        [ $# -ge 2 ] || die "$1 needs a value"
        case "$1" in
        --size) sizes=$2 ;;
        --runs) runs=$2 ;;
        --out) out=$2 ;;
        --backend) backend=$2 ;;
        --cores) cores=$2 ;;
        --policies) policies=$2 ;;
        --benchmarks) benchmarks=$2 ;;
        --benchmark-policies) bench_policies=$2 ;;
        --time-limit) time_limit=$2 ;;
        --label) label=$2 ;;
        --hetsched) hetsched=$2 ;;
        --plot) plot=$2 ;;
        --keep) keep=$2 ;;
        esac
        shift 2
        ;;
    *) die "unknown option '$1' (see --help)" ;;
    esac
done

for s in ${sizes//,/ }; do
    case "$s" in small | medium | large) ;; *) die "--size wants small, medium or large, not '$s'" ;; esac
done
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || die "--runs wants a whole number >= 1, not '$runs'"
[ -z "$cores" ] || [[ "$cores" =~ ^[1-9][0-9]*$ ]] || die "--cores wants a whole number >= 1, not '$cores'"
[[ "$time_limit" =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--time-limit wants seconds, not '$time_limit'"
case "$backend" in "" | cuda | emu) ;; *) die "--backend wants cuda or emu, not '$backend'" ;; esac
[ "$benchmarks" != none ] || benchmarks=""
for b in ${benchmarks//,/ }; do
    case "$b" in
    xgemm | cg | cholesky | increment | va | pi | fblock) ;;
    *) die "no benchmark '$b' (xgemm, cg, cholesky, increment, va, pi, fblock)" ;;
    esac
done
[ -x "$hetsched" ] || die "no hetsched binary at $hetsched (build first, or --hetsched PATH)"
known=$("$hetsched" map -a help 2>&1 | awk '/^policies:/ {on = 1; next} on && /^  [a-z]/ {print $1}')
for p in ${policies//,/ } ${bench_policies//,/ }; do
    grep -qx -- "$p" <<<"$known" || die "no policy '$p' (known: $(paste -sd' ' - <<<"$known"))"
done
[ -n "$label" ] || label=$(hostname -s 2>/dev/null || echo machine)
[[ "$label" =~ ^[A-Za-z0-9._-]+$ ]] || die "--label wants letters, digits, '.', '_' or '-', not '$label'"
if [ -z "$plot" ]; then
    plot=$(dirname "$(dirname "$hetsched")")/bench/paper_plot
fi
mkdir -p "$out" || die "cannot create $out"
work_dir work "$keep"

date=$(date -u +%Y-%m-%d)
stem=$out/$date-$label
csv=$stem-paper.csv
report=$stem-paper.md
start=$SECONDS
status=0
progress() { printf '[%4ds] %s\n' $((SECONDS - start)) "$*"; }
# A CSV field: commas and quotes would split or break it.
field() { tr ',"\n' ';  ' <<<"$1" | sed 's/ *$//'; }

echo "date,machine,size,backend,figure,workload,policy,runs,measured_us,predicted_us,speedup,predicted_speedup,optimum_us,note" >"$csv"

# run_fig5 SIZE FIGURE LIST POLICIES MODEL PLATFORM [--train]: bench/fig5.sh
# on the workloads of LIST with POLICIES (every one when empty), its tables
# on stdout and in the log, its rows appended to the CSV.
run_fig5() {
    local size=$1 fig=$2 list=$3 pols=$4 model=$5 platform=$6 log=$work/$2-$1.txt rc
    "$root/bench/fig5.sh" --size "$size" ${cores:+--cores "$cores"} --model "$model" \
        ${platform:+--platform "$platform"} --runs "$runs" --backend "$used" ${7:+"$7"} \
        ${pols:+--policies "$pols"} --compositions "$list" --hetsched "$hetsched" \
        --keep "$work/$fig-$size" 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
    [ "$rc" = 0 ] || { status=1; progress "$fig $size: bench/fig5.sh exit $rc"; }
    # "composition mixed (mixed-large-model.yaml: ..." then one row per policy;
    # cpu-only ran at least 3 times (fig5.sh's --base-runs default)
    awk -v d="$date" -v m="$label" -v s="$size" -v b="$used" -v f="$fig" -v r="$runs" '
        /^composition / { w = $2; next }
        { n = $1 == "cpu-only" && r < 3 ? 3 : r }
        w != "" && $2 == "FAILED" { p = $1; sub(/^[^ ]+ +FAILED /, ""); gsub(/[,"]/, ";")
            printf "%s,%s,%s,%s,%s,%s,%s,%s,,,,,,FAILED %s\n", d, m, s, b, f, w, p, n, $0 }
        w != "" && NF >= 6 && $2 ~ /^[0-9.]+$/ && $3 ~ /^[0-9.]+$/ {
            printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,,\n", d, m, s, b, f, w, $1, n, $2, $3, $5, $6 }' "$log" >>"$csv"
}

# Table 3's sets at SIZE: name, file (generated where missing).
table3_sets() {
    local size=$1 devices="--devices cpu:1,gpu:1 ${cores:+--cores $cores}"
    echo "case-study-x5 $root/workloads/case-study-x5.yaml"
    # shellcheck disable=SC2086
    "$hetsched" gen benchmark va,xgemm,increment --size "$size" --instances 5 $devices \
        -o "$work/va-xgemm-increment-x5-$size.yaml" &&
        echo "va+xgemm+increment-x5 $work/va-xgemm-increment-x5-$size.yaml"
    # shellcheck disable=SC2086
    "$hetsched" gen benchmark xgemm,fblock,pi --size "$size" --instances 2 $devices \
        -o "$work/xgemm-fblock-pi-x2-$size.yaml" &&
        echo "xgemm+fblock+pi-x2 $work/xgemm-fblock-pi-x2-$size.yaml"
}


# Table 3's policies run for real: the report's columns, those of --policies
# when given.
t3_policies=""
for p in h-ratio d-rank ad-part dmdar best; do
    [ -z "$policies" ] || [[ ",$policies," == *",$p,"* ]] && t3_policies+="$p "
done

# table3_real NAME WORKLOAD DIR MODEL-ARGS...: Table 3's policies and the
# MILP's schedule (DIR/optimal.json, from compare --json DIR) run for real on
# the backend used, median of --runs; "POLICY MEDIAN" lines on stdout (none
# for a run that failed; the progress line says why).
table3_real() {
    local name=$1 w=$2 dir=$3 p r log how
    shift 3
    for p in $t3_policies optimal; do
        how=(-a "$p")
        if [ "$p" = optimal ]; then
            [ -s "$dir/optimal.json" ] || continue
            how=(--schedule "$dir/optimal.json")
        fi
        : >"$dir/$p.measured"
        for ((r = 1; r <= runs; r++)); do
            log=$dir/$p-$r.log
            if ! "$hetsched" run "${how[@]}" --backend "$used" "$@" "$w" >"$log" 2>&1; then
                progress "Table 3 $name: run ${how[*]} failed: $(grep -m1 'hetsched' "$log")" >&2
                status=1
                continue 2
            fi
            sed -n 's/.*measured makespan \([0-9.]*\) us.*/\1/p' "$log" >>"$dir/$p.measured"
        done
        echo "$p $(median <"$dir/$p.measured")"
    done
}

# table3 SIZE MODEL PLATFORM: compare --optimal on each set, then the real
# runs of table3_real, rows to the CSV.
table3() {
    local size=$1 model=$2 platform=$3 name file w log rc note opt dir
    while read -r name file; do
        w=$work/t3-$name-$size.yaml
        if grep -q ' type: ' "$file"; then
            # the model's costs, and the measured platform where there is one
            { if [ -n "$platform" ]; then
                head -2 "$file" && cat "$platform" && sed -n '/^applications:/,$p' "$file"
            else cat "$file"; fi; } | sed '/ type: /s/, cost_us: {[^}]*}//' >"$w"
            set -- --model "$model"
        else
            cp "$file" "$w"
            set --
        fi
        log=$work/t3-$name-$size.log
        dir=$work/t3-$name-$size
        progress "Table 3 $size: $name, MILP up to $time_limit s"
        "$hetsched" compare "$w" --optimal --time-limit "$time_limit" --json "$dir" "$@" \
            >"$log" 2>"$log.err"
        rc=$?
        cat "$log" "$log.err"
        # the MILP's verdict: compare's note, or why it refused
        note=$(awk '/^optimal: / { t = $0; on = 1; next }
            on && /^  / { t = t " " $0; next }
            on { exit }
            END { if (t == "") exit
                sub(/^optimal: /, "", t); gsub(/  +/, " ", t)
                if (t ~ /^proven optimal/) { print "proven optimal"; exit }
                g = match(t, /gap [0-9.]+%/) ? substr(t, RSTART, RLENGTH) : ""
                b = match(t, /lower bound [0-9.]+ us/) ? substr(t, RSTART, RLENGTH) : ""
                w = match(t, /no MILP \([^)]*\)/) ? substr(t, RSTART, RLENGTH) ", " : ""
                if (t ~ /^NOT proven/ && g != "" && b != "") print "not proven: " w g " to the " b
                else print t }' "$log")
        [ -n "$note" ] || note=$(sed 's/^hetsched: //' "$log.err" | head -1)
        [ -n "$note" ] || note="compare exit $rc"
        [ "$rc" = 0 ] || [ "$rc" = 2 ] || status=1
        opt=$(awk '$1 == "optimal" && $2 ~ /^[0-9.]+$/ { print $2 }' "$log")
        progress "Table 3 $size: $name, $(wc -w <<<"$t3_policies") policies and the MILP's schedule on $used"
        mkdir -p "$dir"
        table3_real "$name" "$w" "$dir" "$@" >"$dir/measured"
        # measured rows carry the backend, --runs and the median
        awk -v d="$date" -v m="$label" -v s="$size" -v n="$name" -v o="$opt" -v note="$(field "$note")" \
            -v b="$used" -v r="$runs" '
            FILENAME == ARGV[1] { real[$1] = $2; next }
            /^policy / { on = 1; next }
            on && NF == 0 { exit }
            on && $2 ~ /^[0-9.]+$/ { p = $1; sub(/\*$/, "", p)
                printf "%s,%s,%s,%s,table3,%s,%s,%s,%s,%s,%s,,%s,%s\n", d, m, s, p in real ? b : "sim",
                    n, p, p in real ? r : "", real[p], $2, $3 == "-" ? "" : $3, o, note }' \
            "$dir/measured" "$log" >>"$csv"
    done < <(table3_sets "$size")
}

# The Markdown report from the CSV: Fig. 5 and Fig. 4 (speedups measured and
# simulated, and where they part by more than 10%), Table 3, the charts.
write_report() {
    local name
    name=$(basename "$stem")
    echo "# Zhou & Liu, Sec. 5, on $label ($date)"
    echo
    echo "\`bench/paper.sh $args\` (hetsched $("$hetsched" --version 2>&1 | head -1 | awk '{print $NF}')," \
        "$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')): sizes $sizes, median of $runs" \
        "run(s), backend $used, MILP time limit $time_limit s; load $(uptime | sed 's/.*load average: //')" \
        "at the end; $((SECONDS - start)) s in all. Rows: \`$(basename "$csv")\`."
    # the charts' links, also where this build could not draw them (no
    # cairo): paper_plot draws them from the CSV on another machine
    for f in fig5 fig4; do
        grep -q ",$f," "$csv" || continue
        [ -e "$stem-$f.png" ] ||
            printf '\n(Not drawn here: `build/bench/paper_plot %s-paper.csv %s` draws it.)\n' "$name" "$name"
        printf '\n![%s](%s-%s.png)\n' "$([ $f = fig5 ] && echo 'Fig. 5' || echo 'Fig. 4 benchmarks')" "$name" "$f"
    done
    awk -F, '
        # "| set | size | IP | ours | ours / IP | POLICY... |" of Table 3 for
        # set k (size SUBSEP name), makespans v[k, policy] and the IP'"'"'s ip;
        # ours is the best of h-ratio, d-rank and ad-part, as in the paper
        function table3_row(v, k, ip,    a, j, ours, r) {
            split(k, a, SUBSEP)
            for (j = 1; j <= 3; j++)
                if (v[k, t3[j]] != "" && (ours == "" || v[k, t3[j]] + 0 < ours + 0))
                    ours = v[k, t3[j]]
            r = ip > 0 && ours != "" ? sprintf("%.3f", ours / ip) : "-"
            printf "| %s | %s | %s | %s | %s |", a[2], a[1], ip == "" ? "-" : ip,
                ours == "" ? "-" : ours, r
            for (j = 1; j <= 5; j++)
                printf " %s |", v[k, t3[j]] == "" ? "-" : v[k, t3[j]]
        }
        # the median of a[1..n] (sorted in place; insertion sort: mawk has no asort)
        function median(a, n,    i, j, x) {
            for (i = 2; i <= n; i++) {
                x = a[i]
                for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]
                a[j + 1] = x
            }
            return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
        }
        BEGIN { split("h-ratio d-rank ad-part dmdar best", t3, " ") }
        NR == 1 { next }
        $5 == "fig5" || $5 == "fig4" {
            k = $5 SUBSEP $3
            if (!(k in seen)) { seen[k] = 1; figs[++nf] = k }
            if (!(($5, $3, $6) in wseen)) { wseen[$5, $3, $6] = 1; ws[k] = ws[k] " " $6 }
            if (!(($5, $3, $7) in pseen)) { pseen[$5, $3, $7] = 1; ps[k] = ps[k] " " $7 }
            cell[$5, $3, $6, $7] = $14 != "" ? "FAILED" : sprintf("%.2f / %.2f", $11, $12)
            if ($14 == "" && $10 > 0 && ($9 / $10 > 1.1 || $9 / $10 < 1 / 1.1))
                off[k] = off[k] sprintf("%s on %s %.2f; ", $7, $6, $9 / $10)
            if ($14 == "" && $10 > 0) {
                ratio[k, ++nratio[k]] = $9 / $10
                error[k, nratio[k]] = $9 / $10 > 1 ? $9 / $10 - 1 : 1 - $9 / $10
                within[k] += $9 / $10 <= 1.1 && $9 / $10 >= 1 / 1.1
            }
        }
        $5 == "table3" {
            if (!(($3, $6) in t3seen)) { t3seen[$3, $6] = 1; sets[++ns] = $3 SUBSEP $6 }
            mk[$3, $6, $7] = $10; opt[$3, $6] = $13; note[$3, $6] = $14
            if ($9 != "") { real[$3, $6, $7] = $9; rb = $4; rr = $8 }
        }
        END {
            for (i = 1; i <= nf; i++) {
                split(figs[i], a, SUBSEP)
                printf "\n## %s, %s: speedup over cpu-only, measured / simulated\n\n", \
                    a[1] == "fig5" ? "Fig. 5" : "Fig. 4 benchmarks", a[2]
                nw = split(substr(ws[figs[i]], 2), w, " ")
                np = split(substr(ps[figs[i]], 2), p, " ")
                printf "| policy |"; for (j = 1; j <= nw; j++) printf " %s |", w[j]; printf "\n"
                printf "| --- |"; for (j = 1; j <= nw; j++) printf " --- |"; printf "\n"
                for (q = 1; q <= np; q++) {
                    printf "| %s |", p[q]
                    for (j = 1; j <= nw; j++) printf " %s |", cell[a[1], a[2], w[j], p[q]]
                    printf "\n"
                }
                o = off[figs[i]]
                printf "\nMeasured / simulated makespan outside 0.91..1.1: %s\n", \
                    o == "" ? "none." : substr(o, 1, length(o) - 2) "."
                if ((n = nratio[figs[i]]) > 0) {
                    for (j = 1; j <= n; j++) { rs[j] = ratio[figs[i], j]; es[j] = error[figs[i], j] }
                    printf "\n%d of %d cells within 0.91..1.1; measured / simulated: median %.3f, " \
                        "median error %.1f%%.\n", within[figs[i]], n, median(rs, n), 100 * median(es, n)
                }
            }
            if (ns) {
                printf "\n## Table 3: heuristics against the MILP (simulated makespans, us)\n\n"
                printf "Ours is the best of h-ratio, d-rank and ad-part, as in the paper; "
                printf "ad-part splits kernels, which the MILP does not, so it may beat the optimum.\n\n"
                printf "| set | size | IP | ours | ours / IP | h-ratio | d-rank | ad-part | dmdar | best | MILP |\n"
                printf "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n"
                for (i = 1; i <= ns; i++) {
                    table3_row(mk, sets[i], opt[sets[i]])
                    printf " %s |\n", note[sets[i]]
                }
            }
            if (rb != "") {
                printf "\n## Table 3, measured: real makespans on %s (us, median of %s run(s))\n\n", rb, rr
                printf "IP is the MILP'"'"'s schedule of the table above run with `hetsched run "
                printf "--schedule` (each task on its device there, each device'"'"'s tasks in their "
                printf "order there); each heuristic runs as a policy, deciding as the run goes.\n\n"
                printf "| set | size | IP | ours | ours / IP | h-ratio | d-rank | ad-part | dmdar | best |\n"
                printf "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n"
                for (i = 1; i <= ns; i++) {
                    table3_row(real, sets[i], real[sets[i], "optimal"])
                    printf "\n"
                }
            }
        }' "$csv"
}

# For every real run more than 10% off its own prediction (the logs kept
# under $work: Fig. 5, Fig. 4 and Table 3's runs, not the training runs),
# what its log says about where the time went: each device's time idle
# while it held a started task, the bytes each link moved, and the kernel
# types whose measured time departs from the model's by more than 3% of
# the makespan.
causes() {
    local log name
    for log in "$work"/fig5-*/*-[0-9]*.log "$work"/fig4-*/*-[0-9]*.log "$work"/t3-*/*-[0-9]*.log; do
        [ -e "$log" ] || continue
        name=$(basename "$(dirname "$log")")/$(basename "$log" .log)
        awk -v name="$name" '
            /measured makespan/ { m = $0; sub(/.*measured makespan /, "", m); m += 0 }
            /measured \/ predicted/ { r = $0; sub(/.*measured \/ predicted /, "", r); r += 0 }
            / idle holding work / {
                p = $0; sub(/.*work [0-9.]+ us \(/, "", p); sub(/\).*/, "", p)
                q = $0; sub(/.*work [0-9.]+ us \([0-9.]+%\), predicted /, "", q); sub(/;.*/, "", q)
                rp = $0; sub(/.*inputs there [0-9.]+ us \(/, "", rp); sub(/\).*/, "", rp)
                idle = idle sprintf(", %s %s (predicted %s), inputs there %s (predicted %s)",
                                    $1, p, q, rp, $NF)
            }
            /^bytes moved per link/ { links = 1; kern = 0; next }
            /^kernel time, measured/ { kern = 1; next }
            kern && NF >= 7 && $3 ~ /^[0-9]+$/ {
                d = $5 - $7
                if (m > 0 && (d > 0.03 * m || -d > 0.03 * m))
                    k = k sprintf(", %s on %s %s (%+.1f ms)", $1, $2, $NF, d / 1000)
            }
            links && $2 == "->" { l = l sprintf(", %s->%s %.2f GB", $1, $3, $4 / 1e9) }
            /^prefetched|^buffers:|^exit/ { links = 0 }
            END {
                if (r == 0 || (r >= 0.91 && r <= 1.1)) exit
                printf "- %s: measured / predicted %.3f; idle holding work%s", name, r, substr(idle, 2)
                if (l != "") printf "; copied%s", substr(l, 2)
                printf "; kernels off the model by over 3%% of the makespan:%s\n", k == "" ? " none" : substr(k, 2)
            }' "$log"
    done
}

# Table 3's schedules in three views, from the logs under $work: the
# simulator's delay model (compare's makespan: copies never contend, the
# model of the paper's MILP), the executor's model with which `run` predicts
# itself (copies queue on their link, a device holds a few started tasks),
# and the run (the median of --runs).  A schedule that the delay model
# ranks first can be slower for real when it moves much data at once.
t3_views() {
    local log dir p sim pred meas
    for log in "$work"/t3-*.log; do
        dir=${log%.log}
        [ -d "$dir" ] || continue
        printf '\n%s:\n\n' "$(basename "$dir" | sed 's/^t3-//')"
        printf '| schedule | delay model | executor model | measured | measured / executor |\n'
        printf '| --- | --- | --- | --- | --- |\n'
        for p in $t3_policies optimal; do
            [ -s "$dir/$p.measured" ] || continue
            sim=$(awk -v p="$p" '($1 == p || $1 == p "*") && $2 ~ /^[0-9.]+$/ { print $2; exit }' "$log")
            pred=$(sed -n 's/^predicted makespan \([0-9.]*\) us.*/\1/p' "$dir/$p-1.log")
            meas=$(median <"$dir/$p.measured")
            awk -v p="$([ "$p" = optimal ] && echo IP || echo "$p")" -v s="${sim:-0}" \
                -v e="${pred:-0}" -v m="$meas" 'BEGIN {
                printf "| %s | %s | %s | %.3f | %s |\n", p, (s > 0 ? sprintf("%.3f", s) : "-"),
                    (e > 0 ? sprintf("%.3f", e) : "-"), m, (e > 0 ? sprintf("%.3f", m / e) : "-") }'
        done
    done
}

# The section of t3_views, when Table 3 ran for real.
t3_views_section() {
    local lines
    lines=$(t3_views)
    [ -n "$lines" ] || return 0
    printf '
## Table 3'"'"'s schedules in three views (us)

'
    printf 'The simulator'"'"'s delay model (copies never contend with each other: the model of the
'
    printf 'MILP and of Table 3), the executor'"'"'s model with which `run` predicts itself (copies
'
    printf 'queue on their link, a device holds a few started tasks), and the run (median of %s).
' "$runs"
    printf '%s
' "$lines"
}

# The report's last section: causes' lines, when there are any.
causes_section() {
    local lines
    lines=$(causes)
    [ -n "$lines" ] || return 0
    printf '\n## Runs more than 10%% off their prediction, from their logs\n\n'
    printf 'Idle holding work: time a device held a started task (its inputs on their way, its\n'
    printf 'launch) while it ran none, beside what the executor'"'"'s model predicts of it (the copies\n'
    printf 'that the schedule itself waits for); inputs there: the part of it in which the held\n'
    printf 'task'"'"'s inputs were all in its memory, the executor'"'"'s own delay. Copied: bytes each link moved. Kernels: the kernel types whose\n'
    printf 'measured time departs from the model by more than 3%% of the makespan (xR: measured over\n'
    printf 'model, then the difference).\n\n%s\n' "$lines"
}

# 4. The charts and the report from the rows so far; exits.
finish() {
    if [ -x "$plot" ]; then
        progress "charts: $stem-fig5.png, $stem-fig4.png"
        "$plot" "$csv" "$stem" || status=1
    else
        progress "no chart program at $plot: no charts"
    fi
    progress "report: $report"
    { write_report && t3_views_section && causes_section; } >"$report" || status=1
    progress "done in $((SECONDS - start)) s (exit $status)"
    exit $status
}
# Stopped (Ctrl-C, or `timeout` near a machine's time limit): the steps
# that ended are in the CSV; chart and report them.
trap 'progress "stopped: reporting the steps that ended"; status=1; finish' INT TERM

progress "paper.sh: sizes $sizes, $runs run(s) per cell, results in $out as $date-$label-*"
for size in ${sizes//,/ }; do
    # 1. calibration, on the mixed composition of this size (every kernel)
    mixed=$root/workloads/paper/mixed-$size.yaml
    if [ -n "$cores" ]; then
        mixed=$work/mixed-$size.yaml
        "$hetsched" gen composition mixed --size "$size" --devices cpu:1,gpu:1 --cores "$cores" \
            -o "$mixed" || die "cannot generate $mixed"
    fi
    model=$stem-$size-model.json
    platform=$stem-$size-platform.yaml
    devices=""
    [ "$backend" != emu ] || devices="--devices cpu"
    progress "calibrate --for $(basename "$mixed") $devices"
    # shellcheck disable=SC2086
    if ! "$hetsched" calibrate --for "$mixed" $devices -q --out-model "$model" \
        --out-platform "$platform" >"$work/calibrate-$size.txt" 2>&1; then
        cat "$work/calibrate-$size.txt"
        die "calibrate failed"
    fi
    used=$backend
    [ -n "$used" ] || { grep -q 'kind: gpu' "$platform" && used=cuda || used=emu; }
    run_platform=$platform
    if [ "$used" = emu ]; then
        # no GPU measured: the emulated gpu0 runs the mixed composition alone
        run_platform=""
        progress "emu: measuring gpu0 with run --devices gpu0 --update-model"
        if ! "$hetsched" run -a eager --backend emu --devices gpu0 --check none \
            --update-model "$model" "$mixed" >"$work/gpu0-$size.txt" 2>&1; then
            cat "$work/gpu0-$size.txt"
            die "the emu gpu0 measurement failed"
        fi
    fi
    grep -v '^calibrate:' "$work/calibrate-$size.txt"

    # 2. Fig. 5, then the benchmarks of Fig. 4 alone
    progress "Fig. 5 $size: mixed, compute, data on $used"
    run_fig5 "$size" fig5 mixed,compute,data "$policies" "$model" "$run_platform" \
        "$([ "$train" = 0 ] || echo --train)"
    if [ "$train" = 1 ]; then
        if cp "$work/fig5-$size/trained-model.json" "$stem-$size-trained-model.json"; then
            model=$stem-$size-trained-model.json
        else
            status=1
            progress "Fig. 5 $size: no trained model; the calibrated one predicts the rest"
        fi
    fi
    if [ -n "$benchmarks" ]; then
        progress "Fig. 4 benchmarks $size: $benchmarks"
        run_fig5 "$size" fig4 "$benchmarks" "$bench_policies" "$model" "$run_platform"
    fi

    # 3. Table 3
    table3 "$size" "$model" "$run_platform"
done

# 4. charts and the report
finish
