#!/usr/bin/env bash
# Converts a directory of task-graph sets (Kasahara's STG files, WfCommons
# instances, DOT graphs: however you got them; this fetches nothing) into
# DOT files that carry each task's cost on every device of one platform,
# through `hetsched dot`.  The costs are derived once, as the options say
# (--speed, --beta, --beta-seed), and frozen: every hetsched command then
# reads the converted set with --platform PLATFORM and no more options, and
# gets the same workload (`dot` writes what reads back exactly).
#
# usage: scripts/convert-sets.sh SRC DEST PLATFORM [hetsched options...]
#   SRC       a directory, searched recursively for *.stg, *.json, *.dot, *.gv
#   DEST      where the .dot files go, at the same relative paths (x.stg ->
#             x.stg.dot, so that x.stg and x.json never collide)
#   PLATFORM  a YAML file with a platform: section (calibrate --out-platform,
#             or a workload's YAML)
#   options   given to `hetsched dot` for each file: --speed gpu=4, --beta 0.5
#             --beta-seed 7, --format stg (for files without an extension)
# HETSCHED names the binary (default: build/cli/hetsched of this checkout).
#
# Each converted file is read back (`hetsched info`) before it counts.  A
# file that does not convert is named with hetsched's reason, and the exit
# status is then 1; the others are still converted.
#
# example: compare every policy over the converted set
#   scripts/convert-sets.sh ~/stg/rnc50 /tmp/rnc50 workloads/case-study.yaml --speed gpu=4
#   hetsched compare --suite /tmp/rnc50/* --platform workloads/case-study.yaml --csv rnc50.csv
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
hetsched=${HETSCHED:-$root/build/cli/hetsched}
usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
if [ "${1:-}" = -h ] || [ "${1:-}" = --help ]; then
    usage
    exit 0
fi
if [ $# -lt 3 ]; then
    usage >&2
    exit 2
fi
src=$1 dest=$2 platform=$3
shift 3
if [ ! -x "$hetsched" ]; then
    echo "convert-sets.sh: no hetsched binary at $hetsched (build first, or set HETSCHED)" >&2
    exit 2
fi
if [ ! -d "$src" ]; then
    echo "convert-sets.sh: $src is not a directory" >&2
    exit 2
fi
converted=0 failed=0
while IFS= read -r -d '' file; do
    rel=${file#"$src"/}
    out="$dest/$rel.dot"
    mkdir -p "$(dirname "$out")"
    if ! why=$("$hetsched" dot "$file" --platform "$platform" "$@" -o "$out" 2>&1) ||
        ! why=$("$hetsched" info "$out" --platform "$platform" 2>&1 >/dev/null); then
        echo "$why" | sed 's/^/convert-sets.sh: /' >&2
        rm -f "$out"
        rmdir -p --ignore-fail-on-non-empty "$(dirname "$out")" 2>/dev/null
        failed=$((failed + 1))
        continue
    fi
    converted=$((converted + 1))
done < <(find "$src" -type f \( -name '*.stg' -o -name '*.json' -o -name '*.dot' -o -name '*.gv' \) \
    -print0 | sort -z)
if [ "$failed" -gt 0 ]; then
    echo "converted $converted sets into $dest, $failed failed"
else
    echo "converted $converted sets into $dest"
fi
[ "$failed" -eq 0 ]
