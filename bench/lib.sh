# Shell helpers of the bench scripts, sourced by them (not run).

# usage: prints the script's usage, its comment lines from "# usage:" to
# "# Exit status", and exits 2.
usage() {
    sed -n '/^# usage:/,/^# Exit status/p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

# die MESSAGE...: "SCRIPT: MESSAGE" on stderr, exit 2 (bad usage or input).
die() {
    echo "$(basename "$0"): $*" >&2
    exit 2
}

# median: the median of the numbers on stdin (the mean of the middle two
# when there are an even number); exit status 1 when there are none.
median() {
    sort -g | awk '{v[NR] = $1} END {if (NR == 0) exit 1
                   print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}
