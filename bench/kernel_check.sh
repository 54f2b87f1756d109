#!/usr/bin/env bash
# The guard of issue 38: the product kernel (src/tensor/small_gemm.hpp) built for each instruction
# set ufl has a register block for, and each measured against Eigen's GEMM in the same process
# (bench/kernel_check.cpp). Fails (exit 1) when the kernel is below RATIO × Eigen's GEMM at 512³ or
# on the reference transformer step's products, on any instruction set this CPU can run; an
# instruction set the CPU lacks is built (so that it compiles) and skipped. Each build is one file
# (the kernel's header, Eigen and bench/'s headers), about 15 s. CI runs it (.ci/run).
#
#   bash bench/kernel_check.sh [--ratio R] [--targets "native x86-64-v3 x86-64"] [--table]
#
# Targets are GCC -march values: native (this machine: AVX-512 where it has it), x86-64-v3
# (AVX2 + FMA), x86-64 (SSE2, the 16-byte width ARM's NEON also has). A ratio measured in one run
# is steady on a busy machine, but one trial can still catch a core switching away: a target
# that fails is measured twice more and fails only if every attempt does.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
ratio=0.5 targets="native x86-64-v3 x86-64" table=0
usage() { sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case $1 in
    --ratio) ratio=${2:?--ratio needs a value}; shift ;;
    --targets) targets=${2:?--targets needs a value}; shift ;;
    --table) table=1 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "kernel_check.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
  shift
done
cxx=${CXX:-g++}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# Which -march levels this CPU runs (x86-64-v3 needs AVX2 and FMA; v4 AVX-512).
flags=$(grep -m1 '^flags' /proc/cpuinfo 2> /dev/null || true)
runs_here() {
  case $1 in
    native | x86-64) return 0 ;;
    x86-64-v3) [[ $flags == *" avx2 "* && $flags == *" fma "* ]] ;;
    x86-64-v4) [[ $flags == *" avx512f "* ]] ;;
    *) return 0 ;;
  esac
}
status=0
for target in $targets; do
  "$cxx" -O3 -std=c++20 -Wall -Wextra -Werror -march="$target" -DNDEBUG -I"$root/src" \
    -isystem /usr/include/eigen3 "$here/kernel_check.cpp" -o "$out/check-$target"
  if ! runs_here "$target"; then
    echo "$target: built; this CPU cannot run it (skipped)"
    continue
  fi
  passed=0
  for attempt in 1 2 3; do
    [ "$table" = 1 ] && [ "$attempt" = 1 ] && args=(--table 1) || args=()
    if line=$("$out/check-$target" --check "$ratio" "${args[@]}"); then
      passed=1
      echo "$target: $line" | tail -1
      [ "$table" = 1 ] && echo "$line" | sed '$d'
      break
    fi
    echo "$target: attempt $attempt below $ratio x Eigen: $(echo "$line" | tail -1)" >&2
  done
  [ "$passed" = 1 ] || status=1
done
[ "$status" = 0 ] && echo "kernel_check: every target at or above $ratio x Eigen's GEMM" ||
  echo "kernel_check: FAILED (a kernel below $ratio x Eigen's GEMM: src/tensor/small_gemm.hpp)" >&2
exit $status
