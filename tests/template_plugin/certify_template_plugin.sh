#!/usr/bin/env bash
# Certifies the template plugin the way a vendor would, outside halo's tree:
#
#   1. install the current halo build into a scratch prefix;
#   2. configure examples/template_plugin as a project of its own against
#      that prefix only (find_package(halo), halo::plugin_sdk), in a fresh
#      folder, and build it; it must export only halo_plugin_query;
#   3. run the installed halo-cts on the plugin it built; every case must
#      pass or skip with a reason;
#   4. run its interop cases with no other plugin installed: they must run
#      against the reference peer installed with halo-cts;
#   5. install it into the prefix with the two variables the template's
#      README names (HALO_INSTALL_PLUGIN_DIR, HALO_INSTALL_MANIFEST_DIR):
#      the prefix's halo-info must list it loaded, with its device.
#
#   certify_template_plugin.sh BUILD_DIR SOURCE_DIR SCRATCH_DIR
set -euo pipefail

if [[ $# -ne 3 ]]; then
  echo "usage: $0 BUILD_DIR SOURCE_DIR SCRATCH_DIR" >&2
  exit 2
fi
build_dir=$1 source_dir=$2 scratch_dir=$3
prefix=$scratch_dir/prefix
plugin_build=$scratch_dir/template_plugin-build

rm -rf "$scratch_dir"
mkdir -p "$scratch_dir"

echo "== 1. cmake --install $build_dir --prefix $prefix"
cmake --install "$build_dir" --prefix "$prefix" >"$scratch_dir/install.log" ||
  { cat "$scratch_dir/install.log"; exit 1; }
# The template builds on the plugin SDK's C interface (halo::plugin_sdk).
for needed in bin/halo-cts include/halo/plugin.h lib/cmake/halo/haloConfig.cmake \
              lib/cmake/halo/HaloPlugin.cmake include/halo/sdk/c/plugin_query.h \
              include/halo/sdk/c/semaphore.h include/halo/sdk/c/queue.h; do
  [[ -e $prefix/$needed ]] || { echo "the install lacks $needed" >&2; exit 1; }
done
libdir=$(dirname "$(find "$prefix" -name 'libhalo.so.*' -print -quit)")
[[ -n $libdir && $libdir != . ]] || { echo "the install lacks libhalo" >&2; exit 1; }

echo "== 2. configure and build $source_dir/examples/template_plugin against $prefix"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
# The install variables as examples/template_plugin/README.md gives them:
# `cmake --install` (step 5) puts the plugin where the prefix's libhalo
# looks.
cmake -S "$source_dir/examples/template_plugin" -B "$plugin_build" "${generator[@]}" \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_INSTALL_PREFIX="$prefix" -DHALO_INSTALL_PLUGIN_DIR=lib/halo \
  -DHALO_INSTALL_MANIFEST_DIR=share/halo/plugins.d
cmake --build "$plugin_build" -j 2
plugin=$plugin_build/libhalo_plugin_template.so
[[ -f $plugin ]] || { echo "the build made no $plugin" >&2; exit 1; }
exports=$(nm -D --defined-only "$plugin" | awk '{print $3}')
if [[ $exports != halo_plugin_query ]]; then
  echo "the plugin must export only halo_plugin_query; it exports:" $exports >&2
  exit 1
fi

echo "== 3. $prefix/bin/halo-cts --plugin $plugin --jobs 2"
# The installed halo-cts finds its prefix's libhalo through its RPATH
# ($ORIGIN/../lib): no LD_LIBRARY_PATH, exactly as a vendor would run it.
"$prefix/bin/halo-cts" --plugin "$plugin" --jobs 2 --timeout 120 \
  --json "$scratch_dir/cts-template.jsonl" | tee "$scratch_dir/cts.log"
last_line=$(tail -n 1 "$scratch_dir/cts.log")
if ! [[ $last_line =~ ^[0-9]+\ passed,\ 0\ failed,\ [0-9]+\ skipped$ ]]; then
  echo "certification failed: $last_line" >&2
  exit 1
fi

echo "== 4. $prefix/bin/halo-cts --plugin $plugin --filter 'interop.*', no other plugin"
# Alone, the interop cases pair with the reference peer installed with
# halo-cts, and run rather than skip; only interop.external.*, which needs
# buffers on both sides (the peer has none), may skip.
mkdir -p "$scratch_dir/no-plugins"
HALO_PLUGIN_FILES="$scratch_dir/no-plugins" "$prefix/bin/halo-cts" --plugin "$plugin" \
  --filter 'interop.*' --jobs 2 --timeout 120 | tee "$scratch_dir/cts-alone.log"
alone_line=$(tail -n 1 "$scratch_dir/cts-alone.log")
if ! [[ $alone_line =~ ^[1-9][0-9]*\ passed,\ 0\ failed,\ [0-9]+\ skipped$ ]] ||
   grep '^SKIP' "$scratch_dir/cts-alone.log" | grep -qv ' interop\.external\.' ||
   ! grep -q 'pair with the reference peer' "$scratch_dir/cts-alone.log"; then
  echo "the interop cases did not run against the installed reference peer: $alone_line" >&2
  exit 1
fi

echo "== 5. cmake --install $plugin_build, then $prefix/bin/halo-info"
cmake --install "$plugin_build" >"$scratch_dir/plugin-install.log" ||
  { cat "$scratch_dir/plugin-install.log"; exit 1; }
for installed in lib/halo/libhalo_plugin_template.so share/halo/plugins.d/template.json; do
  [[ -f $prefix/$installed ]] || { echo "the plugin's install lacks $installed" >&2; exit 1; }
done
# Found by the default folders alone (no HALO_PLUGIN_FILES); the selection
# keeps the other installed plugins out of the way.
env -u HALO_PLUGIN_FILES -u HALO_ADD_PLUGIN_FILES -u HALO_PLUGINS_DISABLE \
  HALO_PLUGINS_SELECT=template "$prefix/bin/halo-info" | tee "$scratch_dir/halo-info.log"
for expected in '^  template: loaded$' \
                "^    manifest: $(realpath "$prefix")/share/halo/plugins.d/template.json\$" \
                '^      halo-cts: --plugin template --device 0$'; do
  grep -q "$expected" "$scratch_dir/halo-info.log" ||
    { echo "halo-info from $prefix does not list the installed plugin ($expected)" >&2; exit 1; }
done
echo "the template plugin, built outside the tree, is certified: $last_line"
