#!/usr/bin/env bash
# Measures two commits on this machine, in alternating rounds, so that a
# change's effect is not confused with a different machine or a noisy hour:
# builds BASE (in a git worktree) and the working tree in Release, runs the
# chosen benchmarks of each, base then working tree, ROUNDS times, and
# prints each halo-vs-native ratio before and after, with the ratio of the
# halo medians (after / before).
#
#   bench/compare_commits.sh BASE [ROUNDS]
#
# Environment: HALO_COMPARE_BENCHES (default "semaphore vulkan opencl work"),
# HALO_COMPARE_REPETITIONS (default 6), HALO_COMPARE_FILTER_<bench> (a
# --benchmark_filter for one binary, e.g. HALO_COMPARE_FILTER_work).
set -euo pipefail
cd "$(dirname "$0")/.."
base_rev=$1
rounds=${2:-2}
benches=${HALO_COMPARE_BENCHES:-semaphore vulkan opencl work}
repetitions=${HALO_COMPARE_REPETITIONS:-6}
scratch=$(mktemp -d)
trap 'git worktree remove --force "$scratch/base" >/dev/null 2>&1 || true; rm -rf "$scratch"' EXIT

git worktree add --detach "$scratch/base" "$base_rev" >/dev/null
for tree in "$scratch/base" .; do
  cmake -S "$tree" -B "$tree/build-compare" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DHALO_BUILD_TESTS=OFF -DHALO_BUILD_EXAMPLES=OFF -DHALO_BUILD_CTS=OFF >/dev/null
  cmake --build "$tree/build-compare" >/dev/null
done

mkdir -p "$scratch/results"
for ((round = 1; round <= rounds; ++round)); do
  for side in before after; do
    tree=.
    [[ $side == before ]] && tree=$scratch/base
    for bench in $benches; do
      binary=$tree/build-compare/bin/halo-bench-$bench
      [[ -x $binary ]] || continue
      filter_var=HALO_COMPARE_FILTER_$bench
      "$binary" --benchmark_filter="${!filter_var:-.}" \
        --benchmark_repetitions="$repetitions" --benchmark_min_time=0.2 \
        --benchmark_enable_random_interleaving=true \
        --benchmark_display_aggregates_only=true \
        --benchmark_out="$scratch/results/$side-$bench-$round.json" \
        --benchmark_out_format=json >/dev/null
    done
  done
done

python3 - "$scratch/results" <<'PY_SUMMARY'
import collections, glob, json, os, statistics, sys
medians = collections.defaultdict(lambda: collections.defaultdict(list))
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    side = os.path.basename(path).split("-")[0]
    for run in json.load(open(path))["benchmarks"]:
        if run.get("aggregate_name") == "median":
            medians[run["run_name"]][side].append(run["real_time"])
families = collections.defaultdict(dict)
for name, sides in medians.items():
    family, variant = name.split("/")[:2]
    families[family][variant] = sides
print("| benchmark | native baseline | before: halo / native | after: halo / native | after / before (halo) |")
print("|---|---|---:|---:|---:|")
for family, variants in sorted(families.items()):
    halo = variants.get("halo")
    if not halo or not halo.get("before") or not halo.get("after"):
        continue
    median = lambda values: statistics.median(values)
    for variant, native in sorted(variants.items()):
        # A baseline one side does not have (added or renamed since) has
        # nothing to compare.
        if variant == "halo" or not native.get("before") or not native.get("after"):
            continue
        before = median(halo["before"]) / median(native["before"])
        after = median(halo["after"]) / median(native["after"])
        change = median(halo["after"]) / median(halo["before"])
        print(f"| {family} | {variant} | {before:.2f}× | {after:.2f}× | {change:.2f} |")
PY_SUMMARY
