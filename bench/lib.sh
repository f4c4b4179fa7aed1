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
# when there are an even number, to 10 significant digits, not awk's 6);
# exit status 1 when there are none.
median() {
    sort -g | awk '{v[NR] = $1} END {if (NR == 0) exit 1
                   if (NR % 2) print v[(NR + 1) / 2]
                   else printf "%.10g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}

# work_dir VAR [KEEP]: sets VAR to the script's working directory: KEEP
# (made when missing), else a temporary one removed at exit.
work_dir() {
    local d
    if [ -n "${2:-}" ]; then
        mkdir -p "$2" || die "cannot create $2"
        d=$2
    else
        d=$(mktemp -d) || die "mktemp failed"
        # shellcheck disable=SC2064 # the path now, whatever VAR holds later
        trap "rm -rf $(printf %q "$d")" EXIT
    fi
    printf -v "$1" %s "$d"
}
