#!/usr/bin/env bash
# Checks what certifying one plugin alone, as a vendor does, certifies: with
# no other plugin installed the interop.* cases run (not skip) against the
# reference peer that ships with halo-cts, and the reports name it; the
# manifest beside the library is found and passes the manifest.* cases;
# manifests declaring ABI 2.0, naming another plugin or another library
# each fail them; a library without a manifest is certified bare, saying so.
#
#   check_cts_certify_alone.sh HALO_CTS PLUGIN SCRATCH_DIR
# PLUGIN is the template plugin (examples/template_plugin), its manifest
# template.json beside it.
set -u
cts=$1 plugin=$2 scratch=$3
rm -rf "$scratch"
mkdir -p "$scratch/no-plugins" "$scratch/bare"
# No other plugin: the loader's discovery finds nothing but what is named.
export HALO_PLUGIN_FILES="$scratch/no-plugins"
failures=0
check() {  # check DESCRIPTION STATUS
  if [[ $2 -eq 0 ]]; then echo "ok: $1"; else echo "FAILED: $1"; failures=$((failures + 1)); fi
}

# 1. Alone, the interop cases pair with the reference peer and pass.
"$cts" --plugin "$plugin" --filter 'interop.*' --jobs 2 --json "$scratch/interop.jsonl" \
  >"$scratch/interop.log" 2>&1
status=$?
cat "$scratch/interop.log"
[[ $status -eq 0 ]] && grep -q 'pair with the reference peer' "$scratch/interop.log"
check "alone, the run says it pairs with the reference peer and passes" $?
python3 - "$scratch/interop.jsonl" <<'PY'
import json, sys
rows = [r for r in map(json.loads, open(sys.argv[1])) if r["record"] == "case"]
ran = [(r["case"], r["status"], r["peer_used"]) for r in rows]
# The semaphore cases need only semaphores, which the peer has; the
# interop.external ones need buffers of both devices, which it has not.
semaphores = [c for c in ran if not c[0].startswith("interop.external.")]
shared = [c for c in ran if c[0].startswith("interop.external.")]
ok = (len(semaphores) >= 8 and all(s == "PASS" and p == "cts_peer" for _, s, p in semaphores)
      and all(s in ("PASS", "SKIP") for _, s, _ in shared))
print(("ok: " if ok else "FAILED: ") + f"every interop semaphore case ran and passed with peer_used cts_peer: {ran}")
sys.exit(0 if ok else 1)
PY
[[ $? -eq 0 ]] || failures=$((failures + 1))

# 2. The manifest beside the library is found and certified with it.
"$cts" --plugin "$plugin" --filter 'manifest.*' >"$scratch/found.log" 2>&1
status=$?
[[ $status -eq 0 ]] && grep -q "manifest $(dirname "$plugin")/template.json" "$scratch/found.log" &&
  tail -n 1 "$scratch/found.log" | grep -Eq '^[1-9][0-9]* passed, 0 failed, 0 skipped$'
check "the manifest beside the library is found and passes" $?

# 3. Broken manifests fail the case that checks what is wrong.
library=$(realpath "$plugin")
manifest() {  # manifest FILE NAME LIBRARY ABI
  printf '{"file_format_version": "1.0.0", "plugin": {"name": "%s", "library_path": "%s", "abi_version": "%s", "priority": 0}}\n' \
    "$2" "$3" "$4" >"$1"
}
abi=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["plugin"]["abi_version"])' \
  "$(dirname "$plugin")/template.json")
manifest "$scratch/abi2.json" template "$library" 2.0
manifest "$scratch/other_name.json" acme "$library" "$abi"
manifest "$scratch/other_library.json" template "$scratch/libhalo_plugin_template.so" "$abi"
for wrong in abi2:manifest.abi_version other_name:manifest.name \
             other_library:manifest.library_path; do
  file=${wrong%%:*} case=${wrong#*:}
  "$cts" --plugin "$plugin" --manifest "$scratch/$file.json" --filter 'manifest.*' \
    --json "$scratch/$file.jsonl" >"$scratch/$file.log" 2>&1
  status=$?
  python3 - "$scratch/$file.jsonl" "$case" <<'PY'
import json, sys
rows = {r["case"]: r for r in map(json.loads, open(sys.argv[1])) if r["record"] == "case"}
case = rows.get(sys.argv[2], {})
sys.exit(0 if case.get("status") == "FAIL" and rows.get("manifest.loads", {}).get("status") == "FAIL"
         and "--manifest" in case.get("command", "") else 1)
PY
  [[ $? -eq 0 && $status -eq 1 ]]
  check "a manifest $file fails $case and manifest.loads, and the run" $?
done

# 4. A library without a manifest is certified bare, and says so.
cp "$plugin" "$scratch/bare/"
"$cts" --plugin "$scratch/bare/$(basename "$plugin")" --filter 'manifest.*' \
  >"$scratch/bare.log" 2>&1
status=$?
[[ $status -eq 0 ]] && grep -q '^halo-cts: plugin template: certifying a bare library, no manifest' \
  "$scratch/bare.log" && grep -q '^SKIP .*manifest.parses.*certifying a bare library' "$scratch/bare.log"
check "a bare library is certified bare, its manifest cases skipped with the reason" $?

if [[ $failures -ne 0 ]]; then echo "$failures check(s) failed"; exit 1; fi
echo "every check of certifying alone passed"
