#!/usr/bin/env bash
# Checks which cases a halo-cts run runs, and how often: --shard I/N splits
# the selected cases so that the shards together run each exactly once and
# refuses what is not a shard; --rerun-failures runs a failing case again,
# reports one that then passes as flaky without failing the run, and keeps
# every failed attempt of one that never passes; the progress line appears
# on a terminal and nowhere else.
#
#   check_cts_scheduling.sh HALO_CTS FAILS_ONCE_PLUGIN BROKEN_PLUGIN SCRATCH_DIR
# FAILS_ONCE_PLUGIN fails its first device creation, the one that creates
# $HALO_TEST_PLUGIN_ONCE_FILE, and no later one (tests/loader/plugins/
# test_plugin.c); BROKEN_PLUGIN is the variant whose signal accepts lower
# values, so that semaphore.signal.lower_value fails every time.
set -u
cts=$1 fails_once=$2 broken=$3 scratch=$4
rm -rf "$scratch"
mkdir -p "$scratch"
failures=0
check() {  # check DESCRIPTION STATUS
  if [[ $2 -eq 0 ]]; then echo "ok: $1"; else echo "FAILED: $1"; failures=$((failures + 1)); fi
}
counts_line='^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$'
one_case=driver.capabilities.consistent

# 1. Values that are not a shard are refused, each saying why (exit 2).
for bad in 3/3 0/0 x 1 -1/2 1/2/3; do
  "$cts" --list --shard "$bad" >"$scratch/bad-shard.log" 2>&1
  [[ $? -eq 2 ]] && grep -Fq -- "--shard '$bad': " "$scratch/bad-shard.log"
  check "--shard $bad is refused with a reason" $?
done

# 2. The shards of --list, 1 to 4 of them, hold every case exactly once.
"$cts" --list | cut -d' ' -f1 | sort >"$scratch/all.txt"
for n in 1 2 3 4; do
  for ((i = 0; i < n; i++)); do
    "$cts" --list --shard "$i/$n" | cut -d' ' -f1
  done | sort >"$scratch/shards-$n.txt"
  cmp -s "$scratch/all.txt" "$scratch/shards-$n.txt"
  check "the $n shard(s) of --list hold each of the $(wc -l <"$scratch/all.txt") cases once" $?
done

# 3. Shards of a real run split its filtered cases alike, and say which
# shard they are; a shard left with no case passes.
filters=(--filter 'semaphore.query.*' --filter 'semaphore.create.*')
"$cts" --list "${filters[@]}" | cut -d' ' -f1 | sort >"$scratch/filtered.txt"
for i in 0 1; do
  "$cts" --plugin cpu "${filters[@]}" --shard "$i/2" --json "$scratch/shard-$i.jsonl" \
    >"$scratch/shard-$i.log" 2>&1
  check "shard $i/2 of a cpu run passes" $?
done
python3 - "$scratch" <<'PY'
import json, sys
d = sys.argv[1]
rows = [json.loads(line) for i in (0, 1) for line in open(f"{d}/shard-{i}.jsonl")]
ran = sorted(r["case"] for r in rows if r["record"] == "case")
expected = sorted(open(f"{d}/filtered.txt").read().split())
ok = ran == expected
print(("ok: " if ok else "FAILED: ") + f"the two shards ran each filtered case once: {ran}")
shards = [r["shard"] for r in rows if r["record"] == "run"]
shard_ok = shards == ["0/2", "1/2"]
print(("ok: " if shard_ok else "FAILED: ") + f"each run record names its shard: {shards}")
sys.exit(0 if ok and shard_ok else 1)
PY
[[ $? -eq 0 ]] || failures=$((failures + 1))
"$cts" --plugin cpu --filter semaphore.query.stable --shard 1/2 >"$scratch/empty-shard.log" 2>&1
[[ $? -eq 0 ]] && tail -n 1 "$scratch/empty-shard.log" | grep -q '^0 passed, 0 failed, 0 skipped$'
check "a shard that holds no case passes" $?

# 4. A case that fails its first run only: without reruns, a failure.
HALO_TEST_PLUGIN_ONCE_FILE="$scratch/once-a" "$cts" --plugin "$fails_once" \
  --filter "$one_case" >"$scratch/no-rerun.log" 2>&1
[[ $? -eq 1 ]]
check "without --rerun-failures the case that fails once fails the run" $?

# 5. With reruns it is flaky: it passes, does not fail the run, and the
# reports keep the failed attempt.
HALO_TEST_PLUGIN_ONCE_FILE="$scratch/once-b" "$cts" --plugin "$fails_once" \
  --filter "$one_case" --rerun-failures 2 \
  --json "$scratch/flaky.jsonl" --junit "$scratch/flaky.xml" >"$scratch/flaky.log" 2>&1
[[ $? -eq 0 ]] && tail -n 1 "$scratch/flaky.log" | grep -q '^1 passed, 0 failed, 0 skipped$' &&
  grep -q '^halo-cts: 1 flaky' "$scratch/flaky.log"
check "with --rerun-failures 2 it passes, and the run says it is flaky" $?

# 6. A case that always fails runs 1 + N times and fails.
"$cts" --plugin "$broken" --filter semaphore.signal.lower_value --rerun-failures 2 \
  --json "$scratch/always.jsonl" --junit "$scratch/always.xml" >"$scratch/always.log" 2>&1
[[ $? -eq 1 ]] && tail -n 1 "$scratch/always.log" | grep -Eq "$counts_line"
check "a case that always fails still fails the run after its reruns" $?

# 7. An expected failure (XFAIL) is not run again.
echo 'template_broken_* semaphore.signal.* known bug' >"$scratch/broken.expectations"
"$cts" --plugin "$broken" --filter semaphore.signal.lower_value --rerun-failures 2 \
  --expectations "$scratch/broken.expectations" --json "$scratch/xfail.jsonl" \
  >"$scratch/xfail.log" 2>&1
check "an expected failure with --rerun-failures passes the run" $?

python3 - "$scratch" <<'PY'
import json, sys, xml.etree.ElementTree as ET
d = sys.argv[1]
ok = True
def expect(cond, text):
    global ok
    print(("ok: " if cond else "FAILED: ") + text)
    ok &= bool(cond)
def case(name):
    rows = [json.loads(line) for line in open(f"{d}/{name}.jsonl")]
    cases = [r for r in rows if r["record"] == "case"]
    return cases[0] if len(cases) == 1 else {}
flaky = case("flaky")
expect(flaky.get("status") == "PASS" and flaky.get("flaky") is True and flaky.get("attempts") == 2,
       f"flaky: a PASS on attempt 2, marked flaky: {flaky}")
first = (flaky.get("failed_attempts") or [{}])[0]
expect(first.get("status") == "FAIL" and "the first device fails" in first.get("reason", "")
       and set(first) == {"status", "reason", "duration_s", "started_at"},
       f"flaky: the failed attempt keeps its status and reason: {first}")
testcase = ET.parse(f"{d}/flaky.xml").getroot().find("testsuite/testcase")
props = {p.get("name"): p.get("value") for p in testcase.iter("property")}
expect(props == {"attempts": "2", "flaky": "true"}, f"flaky: JUnit properties {props}")
expect(testcase.find("failure") is None and len(testcase.findall("flakyFailure")) == 1,
       "flaky: JUnit has no <failure> and one <flakyFailure>")
always = case("always")
expect(always.get("status") == "FAIL" and always.get("flaky") is False and
       always.get("attempts") == 3 and len(always.get("failed_attempts", [])) == 2,
       f"always: FAIL after 3 attempts, not flaky: {always.get('attempts')}")
testcase = ET.parse(f"{d}/always.xml").getroot().find("testsuite/testcase")
expect(testcase.find("failure") is not None and len(testcase.findall("rerunFailure")) == 2,
       "always: JUnit has the <failure> and two <rerunFailure>")
xfail = case("xfail")
expect(xfail.get("status") == "XFAIL" and xfail.get("attempts") == 1,
       f"xfail: an expected failure runs once: {xfail.get('status')} {xfail.get('attempts')}")
sys.exit(0 if ok else 1)
PY
[[ $? -eq 0 ]] || failures=$((failures + 1))

"$cts" --plugin cpu --filter "$one_case" --rerun-failures -1 >"$scratch/negative.log" 2>&1
status=$?
[[ $status -ne 0 && $status -ne 1 ]]
check "--rerun-failures -1 is refused" $?

# 8. The progress line: on a terminal (a pseudo-terminal as stderr) it
# counts up to the total and is erased at the end; a run whose output is
# not a terminal (this test's own) never gets it.
python3 - "$cts" <<'PY'
import os, re, subprocess, sys
cts = sys.argv[1]
command = [cts, "--plugin", "cpu", "--filter", "semaphore.query.*", "--filter", "semaphore.create.*"]
try:
    master, slave = os.openpty()
except OSError as e:
    # A machine without pseudo-terminals cannot show this; say so plainly.
    print(f"skipped: the progress line on a terminal (no pseudo-terminal: {e})")
    sys.exit(0)
run = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=slave)
os.close(slave)
stdout = run.stdout.read()
run.wait()
terminal = b""
while True:
    try:
        chunk = os.read(master, 65536)
    except OSError:  # EIO: the run ended and closed the terminal.
        break
    if not chunk:
        break
    terminal += chunk
os.close(master)
text = terminal.decode()
total = len(re.findall(rb"^PASS ", stdout, re.M))
ok = True
def expect(cond, what):
    global ok
    print(("ok: " if cond else "FAILED: ") + what)
    ok &= bool(cond)
expect(run.returncode == 0 and total > 1, f"the run passes ({total} cases)")
expect(f"[0/{total}] 0 failed, estimating the time left" in text, "it starts estimating")
expect(re.search(rf"\[1/{total}\] 0 failed, ~\d+ (s|min|h)\b", text), "it estimates the time left")
expect(f"[{total}/{total}] 0 failed, done" in text, "it counts to the total")
expect(text.endswith("\r"), "the line is erased at the end")
expect(b"\r" not in stdout, "stdout, not a terminal here, has no progress line")
plain = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
expect(b"\r" not in plain.stdout and b"estimating" not in plain.stdout,
       "a run logged to a pipe has no progress line")
sys.exit(0 if ok else 1)
PY
[[ $? -eq 0 ]] || failures=$((failures + 1))

if [[ $failures -ne 0 ]]; then echo "$failures scheduling check(s) failed"; exit 1; fi
echo "every scheduling check passed"
