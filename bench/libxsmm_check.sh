#!/usr/bin/env bash
# libxsmm (Debian's libxsmm-dev) beside ufl's product kernel on the reference step's products, for
# each instruction set this CPU runs (bench/libxsmm_check.cpp; bench/README.md, "libxsmm").
# libxsmm generates its code for the CPU it runs on, whatever the build's -march; ufl's kernel is
# built for each target. Installs libxsmm-dev when it is missing (root, Debian).
#
#   bash bench/libxsmm_check.sh [--targets "native x86-64-v3 x86-64"]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
targets="native x86-64-v3 x86-64"
while [ $# -gt 0 ]; do
  case $1 in
    --targets) targets=${2:?--targets needs a value}; shift ;;
    -h | --help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "libxsmm_check.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
dpkg-query -W -f='${Status}' libxsmm-dev 2> /dev/null | grep -q "install ok installed" ||
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libxsmm-dev
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for target in $targets; do
  g++ -O3 -std=c++20 -Wall -Wextra -march="$target" -DNDEBUG -I"$root/src" \
    -isystem /usr/include/eigen3 "$here/libxsmm_check.cpp" -o "$out/check-$target" \
    -lxsmm -lxsmmnoblas -lpthread -lrt -ldl -lm -fopenmp
  echo "## -march=$target"
  echo
  # libxsmm's own code follows the CPU unless LIBXSMM_TARGET says otherwise: give it the target's.
  case $target in
    x86-64-v3) export LIBXSMM_TARGET=hsw ;;
    x86-64) export LIBXSMM_TARGET=wsm ;;
    *) unset LIBXSMM_TARGET ;;
  esac
  "$out/check-$target"
  echo
done
