#!/usr/bin/env bash
# Reproduces "resume-adam-steps-overflow" (see README.md): a checkpoint with a valid checksum but
# adam_steps = 2^63-1 (argument "max", the default) or -1 ("neg"), resumed with `ufl train --resume`.
#   bash fuzz/crashes/resume-adam-steps-overflow.sh [max|neg]     # UFL=build-sanitize/ufl for UBSan
set -euo pipefail
ufl=${UFL:-build/ufl}
case ${1:-max} in max) value=9223372036854775807 ;; neg) value=-1 ;; *) echo "max or neg" >&2; exit 2 ;; esac
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
printf '{"name":"a","dataset":{"kind":"local","n":8,"d":2,"train_size":16,"test_size":8,"kernel_width":3},"train":{"steps":100000,"batch_size":4096}}' >"$work/a.json"
"$ufl" train "$work/a.json" --out "$work/run" --threads 1 --quiet & pid=$!
sleep 1.5; kill -INT "$pid"; wait "$pid" || true
python3 - "$work/run" "$value" <<'PY'
import json, struct, sys
run, value = sys.argv[1], int(sys.argv[2])
def fnv1a(b):
    h = 0xcbf29ce484222325
    for c in b: h = ((h ^ c) * 0x100000001b3) & 0xffffffffffffffff
    return h
manifest = json.load(open(run + "/manifest.json"))
config = json.load(open(run + "/config.json"))
config["train"]["steps"] = manifest["steps_done"] + 2  # resume only two steps
json.dump(config, open(run + "/config.json", "w"), indent=2)
data = open(run + "/checkpoint.bin", "rb").read()
payload = bytearray(data[20:-8])
at = 4  # steps_done; then params, first_moment, second_moment: u64 count + float32s each
for _ in range(3):
    at += 8 + 4 * struct.unpack_from("<Q", payload, at)[0]
struct.pack_into("<q", payload, at, value)  # adam_steps
open(run + "/checkpoint.bin", "wb").write(data[:20] + payload + struct.pack("<Q", fnv1a(payload)))
PY
set +e
UBSAN_OPTIONS=print_stacktrace=1 "$ufl" train --resume "$work/run" --threads 1 --quiet
echo "exit code $?"
