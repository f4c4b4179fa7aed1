#!/usr/bin/env bash
# hetsched's two commands.
#   ./build.sh        installs missing Debian packages, builds, and compares every
#                     policy with the optimum on the case study (the main job)
#   ./build.sh test   installs missing Debian packages, builds, runs the tests
#                     (once plainly, once under AddressSanitizer + UBSan), then
#                     the tests that run threads (the executor, the splitters,
#                     a CPU kernel's helpers) under ThreadSanitizer
set -euo pipefail
cd "$(dirname "$0")"

install_deps() {
    local missing=()
    while read -r pkg; do
        case "$pkg" in '' | '#'*) continue ;; esac
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' ||
            missing+=("$pkg")
    done < scripts/deps.txt
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "build.sh: installing ${missing[*]}" >&2
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" >&2
}

build() { # build DIR [meson options...]
    local dir=$1
    shift
    [ -f "$dir/build.ninja" ] || meson setup "$dir" "$@" >&2
    ninja -C "$dir" ${targets:-} >&2
}

# The tests that run threads: the executor, the chunk splitters and a CPU
# kernel's team of helper threads.
tsan_tests=(kernels split_real engine_real run data split wave splitgraph)

install_deps
case "${1:-run}" in
run)
    build build
    ./build/cli/hetsched compare workloads/case-study.yaml --optimal
    ;;
test)
    # Every half runs even when an earlier one fails; the status says whether all passed.
    status=0
    build build
    meson test -C build --print-errorlogs || status=1
    build build-asan -Db_sanitize=address,undefined -Db_lundef=false
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
        LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp:print_suppressions=0 \
        UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 HS_SANITIZED=1 \
        meson test -C build-asan --print-errorlogs || status=1
    # only what those tests need, to keep the third half short
    targets="cli/hetsched ${tsan_tests[*]/#/tests/test_}" \
        build build-tsan -Db_sanitize=thread -Db_lundef=false
    TSAN_OPTIONS=halt_on_error=1 HS_SANITIZED=1 \
        meson test -C build-tsan --no-rebuild --print-errorlogs "${tsan_tests[@]}" || status=1
    [ $status -eq 0 ] || echo "build.sh: some tests failed (see above)" >&2
    exit $status
    ;;
*)
    echo "usage: ./build.sh [test]" >&2
    exit 2
    ;;
esac
