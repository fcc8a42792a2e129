#!/usr/bin/env bash
# Runs halo-cts against one deliberately broken plugin and checks that the
# CTS catches it.
#
#   check_cts_catches.sh HALO_CTS PLUGIN EXPECT TIMEOUT_S JSON GLOB...
#
# EXPECT is the outcome that at least one case must report: FAIL (a semantic
# break), CRASH (its reason must name the signal) or TIMEOUT (a hang); or
# ALL_FAIL: every case the globs select must report FAIL, each catching the
# bug on its own, and every glob must select a case (so that a misspelt
# case name cannot pass for a caught bug).
# Whatever else happens, halo-cts must exit non-zero and its last line must be
# "N passed, N failed, N skipped". Each GLOB becomes a --filter, so the run
# touches only the groups that matter and stays short.
set -u

if [[ $# -lt 6 ]]; then
  echo "usage: $0 HALO_CTS PLUGIN EXPECT TIMEOUT_S JSON GLOB..." >&2
  exit 2
fi
cts=$1 plugin=$2 expect=$3 timeout_s=$4 json=$5
shift 5
filters=()
for glob in "$@"; do filters+=(--filter "$glob"); done

failures=0
check() {  # check CONDITION_TEXT RESULT
  if [[ $2 -eq 0 ]]; then
    echo "ok: $1"
  else
    echo "FAILED: $1"
    failures=$((failures + 1))
  fi
}

rm -f "$json"
output_file=$(mktemp)
trap 'rm -f "$output_file"' EXIT
echo "+ $cts --plugin $plugin --timeout $timeout_s --jobs 2 --json $json ${filters[*]}"
"$cts" --plugin "$plugin" --timeout "$timeout_s" --jobs 2 --json "$json" \
  "${filters[@]}" >"$output_file" 2>&1
status=$?
cat "$output_file"
echo "--- checks (halo-cts exited $status) ---"

[[ $status -ne 0 ]]
check "halo-cts exits non-zero for a broken plugin" $?

last_line=$(tail -n 1 "$output_file")
[[ $last_line =~ ^[0-9]+\ passed,\ [0-9]+\ failed,\ [0-9]+\ skipped$ ]]
check "the last line is 'N passed, N failed, N skipped' (got: '$last_line')" $?

python3 - "$json" "$expect" "$@" <<'PY'
import fnmatch, json, re, sys
path, expect, globs = sys.argv[1], sys.argv[2], sys.argv[3:]
try:
    with open(path) as f:
        rows = [r for r in map(json.loads, f) if r["record"] == "case"]
except (OSError, ValueError) as e:
    print(f"FAILED: cannot read the JSON lines {path}: {e}")
    sys.exit(1)
counts = {}
for row in rows:
    counts[row["status"]] = counts.get(row["status"], 0) + 1
print(f"outcomes: {counts or 'no case ran (do the filters match any case?)'}")
if expect == "ALL_FAIL":
    missed = [r for r in rows if r["status"] != "FAIL"]
    for r in missed:
        print(f"  not caught: {r['status']} {r['case']}")
    unmatched = [g for g in globs
                 if not any(fnmatch.fnmatchcase(r["case"], g) for r in rows)]
    for glob in unmatched:
        print(f"  no case ran for the glob '{glob}'")
    if missed or unmatched or not rows:
        print(f"FAILED: {len(missed)} of {len(rows)} case(s) did not report FAIL, "
              f"{len(unmatched)} glob(s) selected no case")
        sys.exit(1)
    print(f"ok: all {len(rows)} case(s) reported FAIL")
    sys.exit(0)
hits = [r for r in rows if r["status"] == expect]
if expect == "CRASH":
    # A signal, or under a sanitizer its report of the fault.
    hits = [r for r in hits
            if re.search(r"signal [0-9]+|SEGV|runtime error", r["reason"])]
for r in hits:
    print(f"  caught: {r['status']} {r['case']}: {r['reason'][:200]}")
if not hits:
    what = "a CRASH naming the signal" if expect == "CRASH" else f"a {expect}"
    print(f"FAILED: no case reported {what}")
    sys.exit(1)
print(f"ok: {len(hits)} case(s) reported {expect}")
PY
[[ $? -eq 0 ]] || failures=$((failures + 1))

if [[ $failures -ne 0 ]]; then
  echo "the CTS did not catch $(basename "$plugin") as expected ($failures check(s) failed)"
  exit 1
fi
echo "the CTS caught $(basename "$plugin")"
