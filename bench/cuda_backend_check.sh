#!/usr/bin/env bash
# The cuda backend on a GPU machine, in one call:
#
#   bench/cuda_backend_check.sh BUILD_DIR OUT_DIR [MESON_OPTION...]
#
# Configures BUILD_DIR with -Dcuda=enabled, builds hetsched, the data
# manager's tests and copy_bench, then runs: tests/test_run_cuda (the cuda
# backend; 77 without a GPU), tests/test_data (emu), copy_bench twice,
# `hetsched run` of workloads/run-small.yaml on cuda (plain, and with a 1M
# device memory), and test_run_cuda under compute-sanitizer's memcheck when
# it is installed.  Logs go to OUT_DIR; a summary is printed last.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
dir=${1:?usage: bench/cuda_backend_check.sh BUILD_DIR OUT_DIR [MESON_OPTION...]}
out=${2:?usage: bench/cuda_backend_check.sh BUILD_DIR OUT_DIR [MESON_OPTION...]}
shift 2
[ -d /usr/local/cuda/bin ] && PATH=$PATH:/usr/local/cuda/bin
mkdir -p "$out"
export HS_SOURCE_ROOT=$PWD
summary=()
step() { # NAME LOG COMMAND...: runs it, logs it, records its status
    local name=$1 log=$out/$2
    shift 2
    echo "== $name: $*"
    "$@" >"$log" 2>&1
    local rc=$?
    tail -n 25 "$log"
    summary+=("$name: exit $rc")
}
nvidia-smi -L 2>&1 | tee "$out/gpus.txt"
if [ ! -f "$dir/build.ninja" ]; then
    meson setup "$dir" -Dcuda=enabled "$@" >"$out/setup.log" 2>&1 || { tail "$out/setup.log"; exit 1; }
fi
ninja -C "$dir" cli/hetsched tests/test_run_cuda tests/test_data bench/copy_bench \
    >"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
step test_run_cuda test_run_cuda.log "$dir/tests/test_run_cuda"
step test_data test_data.log "$dir/tests/test_data"
step copy_bench copy_bench.log bash -c "'$dir/bench/copy_bench' && '$dir/bench/copy_bench'"
step run_small run_small.log "$dir/cli/hetsched" run -a heft workloads/run-small.yaml \
    --backend cuda
step run_small_1M run_small_1M.log "$dir/cli/hetsched" run -a heft workloads/run-small.yaml \
    --backend cuda --device-memory 1M
if command -v compute-sanitizer >/dev/null; then
    step memcheck memcheck.log timeout 300 compute-sanitizer --tool memcheck \
        --error-exitcode 1 "$dir/tests/test_run_cuda"
else
    summary+=("memcheck: compute-sanitizer not found")
fi
printf '%s\n' "${summary[@]}"
