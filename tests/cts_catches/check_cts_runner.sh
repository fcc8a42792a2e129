#!/usr/bin/env bash
# Checks the halo-cts runner's own features, beyond catching broken plugins:
# expectations (an expected failure is not a failure; --verify-expectations
# fails a stale entry; an entry without a reason is refused), JUnit output
# that parses, --repeat/--seed that derive reproducible per-case seeds, the
# reproduce command (with the exact timeout), --list with filters and
# skips, an unknown plugin, no plugin at all, and verdicts the runner cannot
# trust.
#
#   check_cts_runner.sh HALO_CTS BROKEN_PLUGIN SCRATCH_DIR BAD_DEVICE_PLUGIN EXIT_PLUGIN
# BROKEN_PLUGIN is the variant whose signal accepts lower values;
# BAD_DEVICE_PLUGIN fails every device creation with a message that is not
# valid UTF-8; EXIT_PLUGIN prints $HALO_TEST_PLUGIN_EXIT_TEXT and exits 0
# when a device is destroyed (tests/loader/plugins/test_plugin.c).
set -u
cts=$1 broken=$2 scratch=$3 bad_device=$4 exit_plugin=$5
mkdir -p "$scratch"
failures=0
check() {  # check DESCRIPTION STATUS
  if [[ $2 -eq 0 ]]; then echo "ok: $1"; else echo "FAILED: $1"; failures=$((failures + 1)); fi
}
counts_line='^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$'

# 1. A known failure listed with its reason is an expected failure: exit 0.
cat >"$scratch/broken.expectations" <<'X'
# plugin glob                      case glob             reason
template_broken_signal_allows_*    semaphore.signal.*    known bug: accepts lower values
X
"$cts" --plugin "$broken" --filter 'semaphore.signal.*' --jobs 2 \
  --expectations "$scratch/broken.expectations" >"$scratch/xfail.log" 2>&1
check "expected failures do not fail the run" $?
grep -q '^XFAIL ' "$scratch/xfail.log"
check "expected failures are reported as XFAIL" $?
grep -q 'known bug: accepts lower values' "$scratch/xfail.log"
check "an XFAIL quotes the expectation's reason" $?
tail -n 1 "$scratch/xfail.log" | grep -Eq "$counts_line"
check "the last line is the counts" $?

# 2. --verify-expectations fails an expected failure that now passes.
echo 'cpu semaphore.query.* stale: this passes now' >"$scratch/stale.expectations"
"$cts" --plugin cpu --filter 'semaphore.query.*' --expectations "$scratch/stale.expectations" \
  >"$scratch/stale.log" 2>&1
check "without --verify-expectations a stale entry is tolerated" $?
"$cts" --plugin cpu --filter 'semaphore.query.*' --expectations "$scratch/stale.expectations" \
  --verify-expectations >"$scratch/verify.log" 2>&1
[[ $? -ne 0 ]] && grep -q '^XPASS ' "$scratch/verify.log"
check "--verify-expectations fails an expected failure that passed (XPASS)" $?

# 3. An entry without a reason is refused.
echo 'cpu semaphore.query.*' >"$scratch/bad.expectations"
"$cts" --plugin cpu --expectations "$scratch/bad.expectations" >"$scratch/bad.log" 2>&1
[[ $? -eq 2 ]] && grep -q 'REASON' "$scratch/bad.log"
check "an expectation without a reason is refused with exit 2" $?

# 4. JUnit, JSON lines, seeds and the reproduce command.
"$cts" --plugin cpu --filter 'semaphore.query.*' --repeat 2 --seed 7 \
  --junit "$scratch/a.xml" --json "$scratch/a.jsonl" >/dev/null 2>&1
check "a cpu run with --repeat 2 --seed 7 passes" $?
"$cts" --plugin cpu --filter 'semaphore.query.*' --repeat 2 --seed 7 \
  --json "$scratch/b.jsonl" >/dev/null 2>&1
"$cts" --plugin cpu --filter 'semaphore.query.*' --repeat 2 --seed 8 \
  --json "$scratch/c.jsonl" >/dev/null 2>&1
python3 - "$scratch" <<'PY'
import json, subprocess, sys, xml.etree.ElementTree as ET
d = sys.argv[1]
def rows(name):
    with open(f"{d}/{name}") as f:
        return [r for r in map(json.loads, f) if r["record"] == "case"]
a, b, c = rows("a.jsonl"), rows("b.jsonl"), rows("c.jsonl")
ok = True
def expect(cond, text):
    global ok
    print(("ok: " if cond else "FAILED: ") + text)
    ok &= cond
fields = {"plugin", "case", "status", "reason", "duration_s", "seed", "command"}
expect(all(fields <= set(r) for r in a), "every JSON line has plugin, case, status, reason, duration_s, seed, command")
cases = {r["case"] for r in a}
expect(len(a) == 2 * len(cases) and len(cases) > 0, "--repeat 2 runs every case twice")
seeds = lambda rs: sorted((r["case"], r["repetition"], r["seed"]) for r in rs)
expect(seeds(a) == seeds(b), "the same --seed gives the same per-case seeds")
expect(seeds(a) != seeds(c), "another --seed gives other per-case seeds")
expect(len({r["seed"] for r in a}) == len(a), "repetitions of a case get different seeds")
expect(all("--case-seed " + str(r["seed"]) in r["command"] for r in a), "each command reproduces its seed")
suite = ET.parse(f"{d}/a.xml").getroot().find("testsuite")
expect(suite is not None and int(suite.get("tests")) == len(a), "the JUnit file parses and counts every run")
sys.exit(0 if ok else 1)
PY
[[ $? -eq 0 ]] || failures=$((failures + 1))

# 5. --list honours filters.
listed=$("$cts" --list --filter 'semaphore.query.*' | wc -l)
total=$("$cts" --list | wc -l)
[[ $listed -ge 1 && $listed -lt $total ]]
check "--list --filter lists a subset ($listed of $total)" $?

# 5b. --skip leaves its cases out of what --filter selects, and a run it
# leaves with no case fails, naming it.
kept=$("$cts" --list --filter 'semaphore.query.*' --skip 'semaphore.query.stable' | wc -l)
"$cts" --list --filter 'semaphore.query.*' --skip 'semaphore.query.stable' |
  grep -q '^semaphore\.query\.stable '
[[ $? -ne 0 && $kept -eq $((listed - 1)) ]]
check "--skip leaves its case out of --list ($kept of $listed)" $?
"$cts" --plugin cpu --filter 'semaphore.query.stable' --skip 'semaphore.query.*' \
  >"$scratch/skip.log" 2>&1
[[ $? -ne 0 ]] && grep -Fq "no case matches --filter semaphore.query.stable --skip 'semaphore.query.*'" \
  "$scratch/skip.log"
check "a run --skip leaves with no case fails and names the skip" $?

# 6. An unknown plugin is an error with the counts line, not a silent pass.
"$cts" --plugin no_such_plugin >"$scratch/unknown.log" 2>&1
[[ $? -ne 0 ]] && tail -n 1 "$scratch/unknown.log" | grep -Eq "$counts_line"
check "an unknown plugin fails the run" $?

# 7. No plugin at all is a failure with a reason, not "0 passed": exit 1.
mkdir -p "$scratch/no-plugins"
HALO_PLUGIN_FILES="$scratch/no-plugins" "$cts" >"$scratch/none.log" 2>&1
[[ $? -eq 1 ]] && grep -q 'no plugin was loaded' "$scratch/none.log" &&
  tail -n 1 "$scratch/none.log" | grep -Eq '^0 passed, 1 failed, 0 skipped$'
check "a run that finds no plugin fails and says why" $?

# 8. The reproduce command repeats a fractional --timeout exactly.
"$cts" --plugin "$broken" --filter 'semaphore.signal.*' --timeout 2.5 \
  --json "$scratch/timeout.jsonl" >/dev/null 2>&1
python3 - "$scratch/timeout.jsonl" <<'PY'
import json, sys
rows = [r for r in map(json.loads, open(sys.argv[1])) if r["record"] == "case"]
ok = bool(rows) and all(r["command"].endswith("--timeout 2.5") for r in rows)
print(("ok: " if ok else "FAILED: ") + "every command says --timeout 2.5: " +
      (rows[0]["command"] if rows else "no rows"))
sys.exit(0 if ok else 1)
PY
[[ $? -eq 0 ]] || failures=$((failures + 1))

# 9. A verdict line that is not a verdict (here printed by the plugin, which
# then ends the worker with exit code 0) is a FAIL naming it; the runner
# goes on and ends with the counts.
one_case='driver.capabilities.consistent'
n=0
for text in '@@halo-cts-result [1,2]' '@@halo-cts-result {"status":' \
            '@@halo-cts-result {"status":"MAYBE","reason":"x"}' \
            '@@halo-cts-result {"status":"PASS","reason":7}'; do
  n=$((n + 1))
  HALO_TEST_PLUGIN_EXIT_TEXT="$text" "$cts" --plugin "$exit_plugin" --filter "$one_case" \
    --json "$scratch/malformed-$n.jsonl" >"$scratch/malformed-$n.log" 2>&1
  status=$?
  tail -n 1 "$scratch/malformed-$n.log" | grep -Eq "$counts_line" && [[ $status -eq 1 ]] &&
    python3 -c '
import json, sys
rows = [r for r in map(json.loads, open(sys.argv[1])) if r["record"] == "case"]
sys.exit(0 if len(rows) == 1 and rows[0]["status"] == "FAIL" and
         rows[0]["reason"].startswith("malformed verdict: ") else 1)' "$scratch/malformed-$n.jsonl"
  check "the verdict '$text' is reported as a malformed verdict" $?
done

# 10. A case failing with a plugin message that is not valid UTF-8 still
# reports its FAIL, with U+FFFD in place of the bad bytes.
"$cts" --plugin "$bad_device" --filter "$one_case" --json "$scratch/utf8.jsonl" \
  >"$scratch/utf8.log" 2>&1
python3 - "$scratch/utf8.jsonl" <<'PY'
import json, sys
rows = [r for r in map(json.loads, open(sys.argv[1])) if r["record"] == "case"]
ok = (len(rows) == 1 and rows[0]["status"] == "FAIL" and
      "device \ufffd" in rows[0]["reason"] and "is gone" in rows[0]["reason"])
print(("ok: " if ok else "FAILED: ") + "invalid UTF-8 in a case message is a FAIL with U+FFFD: " +
      (rows[0]["status"] + " " + rows[0]["reason"] if rows else "no rows"))
sys.exit(0 if ok else 1)
PY
[[ $? -eq 0 ]] || failures=$((failures + 1))

if [[ $failures -ne 0 ]]; then echo "$failures runner check(s) failed"; exit 1; fi
echo "every runner check passed"
