#!/usr/bin/env bash
# Build hetsched on a machine without package access (a GPU node that has
# nvcc, the CUDA libraries, OpenBLAS/LAPACKE, meson and ninja, but none of
# the other libraries of scripts/deps.txt):
#
#   scripts/offline-prefix.sh download DIR
#       on a connected Debian/Ubuntu machine of the node's architecture:
#       `apt-get download` every package of scripts/offline-deps.txt into DIR
#       (a few MiB).  Copy DIR to the node.
#   scripts/offline-prefix.sh unpack DIR PREFIX
#       on the node: `dpkg -x` every DIR/*.deb into PREFIX, point the .pc
#       files at PREFIX, and write PREFIX/env.sh, which sets PKG_CONFIG_PATH,
#       LIBRARY_PATH, CPATH, LD_LIBRARY_PATH and PATH.  Then:
#
#       . PREFIX/env.sh
#       meson setup BUILD -Dcuda=enabled && ninja -C BUILD && meson test -C BUILD
#
# Meson finds cyaml, yaml, cgraph, jansson, GSL and CMocka through
# pkg-config (PKG_CONFIG_PATH); GLPK has no .pc file and milp/meson.build
# finds it with cc.find_library, which sees PREFIX through gcc's LIBRARY_PATH
# and CPATH.  LD_LIBRARY_PATH lets the linker find the libraries those link
# against and lets the tests run; keep env.sh sourced when running hetsched.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
deps="$here/offline-deps.txt"

usage() {
    echo "usage: $0 download DIR | unpack DIR PREFIX" >&2
    exit 2
}

# download DIR: fetch the packages of offline-deps.txt, with apt's own
# resolution of versions (the machine's configured release).
download() {
    local dir=$1
    mkdir -p "$dir"
    mapfile -t pkgs < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$deps")
    (cd "$dir" && apt-get download "${pkgs[@]}")
    echo "downloaded ${#pkgs[@]} packages into $dir ($(du -sh "$dir" | cut -f1))"
}

# unpack DIR PREFIX: extract, relocate the .pc files, write PREFIX/env.sh.
unpack() {
    local dir=$1 prefix
    mkdir -p "$2"
    prefix=$(cd "$2" && pwd)
    local debs=("$dir"/*.deb)
    [ -e "${debs[0]}" ] || { echo "$0: no .deb in $dir" >&2; exit 1; }
    for deb in "${debs[@]}"; do
        dpkg -x "$deb" "$prefix"
    done
    # Debian's .pc files say /usr in prefix= lines, and some (gsl, cmocka)
    # in -I/-L flags too: every /usr path of them moves under PREFIX.  The
    # files were just extracted afresh, so a second unpack does not double it.
    local pc
    while IFS= read -r -d '' pc; do
        sed -i -E "s#(^|[=[:space:]]|-I|-L)/usr(/|\$|[[:space:]])#\1$prefix/usr\2#g" "$pc"
    done < <(find "$prefix/usr" -name '*.pc' -print0)

    local triplet lib inc
    triplet=$(gcc -dumpmachine 2>/dev/null || echo x86_64-linux-gnu)
    lib="$prefix/usr/lib/$triplet"
    inc="$prefix/usr/include"
    # dot finds its plugins through the config6a that `dot -c` writes.  With
    # LD_LIBRARY_PATH, a dot of the node's own loads this libgvc too, so
    # GVBINDIR points every dot at these plugins, which match it.
    local gv=""
    if [ -x "$prefix/usr/bin/dot" ]; then
        GVBINDIR="$lib/graphviz" LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
            "$prefix/usr/bin/dot" -c 2>/dev/null || echo "$0: dot -c failed" >&2
        gv="export GVBINDIR=\"$lib/graphviz\""
    fi
    # Open MPI moved out of /usr: OPAL_PREFIX and its directories, PMIx's
    # components, and `mpirun` (Debian makes it an alternative of orterun)
    local mpi=""
    if [ -x "$prefix/usr/bin/orterun" ]; then
        ln -sf orterun "$prefix/usr/bin/mpirun"
        mpi="export OPAL_PREFIX=\"$prefix/usr\" OPAL_LIBDIR=\"$lib/openmpi/lib\" \\
    OPAL_DATADIR=\"$prefix/usr/share/openmpi\" OPAL_SYSCONFDIR=\"$prefix/etc/openmpi\" \\
    OMPI_MCA_mca_base_component_path=\"$lib/openmpi/lib/openmpi3\" \\
    PMIX_INSTALL_PREFIX=\"$prefix/usr\" PMIX_MCA_mca_base_component_path=\"$lib/pmix2/lib/pmix\"
export LD_LIBRARY_PATH=\"$lib/openmpi/lib:\$LD_LIBRARY_PATH\" PATH=\"$prefix/usr/bin:\$PATH\""
    fi
    cat > "$prefix/env.sh" <<EOF
# hetsched offline prefix (scripts/offline-prefix.sh): source before meson
export PKG_CONFIG_PATH="$lib/pkgconfig:$prefix/usr/share/pkgconfig\
\${PKG_CONFIG_PATH:+:\$PKG_CONFIG_PATH}"
export LIBRARY_PATH="$lib\${LIBRARY_PATH:+:\$LIBRARY_PATH}"
export CPATH="$inc\${CPATH:+:\$CPATH}"
export LD_LIBRARY_PATH="$lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
# pkgconf drops -I/-L of the directories in CPATH and LIBRARY_PATH; keep them,
# so that a linker driver that ignores LIBRARY_PATH (nvcc) still gets -L
export PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1 PKG_CONFIG_ALLOW_SYSTEM_LIBS=1
# last, so that a pkg-config of the node's own wins
export PATH="\$PATH:$prefix/usr/bin"
$gv
$mpi
EOF
    echo "unpacked ${#debs[@]} packages into $prefix; now run:"
    echo "  . $prefix/env.sh"
    sed -n 's/^export /  export /p' "$prefix/env.sh"
}

[ $# -ge 1 ] || usage
case $1 in
    download) [ $# -eq 2 ] || usage; download "$2" ;;
    unpack) [ $# -eq 3 ] || usage; unpack "$2" "$3" ;;
    *) usage ;;
esac
