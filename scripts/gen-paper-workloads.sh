#!/usr/bin/env bash
# Writes the workloads of Zhou & Liu (ESWEEK 2014) into workloads/paper/:
#   <bench>-<size>.yaml  the 7 benchmarks of Fig. 4 (xgemm, cg, cholesky,
#                        increment, va, pi, fblock), one application each
#   <comp>-<size>.yaml   the 3 compositions of Sec. 5.2 (compute, data, mixed)
# at the 3 sizes of Fig. 4 (small, medium, large), on one CPU device and one
# GPU (the paper's second configuration; `hetsched gen` makes others).  Every
# kernel is typed (workloads/kernels) with the Fig. 4 problem size, and
# carries cost_us from gen's analytic model of the paper's machine, which
# the simulator uses where no calibrated model (--model) replaces it.
#
# usage: scripts/gen-paper-workloads.sh [HETSCHED [OUTDIR]]
#   HETSCHED  the binary (default: build/cli/hetsched)
#   OUTDIR    where to write (default: workloads/paper of this checkout)
# Extra `hetsched gen` options go in $GEN_OPTS (e.g. GEN_OPTS="--cores 16").
# The files depend on nothing but the generator: running this again gives
# the same bytes (tests/test_paper.sh checks that the committed ones do).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
hetsched=${1:-$root/build/cli/hetsched}
out=${2:-$root/workloads/paper}
devices=${DEVICES:-cpu:1,gpu:1}
read -r -a extra <<<"${GEN_OPTS:-}"

if [ ! -x "$hetsched" ]; then
    echo "gen-paper-workloads.sh: no hetsched binary at $hetsched (build first, or pass it)" >&2
    exit 2
fi
mkdir -p "$out"
for size in small medium large; do
    for bench in xgemm cg cholesky increment va pi fblock; do
        "$hetsched" gen benchmark "$bench" --size "$size" --devices "$devices" \
            ${extra[@]+"${extra[@]}"} -o "$out/$bench-$size.yaml"
    done
    for comp in compute data mixed; do
        "$hetsched" gen composition "$comp" --size "$size" --devices "$devices" \
            ${extra[@]+"${extra[@]}"} -o "$out/$comp-$size.yaml"
    done
done
echo "gen-paper-workloads.sh: wrote 30 workloads to $out" >&2
