#!/usr/bin/env bash
# Checks that halo-cts leaves reports whatever ends the run: a runner killed
# midway leaves valid JSON lines and a valid JUnit file of the cases that ran
# (and takes its hung worker with it), a plugin that does not load is a
# failing case "plugin.load" in both, a filter that matches no case fails
# the run, and output that is not UTF-8 (or is cut inside a character)
# still makes well-formed XML. Also checks the JSON lines' schema: every
# field cts/report_schema.md documents, and a 64-bit seed that survives a
# JSON reader exactly.
#
#   check_cts_reports.sh HALO_CTS HANG_PLUGIN SCRATCH_DIR SCHEMA_DOC EXIT_PLUGIN
# HANG_PLUGIN is the template variant whose every poll blocks forever, so
# that semaphore.wait.after_signal hangs while other cases pass.
# EXIT_PLUGIN prints $HALO_TEST_PLUGIN_EXIT_TEXT and exits 0 when a device
# is destroyed (tests/loader/plugins/test_plugin.c).
set -u
cts=$1 hang=$2 scratch=$3 schema_doc=$4 exit_plugin=$5
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
import json, sys, xml.dom.minidom, xml.etree.ElementTree as ET
ok = True
def expect(cond, text):
    global ok
    print(("ok: " if cond else "FAILED: ") + text)
    ok &= bool(cond)
try:
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    expect(data.endswith(b"\n"), "the killed run's JSON file ends with a whole line")
    rows = [json.loads(line) for line in data.decode("utf-8").splitlines()]
except (OSError, ValueError) as e:
    rows = None
    expect(False, f"the JSON lines of a killed run parse: {e}")
if rows is not None:
    expect([r["record"] for r in rows] == ["run", "case"],
           f"a run record, then one case record, and no end record: {rows}")
    expect([(r.get("case"), r.get("status")) for r in rows[1:]] ==
           [("driver.capabilities.consistent", "PASS")],
           f"the killed run's JSON lines hold the finished case: {rows}")
try:
    xml.dom.minidom.parse(sys.argv[2])  # Well-formed, by a second parser.
    suite = ET.parse(sys.argv[2]).getroot().find("testsuite")
    expect(suite is not None and suite.get("tests") == "1",
           "the killed run's JUnit file parses and holds the finished case")
except (OSError, ET.ParseError, xml.parsers.expat.ExpatError) as e:
    expect(False, f"the JUnit file of a killed run parses: {e}")
sys.exit(0 if ok else 1)
PY
[[ $? -eq 0 ]] || failures=$((failures + 1))
# A worker must not outlive its runner. If it does, it would hang until
# --timeout: end it here after a generous bound, and fail.
if [[ -n $worker ]]; then
  timeout 60 tail -s 0.1 --pid="$worker" -f /dev/null
  ended=$?
  [[ $ended -eq 0 ]] || kill -KILL -- "-$worker" "$worker" 2>/dev/null
  check "the hung worker ($worker) dies with its runner" $ended
else
  check "the hung case's worker was running when the runner was killed" 1
fi

# 1b. A runner killed while it is busy: a run of short cases, killed as soon
# as its third case is reported, at whatever it is doing then (writing a
# report, starting a worker). Both files must still be valid, the JUnit
# file at most one case behind the JSON lines (each case is written to the
# JSON lines first).
python3 - "$cts" "$scratch" <<'PY'
import json, signal, subprocess, sys, xml.dom.minidom
cts, d = sys.argv[1:3]
run = subprocess.Popen(
    [cts, "--plugin", "cpu", "--jobs", "2", "--filter", "semaphore.create.*",
     "--filter", "semaphore.query.*", "--filter", "semaphore.signal.*",
     "--json", f"{d}/busy.jsonl", "--junit", f"{d}/busy.xml"],
    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
seen = 0
for line in run.stdout:
    seen += line.startswith(b"PASS ")
    if seen == 3:
        run.send_signal(signal.SIGKILL)
        break
run.wait()
ok = True
def expect(cond, text):
    global ok
    print(("ok: " if cond else "FAILED: ") + text)
    ok &= bool(cond)
try:
    rows = [json.loads(line) for line in open(f"{d}/busy.jsonl")]
    cases = sum(r["record"] == "case" for r in rows)
    expect(rows[0]["record"] == "run" and cases >= 3,
           f"the busy run's JSON lines parse: a run record and {cases} cases")
    tests = int(xml.dom.minidom.parse(f"{d}/busy.xml").documentElement.getAttribute("tests"))
    expect(tests in (cases - 1, cases),
           f"the busy run's JUnit file is well-formed with {tests} of the {cases} cases")
except Exception as e:
    expect(False, f"the reports of a busy run killed midway read back: {e!r}")
sys.exit(0 if ok else 1)
PY
[[ $? -eq 0 ]] || failures=$((failures + 1))

# 2. A plugin that does not load is a failing case in both reports.
"$cts" --plugin "$scratch/no/such.so" --junit "$scratch/load.xml" \
  --json "$scratch/load.jsonl" >"$scratch/load.log" 2>&1
[[ $? -ne 0 ]] && tail -n 1 "$scratch/load.log" | grep -Eq "$counts_line"
check "a plugin that does not load fails the run, with the counts line" $?
python3 - "$scratch/load.jsonl" "$scratch/load.xml" <<'PY'
import json, sys, xml.etree.ElementTree as ET
rows = [json.loads(line) for line in open(sys.argv[1])]
rows = [r for r in rows if r["record"] == "case"]
ok = (len(rows) == 1 and rows[0]["case"] == "plugin.load" and
      rows[0]["status"] == "FAIL" and "does not exist" in rows[0]["reason"])
print(("ok: " if ok else "FAILED: ") + f"the JSON lines hold a failing plugin.load with the reason: {rows}")
failure = ET.parse(sys.argv[2]).getroot().find("testsuite/testcase[@name='plugin.load']/failure")
junit_ok = failure is not None and "does not exist" in failure.get("message")
print(("ok: " if junit_ok else "FAILED: ") + "the JUnit file holds the failing plugin.load")
sys.exit(0 if ok and junit_ok else 1)
PY
[[ $? -eq 0 ]] || failures=$((failures + 1))

# 3. A filter that matches no case fails the run and names the filters, on
# the terminal and as a failing case "run.filter" in both reports.
"$cts" --plugin cpu --filter 'no.such.case.*' --filter 'nor.this' \
  --json "$scratch/filter.jsonl" --junit "$scratch/filter.xml" >"$scratch/filter.log" 2>&1
[[ $? -ne 0 ]] && grep -Fq "no case matches --filter 'no.such.case.*' --filter nor.this" \
  "$scratch/filter.log" && tail -n 1 "$scratch/filter.log" | grep -Eq "$counts_line"
check "a filter that matches no case fails the run and names the filters" $?
python3 - "$scratch/filter.jsonl" "$scratch/filter.xml" <<'PY'
import json, sys, xml.etree.ElementTree as ET
rows = [json.loads(line) for line in open(sys.argv[1])]
cases = [(r["case"], r["status"]) for r in rows if r["record"] == "case"]
ends = [r for r in rows if r["record"] == "end"]
ok = cases == [("run.filter", "FAIL")] and len(ends) == 1 and ends[0]["exit_code"] == 1
print(("ok: " if ok else "FAILED: ") + f"the JSON lines hold a failing run.filter and exit code 1: {rows}")
failure = ET.parse(sys.argv[2]).getroot().find("testsuite/testcase[@name='run.filter']/failure")
junit_ok = failure is not None and "no case matches" in failure.get("message")
print(("ok: " if junit_ok else "FAILED: ") + "the JUnit file holds the failing run.filter")
sys.exit(0 if ok and junit_ok else 1)
PY
[[ $? -eq 0 ]] || failures=$((failures + 1))

# 4. The schema: a run record, case records and an end record, every field
# documented, and a seed above 2^53 that reads back as exactly the same
# decimal string.
seed=18446744073709551557
"$cts" --plugin cpu --filter semaphore.query.stable --case-seed "$seed" \
  --json "$scratch/schema.jsonl" >/dev/null 2>&1
check "a cpu run with a 64-bit --case-seed passes" $?
python3 - "$scratch/schema.jsonl" "$seed" "$schema_doc" <<'PY'
import json, re, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
seed, doc = sys.argv[2], open(sys.argv[3]).read()
ok = True
def expect(cond, text):
    global ok
    print(("ok: " if cond else "FAILED: ") + text)
    ok &= bool(cond)
expect([r.get("record") for r in rows] == ["run", "case", "end"],
       f"a run record, one case record, an end record: {rows}")
expect(all(r.get("schema") == "halo-cts/2" for r in rows), "each line names its schema, halo-cts/2")
expect("`halo-cts/2`" in doc, "the schema document names the version")
run, r, end = (rows + [{}, {}, {}])[:3]
expect(r.get("seed") == seed, f"the seed reads back as the exact string {seed}: {r.get('seed')!r}")
expect(f"--case-seed {seed} " in r.get("command", ""), "the command replays that seed")
for record in (run, r):
    expect(re.fullmatch(r"[0-9]+\.[0-9]+", record.get("halo_abi", "")), "halo_abi is MAJOR.MINOR")
    expect(re.fullmatch(r"[0-9]+\.[0-9]+\.[0-9]+", record.get("halo_version", "")),
           f"halo_version is MAJOR.MINOR.PATCH: {record.get('halo_version')}")
    expect(record.get("host"), "the record names the host")
stamp = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"
for record, key in ((run, "started_at"), (r, "started_at"), (r, "finished_at"), (end, "finished_at")):
    expect(re.fullmatch(stamp, record.get(key, "")), f"{key} is RFC 3339 in UTC: {record.get(key)}")
expect(r.get("plugin") == "cpu" and r.get("device") and r.get("peer") == "",
       "the case names the plugin, the device and the (default) peer")
expect(r.get("attempts") == 1 and r.get("flaky") is False and r.get("failed_attempts") == [],
       "one attempt, not flaky")
expect(run.get("plugins") == ["cpu"] and run.get("seed") == "0" and run.get("shard") == "",
       "the run record says what was asked for")
expect((end.get("passed"), end.get("failed"), end.get("exit_code")) == (1, 0, 0),
       f"the end record holds the counts and the exit code: {end}")
# Each record kind's fields are rows of its table in the document.
for kind, record in (("run", run), ("case", r), ("end", end)):
    section = re.search(rf"^### `{kind}` records?$(.*?)(?=^##)", doc, re.S | re.M)
    table = section.group(1) if section else ""
    undocumented = [k for k in record if f"| `{k}` |" not in table]
    expect(record and not undocumented,
           f"the schema documents every field of a {kind} record (missing: {undocumented})")
sys.exit(0 if ok else 1)
PY
[[ $? -eq 0 ]] || failures=$((failures + 1))

# 5. Output that is not UTF-8, and a cut of the output inside a character:
# the worker prints a run of euro signs (3 bytes each) followed by bytes
# that are no character and a control character, and ends without a
# verdict (a CRASH whose report quotes the end of its output). The text is
# long enough for the JUnit file's 8,000-byte cut to land inside a euro
# sign. A second run's verdict line is not JSON, so that its reason quotes
# the line's first 200 bytes, again cut inside a euro sign.
python3 - "$cts" "$exit_plugin" "$scratch" <<'PY'
import json, os, subprocess, sys, xml.dom.minidom, xml.etree.ElementTree as ET
cts, plugin, scratch = sys.argv[1:4]
ok = True
def expect(cond, text):
    global ok
    print(("ok: " if cond else "FAILED: ") + text)
    ok &= bool(cond)
def run(name, text):
    env = dict(os.environb)
    env[b"HALO_TEST_PLUGIN_EXIT_TEXT"] = text
    status = subprocess.run(
        [cts, "--plugin", plugin, "--filter", "driver.capabilities.consistent",
         "--json", f"{scratch}/{name}.jsonl", "--junit", f"{scratch}/{name}.xml"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    expect(status == 1, f"{name}: the run fails (exit code {status})")
    rows = [json.loads(line) for line in open(f"{scratch}/{name}.jsonl", encoding="utf-8")]
    cases = [r for r in rows if r["record"] == "case"]
    expect(len(cases) == 1, f"{name}: the JSON lines parse and hold the case")
    try:
        xml.dom.minidom.parse(f"{scratch}/{name}.xml")
        root = ET.parse(f"{scratch}/{name}.xml").getroot()
        expect(True, f"{name}: the JUnit file is well-formed XML")
        return cases[0] if cases else {}, root.find("testsuite/testcase/failure")
    except Exception as e:
        expect(False, f"{name}: the JUnit file is well-formed XML: {e}")
        return {}, None

euro = "\u20ac".encode()
bad = b"\xff\xc3(\x01 end-of-output"
text = b"x" + euro * 2700 + bad
# The worker prints the text and a line feed last; the JUnit file quotes the
# last 8,000 bytes of that.
printed = text + b"\n"
cut = len(printed) - 8000
expect(printed[cut] & 0xC0 == 0x80, "(the test's own check: the cut lands inside a euro sign)")
row, failure = run("not-utf8", text)
expect(row.get("status") == "CRASH", f"not-utf8: the case is a CRASH: {row.get('status')}")
quoted = failure.text if failure is not None else ""
expect(quoted.startswith("\u2026\u20ac\u20ac"),
       f"not-utf8: the quoted output starts at a whole character: {quoted[:8]!r}")
expect("\u20ac\ufffd\ufffd(\ufffd end-of-output" in quoted,
       "not-utf8: each invalid byte and the control character read as U+FFFD")
expect(quoted.count("\ufffd") == 3, f"not-utf8: only those: {quoted.count(chr(0xfffd))} U+FFFD")

row, failure = run("verdict-cut", b"@@halo-cts-result " + euro * 100)
reason = row.get("reason", "")
expect(row.get("status") == "FAIL" and reason.startswith("malformed verdict: "),
       f"verdict-cut: a malformed verdict: {reason[:60]!r}")
expect(reason.endswith("\u20ac" * 66), "verdict-cut: the quoted line ends with whole characters")
expect("\ufffd" not in reason, "verdict-cut: the cut made no U+FFFD")
sys.exit(0 if ok else 1)
PY
[[ $? -eq 0 ]] || failures=$((failures + 1))

if [[ $failures -ne 0 ]]; then echo "$failures report check(s) failed"; exit 1; fi
echo "every report check passed"
