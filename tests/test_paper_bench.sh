#!/usr/bin/env bash
# bench/paper.sh (Zhou & Liu, Sec. 5 in one command) in its small mode on the
# emu backend, as CI runs it: it exits 0 and writes
#   - the CSV: a row per composition and policy for Fig. 5, per benchmark
#     and policy for Fig. 4, with numbers where they belong, cpu-only's
#     speedups exactly 1, and each speedup cpu-only's makespan over the row's;
#   - Table 3's rows for the three sets: the case study x5 (cost-only, so its
#     makespans are the paper's Table 2 costs: h-ratio's 28790.208 us, the
#     MILP's proven optimum the same), the MILP's verdict on the others, and
#     the measured makespans of the MILP's schedule (run --schedule) and of
#     the policies run;
#   - the report with its three sections, the model and platform, and (with
#     cairo) two PNG charts;
# and refuses bad options with exit 2 and one line; stopped by SIGTERM, it
# still writes its report.  paper_plot refuses a
# malformed CSV the same way.
# Needs HETSCHED and HS_SOURCE_ROOT (tests/meson.build), PAPER_PLOT and
# HS_HAVE_CAIRO (bench/meson.build).
set -u
cd "$HS_SOURCE_ROOT" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() {
    fail=$((fail + 1))
    echo "FAIL: $*"
}
check() { # check DESCRIPTION COMMAND...
    local what=$1
    shift
    if "$@"; then ok; else bad "$what"; fi
}

# bad usage: exit 2, one line naming the option
for args in "--size huge" "--runs 0" "--backend gpu" "--benchmarks fft" "--policies fast" "--label a/b" \
    "--frobnicate"; do
    # shellcheck disable=SC2086
    bench/paper.sh $args --out "$tmp/bad" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    check "paper.sh $args: exit 2 (got $rc)" [ "$rc" = 2 ]
    check "paper.sh $args: one line on stderr" [ "$(wc -l <"$tmp/err")" = 1 ]
    check "paper.sh $args: the line says paper.sh" grep -q '^paper.sh: ' "$tmp/err"
done

# the paper's policies on two benchmarks; under the sanitizers (build.sh's
# ASan run) two policies on one
policies="h-ratio d-rank ad-part dmdar" benchmarks="va xgemm"
[ -z "${HS_SANITIZED:-}" ] || policies="h-ratio dmdar" benchmarks=va
out=$tmp/results
start=$SECONDS
bench/paper.sh --size small --runs 1 --backend emu --out "$out" --label ci --train \
    --policies "${policies// /,}" --benchmarks "${benchmarks// /,}" \
    --benchmark-policies "${policies// /,}" --time-limit 10 --hetsched "$HETSCHED" >"$tmp/log" 2>&1
rc=$?
echo "paper.sh small on emu: exit $rc in $((SECONDS - start)) s"
check "paper.sh small: exit 0 (got $rc)" [ "$rc" = 0 ]
[ "$rc" = 0 ] || tail -20 "$tmp/log"
check "progress lines with elapsed seconds" grep -q '^\[ *[0-9]*s\] Fig. 5 small' "$tmp/log"

d=$(date -u +%Y-%m-%d)
csv=$out/$d-ci-paper.csv
check "the CSV is written" [ -s "$csv" ]
check "the CSV's header" [ "$(head -1 "$csv")" = \
    "date,machine,size,backend,figure,workload,policy,runs,measured_us,predicted_us,speedup,predicted_speedup,optimum_us,note" ]
check "every row has 14 fields" awk -F, 'NF != 14 { exit 1 }' "$csv"

# fig5: 3 compositions, fig4: the benchmarks, each with cpu-only and the policies
for fig in "fig5 mixed compute data" "fig4 $benchmarks"; do
    set -- $fig
    f=$1
    shift
    for w in "$@"; do
        for p in cpu-only $policies; do
            # runs: 1 (--runs), cpu-only's at least 3 (fig5.sh --base-runs)
            n=$(awk -F, -v f="$f" -v w="$w" -v p="$p" '$5 == f && $6 == w && $7 == p &&
                $2 == "ci" && $3 == "small" && $4 == "emu" && $8 == (p == "cpu-only" ? 3 : 1) &&
                $9 > 0 && $10 > 0 &&
                $11 > 0 && $12 > 0 && $14 == ""' "$csv" | wc -l)
            check "$f $w $p: one row with its numbers" [ "$n" = 1 ]
        done
        check "$f $w: cpu-only's speedups are 1" awk -F, -v f="$f" -v w="$w" \
            '$5 == f && $6 == w && $7 == "cpu-only" { n++; if ($11 != "1.000" || $12 != "1.000") exit 1 }
             END { exit n != 1 }' "$csv"
        # speedup = cpu-only's makespan / the row's, up to the rounding of
        # what fig5.sh prints (makespans to 0.1 us, speedups to 0.001)
        check "$f $w: speedups are cpu-only's makespan over the row's" awk -F, -v f="$f" -v w="$w" '
            function off(a, b, s) { e = a / b - s; if (e < 0) e = -e
                                    return e > s * (0.05 / a + 0.05 / b) + 0.0006 }
            $5 == f && $6 == w { m[$7] = $9; q[$7] = $10; s[$7] = $11; ps[$7] = $12 }
            END { for (p in m)
                      if (m[p] <= 0 || q[p] <= 0 || off(m["cpu-only"], m[p], s[p]) ||
                          off(q["cpu-only"], q[p], ps[p])) exit 1 }' "$csv"
    done
done

# Table 3: the case study x5 by hand (Table 2's costs, whole tasks): h-ratio
# finds the MILP's optimum, 28790.208 us, which the MILP proves
check "table3 case study x5: h-ratio 28790.208 us, proven optimum 28790.208" awk -F, '
    $5 == "table3" && $6 == "case-study-x5" && $7 == "h-ratio" { n++
        if ($10 != "28790.208" || $13 != "28790.208" || $14 != "proven optimal") exit 1 }
    END { exit n != 1 }' "$csv"
# the MILP's schedule run for real (run --schedule of compare's optimal.json):
# its simulated makespan is the optimum's, beside a measured one
check "table3 case study x5: the optimum, run for real on emu" awk -F, '
    $5 == "table3" && $6 == "case-study-x5" && $7 == "optimal" { n++
        if ($4 != "emu" || $8 != 1 || !($9 > 0) || $10 != "28790.208") exit 1 }
    END { exit n != 1 }' "$csv"
for set in case-study-x5 va+xgemm+increment-x5 xgemm+fblock+pi-x2; do
    n=$(awk -F, -v s="$set" '$5 == "table3" && $6 == s && $10 > 0 && $14 != ""' "$csv" | wc -l)
    check "table3 $set: a row per policy with the MILP's verdict ($n)" [ "$n" -ge 18 ]
    # measured: the MILP's schedule and Table 3's policies among those run
    for p in optimal $policies; do
        n=$(awk -F, -v s="$set" -v p="$p" '$5 == "table3" && $6 == s && $7 == p &&
            $4 == "emu" && $8 == 1 && $9 > 0' "$csv" | wc -l)
        check "table3 $set $p: measured on emu" [ "$n" = 1 ]
    done
    n=$(awk -F, -v s="$set" '$5 == "table3" && $6 == s && $9 != ""' "$csv" | wc -l)
    check "table3 $set: measured only the MILP's and the policies run ($n)" \
        [ "$n" = $(($(wc -w <<<"$policies") + 1)) ]
    # no policy's whole-task schedule beats a proven optimum
    check "table3 $set: no whole-task policy below a proven optimum" awk -F, -v s="$set" '
        $5 == "table3" && $6 == s && $14 == "proven optimal" && $7 != "ad-part" &&
        $10 < $13 - 0.001 { exit 1 }' "$csv"
done

md=$out/$d-ci-paper.md
check "the report is written" [ -s "$md" ]
for h in "## Fig. 5, small" "## Fig. 4 benchmarks, small" "## Table 3" "| case-study-x5 | small | 28790.208 | 28790.208 | 1.000 |" \
    "## Table 3, measured: real makespans on emu (us, median of 1 run(s))"; do
    check "the report has '$h'" grep -qF -- "$h" "$md"
done
# Table 3's schedules in three views: per set, a row per schedule run for
# real (the policies and the MILP's, "IP"), the case study's delay model
# the paper's 28790.208 us, each measured value the CSV's, and the ratio
# measured / executor model from the row's own numbers
views=$(sed -n "/^## Table 3's schedules in three views (us)/,/^## Runs more/p" "$md")
check "the report has Table 3's three views" [ -n "$views" ]
for set in case-study-x5 va+xgemm+increment-x5 xgemm+fblock+pi-x2; do
    rows=$(awk -v s="$set-small:" '$0 == s { on = 1; next } on && /:$/ { exit } on && /^\| [a-zIP-]+ \| [0-9]/' \
        <<<"$views")
    check "three views $set: the IP row and one per policy run ($(wc -l <<<"$rows"))" \
        [ "$(grep -c '^| IP |' <<<"$rows")" = 1 -a "$(wc -l <<<"$rows")" -ge 3 ]
    while IFS='|' read -r _ p sim pred meas ratio _; do
        p=$(echo $p) meas=$(echo $meas)
        want=$(awk -F, -v s="$set" -v p="$([ "$p" = IP ] && echo optimal || echo "$p")" \
            '$5 == "table3" && $6 == s && $7 == p && $9 != "" { printf "%.3f", $9 }' "$csv")
        check "three views $set $p: measured $meas is the CSV's ($want)" [ "$meas" = "$want" ]
        check "three views $set $p: measured / executor model" \
            [ "$(awk -v m="$meas" -v e="$pred" 'BEGIN { printf "%.3f", m / e }')" = "$(echo $ratio)" ]
    done <<<"$rows"
done
check "three views: the case study's delay model is Table 2's 28790.208 us" \
    grep -q '^| h-ratio | 28790.208 | ' <<<"$views"
# Fig. 5's agreement in one line: the cells within 0.91..1.1, the median of
# measured / simulated and of its distance to 1, all from the CSV's rows
median() { sort -g | awk '{ v[NR] = $1 } END { printf "%.6f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
fig5_rows() { awk -F, '$5 == "fig5" && $14 == "" && $10 > 0 { r = $9 / $10; print r, (r > 1 ? r - 1 : 1 - r) }' "$csv"; }
want=$(printf '%d of %d cells within 0.91..1.1; measured / simulated: median %.3f, median error %.1f%%.' \
    "$(fig5_rows | awk '$1 <= 1.1 && $1 >= 1 / 1.1' | wc -l)" "$(fig5_rows | wc -l)" \
    "$(fig5_rows | cut -d' ' -f1 | median)" "$(fig5_rows | cut -d' ' -f2 | median | awk '{ print 100 * $1 }')")
check "Fig. 5's agreement line ($want)" \
    [ "$(sed -n '/^## Fig. 5, small/,/^## Fig. 4/p' "$md" | grep 'cells within 0.91..1.1;')" = "$want" ]
# the runs off their prediction by more than 10%: each fig5/fig4 row of the
# CSV outside 0.91..1.1 (one run: the row is run 1's) has its line in the
# report's last section, and only those; cpu-only runs 3 times (fig5.sh
# --base-runs), its row the median, so each of its runs listed is one off
sed -n '/^## Runs more than 10% off their prediction/,$p' "$md" |
    sed -n 's/^- \(fig[45]-small\/[^:]*\): measured \/ predicted \([0-9.]*\);.*/\1 \2/p' | sort >"$tmp/causes"
awk -F, '($5 == "fig5" || $5 == "fig4") && $7 != "cpu-only" && $10 > 0 && ($9 / $10 > 1.1 || $9 / $10 < 0.91) {
    printf "%s-small/%s-%s-1\n", $5, $6, $7 }' "$csv" | sort >"$tmp/off"
check "the report's last section names exactly the runs off by 10% ($(wc -l <"$tmp/off") in the CSV)" \
    [ "$(grep -v -- '-cpu-only-[1-3] ' "$tmp/causes" | cut -d' ' -f1)" = "$(cat "$tmp/off")" ]
check "the report's cpu-only runs listed are each off by 10%" awk '
    $1 ~ /-cpu-only-[1-3]$/ && $2 <= 1.1 && $2 >= 0.91 { exit 1 }' "$tmp/causes"
check "each such line says where the time went" awk '
    /^- fig[45]-small\// { n++; if ($0 !~ /idle holding work cpu0 [0-9.]+% \(predicted [0-9.]+%\), inputs there [0-9.]+% \(predicted [0-9.]+%\)/ ||
                                     $0 !~ /kernels off the model by over 3% of the makespan: /) exit 1 }
    END { exit 0 }' "$md"
check "the model is kept" [ -s "$out/$d-ci-small-model.json" ]
check "--train: the trained model is kept and predicted the rest" [ -s "$out/$d-ci-small-trained-model.json" ]
check "--train: fig5 says it trained" grep -q 'trained by three cpu-only and three h-ratio runs of each composition' "$tmp/log"
check "--train: Fig. 4 ran with the trained model" grep -q "model $out/$d-ci-small-trained-model.json" "$tmp/log"
check "the model has emu's gpu0" grep -q '"device": "gpu0"' "$out/$d-ci-small-model.json"
check "the platform is kept" grep -q '^platform:' "$out/$d-ci-small-platform.yaml"
if [ "${HS_HAVE_CAIRO:-0}" = 1 ]; then
    for f in fig5 fig4; do
        check "$f.png is a PNG" [ "$(head -c 8 "$out/$d-ci-$f.png" | od -An -tx1 | tr -d ' \n')" = \
            89504e470d0a1a0a ]
        check "the report shows $f.png" grep -qF "($d-ci-$f.png)" "$md"
    done
    # paper_plot: a row with a field missing, a speedup that is not a number
    printf 'header\n1,2,3\n' >"$tmp/short.csv"
    "$PAPER_PLOT" "$tmp/short.csv" "$tmp/p" 2>"$tmp/err"
    check "paper_plot: a short row is exit 2" [ "$?" = 2 ]
    check "paper_plot: names the line" grep -q "short.csv:2: expected 14 fields, not 3" "$tmp/err"
    head -1 "$csv" >"$tmp/nan.csv"
    echo "d,m,small,emu,fig5,mixed,heft,1,1,1,fast,1,," >>"$tmp/nan.csv"
    "$PAPER_PLOT" "$tmp/nan.csv" "$tmp/p" 2>"$tmp/err"
    check "paper_plot: a speedup that is no number is exit 2" [ "$?" = 2 ]
    check "paper_plot: says which" grep -q "nan.csv:2: speedups must be numbers >= 0, not 'fast' and '1'" "$tmp/err"
    check "paper_plot: nothing written on bad input" [ ! -e "$tmp/p-fig5.png" ]
fi

# stopped by SIGTERM during Fig. 5 (as `timeout` stops it, the whole process
# group): exit 1, and the report of what ended is still written
setsid bench/paper.sh --size small --runs 1 --backend emu --out "$tmp/stop" --label ci \
    --policies h-ratio --benchmarks none --hetsched "$HETSCHED" >"$tmp/stop.log" 2>&1 &
pid=$!
for _ in $(seq 600); do
    grep -q 'Fig. 5 small' "$tmp/stop.log" && break
    sleep 0.1
done
kill -TERM -- -"$pid"
wait "$pid"
rc=$?
check "paper.sh stopped: exit 1 (got $rc)" [ "$rc" = 1 ]
check "paper.sh stopped: says so" grep -q 'stopped: reporting the steps that ended' "$tmp/stop.log"
check "paper.sh stopped: the report is written" grep -q '^# Zhou & Liu' "$tmp/stop/$d-ci-paper.md"

echo "paper_bench: $pass passed, $fail failed"
[ "$fail" = 0 ]
