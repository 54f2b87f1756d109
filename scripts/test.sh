#!/usr/bin/env bash
# Installs what is missing, builds ufl and runs the whole test suite (the README's second
# command, and what CI runs).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$(nproc)"
ctest --test-dir build -j "$(nproc)" --output-on-failure
