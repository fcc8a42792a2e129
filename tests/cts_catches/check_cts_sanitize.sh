#!/usr/bin/env bash
# Checks halo-cts --sanitize address: a plugin built with -fsanitize=address
# whose device query_info reads freed heap memory fails the case that calls
# it, with the report quoted in the reason, while a case that does not call
# it passes; the same plugin built without the sanitizer passes that case
# (the bug slips by). A runtime that is not there is refused.
#
#   check_cts_sanitize.sh HALO_CTS PLAIN_PLUGIN ASAN_PLUGIN SCRATCH_DIR
set -u
cts=$1 plain=$2 asan=$3 scratch=$4
rm -rf "$scratch"
mkdir -p "$scratch/no-plugins"
# Only the plugin under test is loaded.
export HALO_PLUGIN_FILES="$scratch/no-plugins"
hit=driver.device_info.complete
clean=driver.enumerate.has_devices
failures=0
check() {  # check DESCRIPTION STATUS
  if [[ $2 -eq 0 ]]; then echo "ok: $1"; else echo "FAILED: $1"; failures=$((failures + 1)); fi
}

"$cts" --plugin "$plain" --filter "$hit" >"$scratch/plain.log" 2>&1
[[ $? -eq 0 ]] && tail -n 1 "$scratch/plain.log" | grep -q '^1 passed, 0 failed, 0 skipped$'
check "without a sanitizer the use after free slips by: $hit passes" $?

"$cts" --sanitize address --plugin "$asan" --filter "$hit" --filter "$clean" \
  --json "$scratch/asan.jsonl" >"$scratch/asan.log" 2>&1
status=$?
cat "$scratch/asan.log"
[[ $status -eq 1 ]]
check "under --sanitize address the run fails" $?
python3 - "$scratch/asan.jsonl" "$hit" "$clean" <<'PY'
import json, sys
rows = {r["case"]: r for r in map(json.loads, open(sys.argv[1])) if r["record"] == "case"}
hit, clean = rows.get(sys.argv[2], {}), rows.get(sys.argv[3], {})
ok = True
def expect(cond, text):
    global ok
    print(("ok: " if cond else "FAILED: ") + text)
    ok &= bool(cond)
expect(hit.get("status") == "FAIL" and
       hit.get("reason", "").startswith("AddressSanitizer: heap-use-after-free"),
       f"the case that reads freed memory fails with the report: {hit.get('status')} {hit.get('reason', '')[:160]}")
expect("SUMMARY: AddressSanitizer: heap-use-after-free" in hit.get("reason", ""),
       "the reason quotes the report's summary")
expect("--sanitize address" in hit.get("command", ""), "its reproduce command runs under --sanitize")
expect(clean.get("status") == "PASS", f"a case that does not read it passes: {clean.get('status')} {clean.get('reason')}")
sys.exit(0 if ok else 1)
PY
[[ $? -eq 0 ]] || failures=$((failures + 1))

"$cts" --sanitize address --sanitizer-runtime "$scratch/no-such-runtime.so" --plugin "$plain" \
  --filter "$clean" >"$scratch/missing.log" 2>&1
[[ $? -eq 2 ]] && grep -q 'cannot find the AddressSanitizer runtime' "$scratch/missing.log"
check "a runtime that is not there is refused with exit code 2" $?

if [[ $failures -ne 0 ]]; then echo "$failures sanitize check(s) failed"; exit 1; fi
echo "every sanitize check passed"
