#!/usr/bin/env bash
# Checks that halo.pc works from wherever the install lies:
#
#   1. install the current build into a scratch prefix;
#   2. with PKG_CONFIG_PATH at its pkgconfig folder, pkg-config must name
#      that prefix, and an example compiled with
#      `pkg-config --cflags --libs halo` must run against the installed
#      libhalo and find the installed plugins;
#   3. move the prefix elsewhere and do it again: halo.pc names its prefix
#      relative to itself (${pcfiledir}), not the configured one.
#
#   check_pkg_config.sh BUILD_DIR EXAMPLE_C SCRATCH_DIR CC PKG_CONFIG
set -euo pipefail

if [[ $# -ne 5 ]]; then
  echo "usage: $0 BUILD_DIR EXAMPLE_C SCRATCH_DIR CC PKG_CONFIG" >&2
  exit 2
fi
build_dir=$1 example=$2 scratch_dir=$3 cc=$4 pkg_config=$5

# Only the prefix under test may be found.
unset HALO_PLUGIN_FILES HALO_ADD_PLUGIN_FILES HALO_PLUGINS_SELECT \
      HALO_PLUGINS_DISABLE PKG_CONFIG_LIBDIR PKG_CONFIG_SYSROOT_DIR
rm -rf "$scratch_dir"
mkdir -p "$scratch_dir"

echo "== 1. cmake --install $build_dir --prefix $scratch_dir/prefix"
cmake --install "$build_dir" --prefix "$scratch_dir/prefix" >"$scratch_dir/install.log" ||
  { cat "$scratch_dir/install.log"; exit 1; }

# compile_and_run PREFIX: builds the example with pkg-config's flags for the
# halo.pc under PREFIX and runs it.
compile_and_run() {
  local prefix=$1
  local pc_file
  pc_file=$(find "$prefix" -name halo.pc -path '*/pkgconfig/*' -print -quit)
  [[ -n $pc_file ]] || { echo "the install under $prefix has no halo.pc" >&2; exit 1; }
  export PKG_CONFIG_PATH
  PKG_CONFIG_PATH=$(dirname "$pc_file")
  local said
  said=$("$pkg_config" --variable=prefix halo)
  if [[ $(realpath "$said") != $(realpath "$prefix") ]]; then
    echo "pkg-config names the prefix $said; the install is at $prefix" >&2
    exit 1
  fi
  local flags libdir
  flags=$("$pkg_config" --cflags --libs halo)
  libdir=$("$pkg_config" --variable=libdir halo)
  echo "pkg-config --cflags --libs halo: $flags"
  # shellcheck disable=SC2086  # the flags are words
  "$cc" -o "$scratch_dir/demo" "$example" $flags -Wl,-rpath,"$libdir"
  "$scratch_dir/demo" | tee "$scratch_dir/demo.log"
  grep -q '^halo-demo: OK' "$scratch_dir/demo.log" ||
    { echo "the example did not run against $prefix" >&2; exit 1; }
}

echo "== 2. pkg-config against $scratch_dir/prefix"
compile_and_run "$scratch_dir/prefix"

echo "== 3. the same prefix moved to $scratch_dir/moved"
mv "$scratch_dir/prefix" "$scratch_dir/moved"
compile_and_run "$scratch_dir/moved"
echo "halo.pc names the prefix it lies in, before and after a move"
