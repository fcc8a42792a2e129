#!/usr/bin/env bash
# Certifies a plugin built with AddressSanitizer on a halo-cts built without
# it, as cts/README.md ("Sanitizers") says to:
#
#   1. without the runtime preloaded the plugin cannot load: the run fails
#      with ASan's "runtime does not come first" message;
#   2. with LD_PRELOAD=$(cc -print-file-name=libasan.so),
#      ASAN_OPTIONS=intercept_tls_get_addr=0 and HALO_DISABLE_UNLOAD=1 a part
#      of the suite runs and passes.
#
#   check_asan_plugin_preload.sh HALO_CTS PLUGIN CC SCRATCH_DIR
set -euo pipefail

if [[ $# -ne 4 ]]; then
  echo "usage: $0 HALO_CTS PLUGIN CC SCRATCH_DIR" >&2
  exit 2
fi
halo_cts=$1 plugin=$2 cc=$3 scratch_dir=$4
rm -rf "$scratch_dir"
mkdir -p "$scratch_dir"
# The recipe's own settings only.
unset LD_PRELOAD ASAN_OPTIONS
# A part of the suite that loads the plugin, creates its device and runs
# its queue: enough to show the recipe works, in about a second.
filters=(--filter 'driver.*' --filter 'submission.signal.*')

echo "== 1. $halo_cts --plugin $plugin, no preload"
if "$halo_cts" --plugin "$plugin" "${filters[@]}" >"$scratch_dir/bare.log" 2>&1; then
  cat "$scratch_dir/bare.log"
  echo "the plugin loaded without the sanitizer runtime: is it built with ASan?" >&2
  exit 1
fi
if ! grep -q 'ASan runtime does not come first' "$scratch_dir/bare.log"; then
  cat "$scratch_dir/bare.log"
  echo "the run failed, but not for want of the ASan runtime" >&2
  exit 1
fi
echo "fails as documented: $(grep -m1 'ASan runtime' "$scratch_dir/bare.log")"

runtime=$("$cc" -print-file-name=libasan.so)
[[ -f $runtime ]] || { echo "$cc has no libasan.so ($runtime)" >&2; exit 1; }
echo "== 2. LD_PRELOAD=$runtime $halo_cts --plugin $plugin"
LD_PRELOAD=$runtime ASAN_OPTIONS=intercept_tls_get_addr=0 HALO_DISABLE_UNLOAD=1 \
  "$halo_cts" --plugin "$plugin" "${filters[@]}" --jobs 2 --timeout 120 |
  tee "$scratch_dir/preload.log"
last_line=$(tail -n 1 "$scratch_dir/preload.log")
if ! [[ $last_line =~ ^[1-9][0-9]*\ passed,\ 0\ failed,\ [0-9]+\ skipped$ ]]; then
  echo "the preloaded run did not pass: $last_line" >&2
  exit 1
fi
echo "the ASan-built plugin passes with the runtime preloaded: $last_line"
