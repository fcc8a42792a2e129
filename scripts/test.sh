#!/usr/bin/env bash
# Every test: set up, build, run ctest (unit tests and the conformance suite)
# and the fuzz harnesses over their inputs, then the same under
# AddressSanitizer+UBSan and under ThreadSanitizer. Ends
# with one line for the whole run: "N passed, N failed, N skipped".
#   scripts/test.sh [--no-sanitizers]
set -uo pipefail
cd "$(dirname "$0")/.."
sanitizers=1
[ "${1:-}" = "--no-sanitizers" ] && sanitizers=0

bash scripts/setup-debian.sh || exit 1

passed=0 failed=0 skipped=0 broken=0

# Runs ctest in |build_dir| with the remaining arguments and adds its JUnit
# counts to the totals.
run_ctest() {
  local build_dir=$1
  shift
  local junit="$build_dir/ctest-junit.xml"
  rm -f "$junit"
  ctest --test-dir "$build_dir" --output-on-failure --output-junit "$(pwd)/$junit" "$@"
  if [ ! -f "$junit" ]; then
    broken=1
    return
  fi
  local counts
  counts=$(python3 - "$junit" <<'PY_COUNTS'
import sys, xml.etree.ElementTree as ET
suite = ET.parse(sys.argv[1]).getroot()
tests, failures, skipped = (int(suite.get(k, 0)) for k in ("tests", "failures", "skipped"))
print(tests - failures - skipped, failures, skipped)
PY_COUNTS
  ) || { broken=1; return; }
  read -r run_passed run_failed run_skipped <<<"$counts"
  passed=$((passed + run_passed))
  failed=$((failed + run_failed))
  skipped=$((skipped + run_skipped))
}

build() {
  bash scripts/build.sh "$@" || broken=1
}

# Runs every test of |build_dir|: the unit tests as many at a time as there
# are cores, then the conformance runs (label cts) one after another, as
# each runs two cases at once. The CTS's checks of itself (label
# cts_checks) run with the unit tests: their runs are a few cases long and
# mostly wait out a hung case's timeout. Labels are regular expressions to
# ctest, hence the anchors.
run_tests() {
  local build_dir=$1
  run_ctest "$build_dir" -LE '^cts$' -j "$(nproc)"
  run_ctest "$build_dir" -L '^cts$'
}

export HALO_LOADER_DEBUG=${HALO_LOADER_DEBUG:-}

# Release, as scripts/main.sh builds it: without debug information the
# build takes a fifth less time.
build build -DCMAKE_BUILD_TYPE=Release
run_tests build

# The libFuzzer harnesses (tests/fuzz/README.md), built with clang in their
# own folder: each runs every seed and regression input once, then fuzzes
# for a few seconds.
bash scripts/fuzz.sh --build-only || broken=1
run_ctest build-fuzz -L fuzz -j "$(nproc)"

if [ "$sanitizers" = 1 ]; then
  # Plugins stay mapped so sanitizer reports can name their frames.
  export HALO_DISABLE_UNLOAD=1
  # Line tables (-g1) are all a report's frames need, at a tenth less
  # compile time than full debug information.
  debug_lines=(-DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG=-g1
               -DCMAKE_CXX_FLAGS_DEBUG=-g1)
  build build-asan -DHALO_SANITIZER=address "${debug_lines[@]}" \
    -DHALO_BUILD_BENCHMARKS=OFF -DHALO_BUILD_EXAMPLES=OFF
  # intercept_tls_get_addr=0: GCC 12's runtime misreads the thread_local
  # storage of dlopen'ed plugins at exit (google/sanitizers#1322).
  # use_sigaltstack=0: PoCL's LLVM puts its own alternate signal stack on
  # the threads that create OpenCL contexts, which ASan then fails to unmap
  # as its own when the thread exits ("unable to unmap", a CHECK failure in
  # opencl_enumeration.threads on every run of this machine).
  # quarantine_size_mb=16: lavapipe's compute threads allocate and free a
  # page-aligned block per workgroup, and recycling them through ASan's
  # default 256 MiB quarantine makes large dispatches crawl (32 of 1 Mi
  # elements: 2.5 s with no quarantine, 6 s with 16 MiB, over 20 s with
  # 256 MiB); 16 MiB still holds freed memory back long enough to catch a
  # use after free.
  # The suppressions name driver-internal leaks only (see the file).
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:intercept_tls_get_addr=0:use_sigaltstack=0:quarantine_size_mb=16 \
  LSAN_OPTIONS=suppressions=$(pwd)/tests/sanitizers/lsan.supp:print_suppressions=0 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    run_tests build-asan
  # No tools under ThreadSanitizer: halo-info's own code runs on one
  # thread, and what it loads runs in the other tests.
  build build-tsan -DHALO_SANITIZER=thread "${debug_lines[@]}" \
    -DHALO_BUILD_BENCHMARKS=OFF -DHALO_BUILD_EXAMPLES=OFF -DHALO_BUILD_TOOLS=OFF
  # atexit_sleep_ms=0: ThreadSanitizer otherwise sleeps a second in every
  # process's exit, waiting for stray threads; the halo-cts runs start a
  # process per case, so the sleep was most of this pass's time. No thread
  # is left finished but unjoined at exit: tests join theirs, and plugin
  # threads are detached as they start, so a device torn down on another
  # device's thread while the process exits leaves none behind
  # (plugins/sdk/include/halo/sdk/plugin_threads.hpp).
  TSAN_OPTIONS=atexit_sleep_ms=0:halt_on_error=1:second_deadlock_stack=1:suppressions=$(pwd)/tests/sanitizers/tsan.supp \
    run_tests build-tsan
fi

if [ "$broken" = 1 ]; then
  echo "a build or test run did not complete" >&2
  failed=$((failed + 1))
fi
echo "${passed} passed, ${failed} failed, ${skipped} skipped"
[ "$failed" -eq 0 ]
