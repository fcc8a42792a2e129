#!/usr/bin/env bash
# Checks that halo-cts leaves reports whatever ends the run: a runner killed
# midway leaves valid JSON lines and a valid JUnit file of the cases that ran
# (and takes its hung worker with it), a plugin that does not load is a
# failing case "plugin.load" in both, and a filter that matches no case fails
# the run. Also checks the JSON lines' schema: every field README.md
# documents, and a 64-bit seed that survives a JSON reader exactly.
#
#   check_cts_reports.sh HALO_CTS HANG_PLUGIN SCRATCH_DIR CTS_README
# HANG_PLUGIN is the template variant whose every poll blocks forever, so
# that semaphore.wait.after_signal hangs while other cases pass.
set -u
cts=$1 hang=$2 scratch=$3 readme=$4
rm -rf "$scratch"
mkdir -p "$scratch"
failures=0
check() {  # check DESCRIPTION STATUS
  if [[ $2 -eq 0 ]]; then echo "ok: $1"; else echo "FAILED: $1"; failures=$((failures + 1)); fi
}
counts_line='^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$'

# 1. A runner killed with SIGKILL once a case has finished. Both cases start
# at once (--jobs 2); the hung one would run for the whole --timeout. The
# runner writes a case's reports before its line on stdout, so that line
# means the JSON line is on disk.
mkfifo "$scratch/stdout"
"$cts" --plugin "$hang" --timeout 600 --jobs 2 \
  --filter driver.capabilities.consistent --filter semaphore.wait.after_signal \
  --json "$scratch/killed.jsonl" --junit "$scratch/killed.xml" \
  >"$scratch/stdout" 2>"$scratch/killed.stderr" &
runner=$!
exec {out}<"$scratch/stdout"
finished=1
first_case='^[A-Z]+ +[^ ]+ driver\.capabilities\.consistent '
while IFS= read -r -u "$out" line; do
  echo "  | $line"
  if [[ $line =~ $first_case ]]; then
    finished=0
    break
  fi
done
check "a case finished before the runner was killed" $finished
# The hung case's worker: the only child left once the first case reported.
worker=$(pgrep -P "$runner")
kill -KILL "$runner"
wait "$runner" 2>/dev/null
exec {out}<&-
python3 - "$scratch/killed.jsonl" "$scratch/killed.xml" <<'PY'
import json, sys, xml.etree.ElementTree as ET
ok = True
def expect(cond, text):
    global ok
    print(("ok: " if cond else "FAILED: ") + text)
    ok &= bool(cond)
try:
    rows = [json.loads(line) for line in open(sys.argv[1])]
except (OSError, ValueError) as e:
    rows = None
    expect(False, f"the JSON lines of a killed run parse: {e}")
if rows is not None:
    expect([(r["case"], r["status"]) for r in rows] ==
           [("driver.capabilities.consistent", "PASS")],
           f"the killed run's JSON lines hold the finished case: {rows}")
try:
    suite = ET.parse(sys.argv[2]).getroot().find("testsuite")
    expect(suite is not None and suite.get("tests") == "1",
           "the killed run's JUnit file parses and holds the finished case")
except (OSError, ET.ParseError) as e:
    expect(False, f"the JUnit file of a killed run parses: {e}")
sys.exit(0 if ok else 1)
PY
[[ $? -eq 0 ]] || failures=$((failures + 1))
# A worker must not outlive its runner. If it does, it would hang until
# --timeout: end it here after a generous bound, and fail.
if [[ -n $worker ]]; then
  timeout 60 tail --pid="$worker" -f /dev/null
  ended=$?
  [[ $ended -eq 0 ]] || kill -KILL -- "-$worker" "$worker" 2>/dev/null
  check "the hung worker ($worker) dies with its runner" $ended
else
  check "the hung case's worker was running when the runner was killed" 1
fi

# 2. A plugin that does not load is a failing case in both reports.
"$cts" --plugin "$scratch/no/such.so" --junit "$scratch/load.xml" \
  --json "$scratch/load.jsonl" >"$scratch/load.log" 2>&1
[[ $? -ne 0 ]] && tail -n 1 "$scratch/load.log" | grep -Eq "$counts_line"
check "a plugin that does not load fails the run, with the counts line" $?
python3 - "$scratch/load.jsonl" "$scratch/load.xml" <<'PY'
import json, sys, xml.etree.ElementTree as ET
rows = [json.loads(line) for line in open(sys.argv[1])]
ok = (len(rows) == 1 and rows[0]["case"] == "plugin.load" and
      rows[0]["status"] == "FAIL" and "does not exist" in rows[0]["reason"])
print(("ok: " if ok else "FAILED: ") + f"the JSON lines hold a failing plugin.load with the reason: {rows}")
failure = ET.parse(sys.argv[2]).getroot().find("testsuite/testcase[@name='plugin.load']/failure")
junit_ok = failure is not None and "does not exist" in failure.get("message")
print(("ok: " if junit_ok else "FAILED: ") + "the JUnit file holds the failing plugin.load")
sys.exit(0 if ok and junit_ok else 1)
PY
[[ $? -eq 0 ]] || failures=$((failures + 1))

# 3. A filter that matches no case fails the run and names the filters.
"$cts" --plugin cpu --filter 'no.such.case.*' --filter 'nor.this' >"$scratch/filter.log" 2>&1
[[ $? -ne 0 ]] && grep -Fq "no case matches --filter 'no.such.case.*' --filter nor.this" \
  "$scratch/filter.log" && tail -n 1 "$scratch/filter.log" | grep -Eq "$counts_line"
check "a filter that matches no case fails the run and names the filters" $?

# 4. The schema: every documented field, and a seed above 2^53 that reads
# back as exactly the same decimal string.
seed=18446744073709551557
"$cts" --plugin cpu --filter semaphore.query.stable --case-seed "$seed" \
  --json "$scratch/schema.jsonl" >/dev/null 2>&1
check "a cpu run with a 64-bit --case-seed passes" $?
python3 - "$scratch/schema.jsonl" "$seed" "$readme" <<'PY'
import json, re, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
seed, readme = sys.argv[2], open(sys.argv[3]).read()
ok = True
def expect(cond, text):
    global ok
    print(("ok: " if cond else "FAILED: ") + text)
    ok &= bool(cond)
expect(len(rows) == 1, f"one JSON line: {rows}")
r = rows[0] if rows else {}
expect(r.get("seed") == seed, f"the seed reads back as the exact string {seed}: {r.get('seed')!r}")
expect(f"--case-seed {seed} " in r.get("command", ""), "the command replays that seed")
expect(r.get("schema") == "halo-cts/1", "the line names its schema, halo-cts/1")
expect(re.fullmatch(r"[0-9]+\.[0-9]+", r.get("halo_abi", "")), "halo_abi is MAJOR.MINOR")
expect(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", r.get("started_at", "")),
       f"started_at is RFC 3339 in UTC: {r.get('started_at')}")
expect(r.get("host"), "the line names the host")
expect(r.get("plugin") == "cpu" and r.get("device") and r.get("peer") == "",
       "the line names the plugin, the device and the (default) peer")
undocumented = [k for k in r if f"| `{k}` |" not in readme]
expect(r and not undocumented, f"README.md documents every field (missing: {undocumented})")
sys.exit(0 if ok else 1)
PY
[[ $? -eq 0 ]] || failures=$((failures + 1))

if [[ $failures -ne 0 ]]; then echo "$failures report check(s) failed"; exit 1; fi
echo "every report check passed"
