#!/usr/bin/env bash
# Installs everything ufl needs to build, test and plot on Debian 12 (run as root).
#
#   bash scripts/install_deps.sh
#
# Env: UFL_WITH_TORCH=1 (also the PyTorch peer of bench/), UFL_WITH_FUZZ=1 (clang for fuzz/),
# UFL_WITH_SLURM=1 (a one-node Slurm for scripts/test_slurm.sh).
set -euo pipefail
# shellcheck source=lib/arguments.sh
source "$(dirname "$0")/lib/arguments.sh"
no_arguments "$@"
export DEBIAN_FRONTEND=noninteractive
packages=(cmake g++ make git
          libeigen3-dev libcli11-dev nlohmann-json3-dev libspdlog-dev doctest-dev
          python3-numpy python3-matplotlib
          fortunes)  # the default corpus of configs/transformer/text.json
# The PyTorch peer of bench/ only; OpenBLAS so that torch does not fall back to the reference BLAS.
if [ "${UFL_WITH_TORCH:-0}" = 1 ]; then packages+=(python3-torch libopenblas0-pthread); fi
# The libFuzzer targets of fuzz/ (CI, scripts/fuzz.sh) need clang and its runtime.
if [ "${UFL_WITH_FUZZ:-0}" = 1 ]; then packages+=(clang libclang-rt-14-dev libomp-dev); fi
# A one-node Slurm cluster for scripts/slurm_cluster.sh and scripts/test_slurm.sh (CI).
if [ "${UFL_WITH_SLURM:-0}" = 1 ]; then packages+=(slurmctld slurmd slurm-client munge); fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
