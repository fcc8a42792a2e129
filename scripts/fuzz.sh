#!/usr/bin/env bash
# Builds the libFuzzer harnesses (tests/fuzz/README.md) with clang in their
# own build folder, then fuzzes HARNESS (default: every one) for SECONDS
# each (default 60). What a harness finds is kept in
# BUILD_DIR/tests/fuzz/HARNESS/corpus for the next run; a crash's input is
# saved in BUILD_DIR/tests/fuzz/HARNESS/artifacts.
#   scripts/fuzz.sh [HARNESS|all] [SECONDS]
#   scripts/fuzz.sh --build-only
# HALO_FUZZ_BUILD_DIR names the build folder (default: build-fuzz).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${HALO_FUZZ_BUILD_DIR:-build-fuzz}
harness=${1:-all}
seconds=${2:-60}

cmake -S . -B "$build_dir" -G Ninja \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DHALO_BUILD_FUZZERS=ON -DHALO_BUILD_BENCHMARKS=OFF \
  -DHALO_BUILD_EXAMPLES=OFF -DHALO_BUILD_TOOLS=OFF >/dev/null
jobs=$(nproc 2>/dev/null || echo 2)
cmake --build "$build_dir" --target halo_fuzzers -j "$jobs"
[ "$harness" = "--build-only" ] && exit 0

found=0 crashed=()
# One line per harness: name, binary, folder, input folders (tab-separated).
while IFS=$'\t' read -r -a fields; do
  name=${fields[0]} binary=${fields[1]} folder=${fields[2]}
  [ "$harness" = all ] || [ "$harness" = "$name" ] || continue
  found=1
  mkdir -p "$folder/corpus" "$folder/artifacts"
  echo "== fuzzing $name for $seconds s"
  if ! "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$folder/artifacts/" \
      "$folder/corpus" "${fields[@]:3}"; then
    crashed+=("$name")
  fi
done <"$build_dir/tests/fuzz/harnesses.txt"

if [ "$found" = 0 ]; then
  echo "no harness named '$harness'; the harnesses:" >&2
  cut -f1 "$build_dir/tests/fuzz/harnesses.txt" >&2
  exit 2
fi
if [ ${#crashed[@]} -gt 0 ]; then
  echo "crashed: ${crashed[*]}; inputs in $build_dir/tests/fuzz/*/artifacts" >&2
  exit 1
fi
echo "no crash"
