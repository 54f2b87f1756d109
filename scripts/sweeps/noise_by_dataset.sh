#!/usr/bin/env bash
# Example sweep: noise level × dataset (σ = 0.25, 0.5, 1.0 × the four section-8 configs ×
# seeds 1, 2: 24 runs, about 2.5 minutes on 2 cores), then η and η_fix against σ.
#
#   scripts/sweeps/noise_by_dataset.sh [OUT_DIR] [extra sweep axes...]
#
# OUT_DIR defaults to results/sweeps/noise_by_dataset. Extra arguments are added to the
# sweep's axes, e.g. a quick check:
#   scripts/sweeps/noise_by_dataset.sh /tmp/noise --set train.steps=100
# Output: OUT_DIR/<kind>__noise=<σ>__seed=<n>/, OUT_DIR/runs.csv, OUT_DIR/noise.{png,svg}.
set -euo pipefail
# shellcheck source=../lib/arguments.sh
source "$(dirname "$0")/../lib/arguments.sh"
help_asked "$@"
case ${1:-} in -*) refuse "unknown option '$1' where OUT_DIR comes first (the axes follow it)" ;; esac
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$root/results/sweeps/noise_by_dataset}
shift || true
python=${PYTHON:-/usr/bin/python3}

"$root/scripts/sweep.sh" "$out" "$root"/configs/section8/{local,global,periodic,lowrank}.json \
  -- --set dataset.noise=0.25,0.5,1.0 --seed 1,2 "$@"
"$python" "$here/plot_sweep.py" "$out/runs.csv" "$out/noise" --x config.dataset.noise \
  --y eta,eta_fix,claim_holds
