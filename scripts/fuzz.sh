#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ with clang in build-fuzz/ and runs each for SECONDS
# (default 30) on a temporary copy of its seed corpus (fuzz/corpus/<target>/, left unchanged).
# Exits non-zero if any target finds a crash, a sanitizer report, a leak, a timeout or an
# out-of-memory; the input is kept in build-fuzz/artifacts/<target>/ and printed in base64.
#
#   bash scripts/fuzz.sh            # 30 s per target (CI)
#   bash scripts/fuzz.sh 3600       # an hour per target; see fuzz/README.md
#   UFL_FUZZ_TARGETS="fuzz_npy" bash scripts/fuzz.sh 60
set -euo pipefail
# shellcheck source=lib/arguments.sh
source "$(dirname "$0")/lib/arguments.sh"
help_asked "$@"
[ $# -le 1 ] || refuse "one argument at most (SECONDS), got $#"
[[ ${1:-30} =~ ^[0-9]+$ ]] || refuse "SECONDS must be a whole number of seconds, got '$1'"
cd "$(dirname "$0")/.."
root=$PWD
seconds=${1:-30}
build=${UFL_FUZZ_DIR:-build-fuzz}
jobs=${UFL_JOBS:-$(nproc)}
read -r -a targets <<<"${UFL_FUZZ_TARGETS:-fuzz_config fuzz_npy fuzz_checkpoint}"

# Debug keeps assertions (ufl's and Eigen's) on; -O1 keeps the fuzzers fast.
cmake -S . -B "$build" -DCMAKE_CXX_COMPILER="${UFL_FUZZ_CXX:-clang++}" -DUFL_FUZZ=ON \
      -DUFL_PCH=ON -DUFL_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g"
cmake --build "$build" -j "$jobs" --target "${targets[@]}"

# A RAM-backed scratch folder when there is one: fuzz_npy writes every input to a file, and on a
# disk that is 50-100x slower.
if [ -d /dev/shm ] && [ -w /dev/shm ]; then scratch=/dev/shm; else scratch=${TMPDIR:-/tmp}; fi
work=$(mktemp -d "$scratch/ufl-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
logs=$root/$build/fuzz-logs
mkdir -p "$logs"
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export UFL_FUZZ_TMPDIR=$work  # fuzz_npy's scratch file

failed=()
for target in "${targets[@]}"; do
  corpus=$work/corpus-$target
  artifacts=$root/$build/artifacts/$target
  mkdir -p "$corpus" "$artifacts"
  find "fuzz/corpus/$target" -maxdepth 1 -type f ! -name 'README*' -exec cp {} "$corpus/" \;
  log=$logs/$target.log
  echo "== $target: ${seconds}s on $(find "$corpus" -type f | wc -l) seed input(s), log $log"
  status=0
  "$root/$build/fuzz/$target" "$corpus" -max_total_time="$seconds" -timeout=20 \
      -rss_limit_mb=2048 -dict="fuzz/dict/$target.dict" -artifact_prefix="$artifacts/" \
      -print_final_stats=1 >"$log" 2>&1 || status=$?
  if [ "$status" -eq 0 ]; then
    grep -E '^(Done|stat::number_of_executed_units|stat::new_units_added)' "$log" | sed 's/^/   /'
    echo "   corpus: $(find "$corpus" -type f | wc -l) input(s)"
  else
    failed+=("$target")
    echo "!! $target failed (exit $status); its report:" >&2
    # From the first line of the report (skipping libFuzzer's progress lines) on.
    awk '/terminate called|runtime error:|ERROR: |ufl fuzz invariant failed/ {found = 1} found' \
        "$log" | head -n 200 >&2
    grep -qE 'terminate called|runtime error:|ERROR: |ufl fuzz invariant failed' "$log" ||
      tail -n 60 "$log" >&2
    grep -oE "Test unit written to [^ ]+" "$log" | sed 's/Test unit written to //' |
      while read -r input; do
        echo "!! input $input (base64):" >&2
        base64 "$input" >&2
      done
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz.sh: FAILED: ${failed[*]} (inputs in $build/artifacts/, reproduce with" \
       "$build/fuzz/<target> <input>)" >&2
  exit 1
fi
echo "fuzz.sh: ${targets[*]}: no crash in ${seconds}s each"
