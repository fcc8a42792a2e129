#!/bin/sh
# Runs a harness over its inputs (every file once), then fuzzes for a few
# seconds from them: the ctest form of each harness.
#   run_fuzzer.sh HARNESS SECONDS WORK_DIR ARTIFACT_DIR INPUT_DIR...
# New inputs go to WORK_DIR, emptied first, and the seed is fixed, so every
# run starts from the same inputs the same way; a crash's input is kept in
# ARTIFACT_DIR.
set -eu
harness=$1 seconds=$2 work=$3 artifacts=$4
shift 4
rm -rf "$work"
mkdir -p "$work" "$artifacts"
exec "$harness" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -seed=1 \
  -print_final_stats=1 -artifact_prefix="$artifacts/" "$work" "$@"
