#!/usr/bin/env bash
# GPU smoke test of the real kernels, in one call on a GPU machine:
#
#   bench/gpu_smoke.sh BUILD_DIR [MESON_OPTION...]
#
# Configures BUILD_DIR with -Dcuda=enabled (extra options, e.g.
# --pkg-config-path=PREFIX/lib/pkgconfig for an offline prefix, go to the
# first `meson setup`), builds, runs the kernel tests (CPU and CUDA), then
# runs the CUDA test under compute-sanitizer's memcheck, racecheck,
# synccheck and initcheck when compute-sanitizer is installed.
# Exit status: 0 when everything passed, 77 when no GPU was found, 1 else.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
dir=${1:?usage: bench/gpu_smoke.sh BUILD_DIR [MESON_OPTION...]}
shift
[ -d /usr/local/cuda/bin ] && PATH=$PATH:/usr/local/cuda/bin

if [ -f "$dir/build.ninja" ]; then
    meson configure "$dir" -Dcuda=enabled || exit 1
else
    meson setup "$dir" -Dcuda=enabled "$@" || exit 1
fi
ninja -C "$dir" || exit 1
meson test -C "$dir" --print-errorlogs kernels || exit 1

test_bin="$dir/tests/test_kernels_cuda"
"$test_bin"
status=$?
[ "$status" -eq 77 ] && { echo "gpu_smoke: no GPU found: skipped" >&2; exit 77; }
[ "$status" -ne 0 ] && { echo "gpu_smoke: test_kernels_cuda failed ($status)" >&2; exit 1; }

if ! command -v compute-sanitizer >/dev/null; then
    echo "gpu_smoke: compute-sanitizer not found: sanitizer runs skipped" >&2
    exit 0
fi
failed=0
for tool in memcheck racecheck synccheck initcheck; do
    echo "== compute-sanitizer --tool $tool"
    # HS_COMPUTE_SANITIZER leaves out the test's deliberate bad-device call,
    # which the sanitizer would report as an API error
    HS_COMPUTE_SANITIZER=1 compute-sanitizer --tool "$tool" --error-exitcode 1 "$test_bin" ||
        failed=1
done
[ "$failed" -eq 0 ] && echo "gpu_smoke: all passed"
exit "$failed"
