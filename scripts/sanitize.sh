#!/usr/bin/env bash
# Builds ufl and its test suite with AddressSanitizer + UndefinedBehaviorSanitizer (including
# LeakSanitizer) in build-sanitize/ and runs the whole suite through CTest. Any sanitizer report
# fails the run, also one raised in a `ufl` child process that a CLI test starts:
# - ASan and LSan reports are written to build-sanitize/sanitizer-logs/report.<pid> and printed at
#   the end; the script fails if there is any, whatever the tests' outcome;
# - UBSan reports (GCC's UBSan prints to stderr whatever log_path says) abort the process, which
#   fails the test case or the exit code a CLI test expects.
#
#   bash scripts/sanitize.sh            # uses nproc jobs; UFL_JOBS=1 to use fewer
#   UFL_CTEST_ARGS="-R config/" bash scripts/sanitize.sh   # extra ctest arguments
set -euo pipefail
# shellcheck source=lib/arguments.sh
source "$(dirname "$0")/lib/arguments.sh"
no_arguments "$@"
cd "$(dirname "$0")/.."
root=$PWD
build=${UFL_SANITIZE_DIR:-build-sanitize}
jobs=${UFL_JOBS:-$(nproc)}

# Debug keeps assertions (ufl's and Eigen's bounds checks) on. -Og -g1 instead of Debug's -O0 -g:
# with ASan+UBSan, GCC compiles Eigen-heavy files 3-4x faster than at -O2 -g, the suite still runs
# in reasonable time, and -g1's line tables are all the stack traces need (file:line). UFL_PCH:
# Eigen and the other heavy headers parsed once for ufl_core and once for the tests (CMakeLists.txt
# says why that build silences four GCC false positives; the warnings are scripts/test.sh's job).
cmake -S . -B "$build" -DUFL_SANITIZE=ON -DUFL_NATIVE=ON -DUFL_PCH=ON -DCMAKE_BUILD_TYPE=Debug \
      -DCMAKE_CXX_FLAGS_DEBUG="-Og -g1"
# Only what CTest runs (not bench/).
cmake --build "$build" -j "$jobs" --target ufl ufl_tests

logs=$root/$build/sanitizer-logs
rm -rf "$logs" && mkdir -p "$logs"
# log_path sends each process's ASan/LSan report to $logs/report.<pid> instead of stderr; they are
# printed below, so reports from child processes whose output a test swallows are not lost.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:log_path=$logs/report"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:abort_on_error=1"

status=0
# shellcheck disable=SC2086  # UFL_CTEST_ARGS is a list of arguments
ctest --test-dir "$build" -j "$jobs" --output-on-failure ${UFL_CTEST_ARGS:-} || status=$?
if compgen -G "$logs/report*" >/dev/null; then
  for report in "$logs"/report*; do
    echo "==== sanitizer report $report" >&2
    cat "$report" >&2
  done
  echo "sanitize.sh: sanitizer reports above (kept in $logs)" >&2
  exit 1
fi
if [ "$status" -ne 0 ]; then
  echo "sanitize.sh: ctest failed (exit $status)" >&2
  exit "$status"
fi
echo "sanitize.sh: all tests passed with ASan/UBSan/LSan, no sanitizer reports"
