#!/usr/bin/env bash
# On a machine with an NVIDIA GPU and PyTorch: records real nvidia-smi output (for the
# telemetry parser's test data) and runs the probe job with NCCL on every local GPU.
# Usage: scripts/gpu-check.sh OUTDIR
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out=${1:-gpu-check}; mkdir -p "$out"
q=index,uuid,name,utilization.gpu,memory.used,memory.total,temperature.gpu,power.draw
nvidia-smi -L >"$out/nvidia-smi-L.txt" 2>&1
nvidia-smi --query-gpu=$q --format=csv,noheader,nounits >"$out/idle.csv" 2>&1
nvidia-smi --query-gpu=$q --format=csv >"$out/idle-with-header-units.csv" 2>&1
ngpu=$(nvidia-smi -L | grep -c '^GPU')
echo "GPUs: $ngpu"
# Load the GPU for a few seconds and stream samples the way the monitor does (-lms).
rm -f "$out/.loaded"
python3 - "$out/.loaded" <<'PY' &
import sys, time, torch
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
(a @ a).sum().item()
open(sys.argv[1], "w").close()
t = time.time()
while time.time() - t < 8:
    (a @ a).sum().item()
PY
load=$!
for _ in $(seq 60); do [[ -e $out/.loaded ]] && break; sleep 0.5; done
sleep 1
timeout 5 nvidia-smi --query-gpu=$q --format=csv,noheader,nounits -lms 250 >"$out/busy-lms250.csv" 2>&1
wait $load
# The probe job: one rank per GPU on NCCL (a layout of pure data parallelism over the local GPUs).
python3 - "$ngpu" >"$out/layout.json" <<'PY'
import json, sys
n = int(sys.argv[1])
print(json.dumps({"framework": "colossalai", "world_size": n,
  "axes": [{"name": "dp", "size": n}, {"name": "pp", "size": 1}, {"name": "tp", "size": 1}],
  "ranks": [{"rank": r, "coords": {"dp": r, "pp": 0, "tp": 0}, "node": 0, "local_rank": r} for r in range(n)],
  "groups": {"dp": [list(range(n))], "tp": [[r] for r in range(n)], "pp": [[r] for r in range(n)]}}))
PY
pids=()
for ((r = 0; r < ngpu; r++)); do
  RANK=$r LOCAL_RANK=$r WORLD_SIZE=$ngpu LOCAL_WORLD_SIZE=$ngpu MASTER_ADDR=127.0.0.1 MASTER_PORT=29533 \
    CUDA_VISIBLE_DEVICES=$r PYTHONUNBUFFERED=1 \
    python3 "$ROOT/resources/probe/paraplan_probe.py" "$out/layout.json" --backend nccl \
      --sizes 1048576,67108864,268435456 --iters 5 --out "$out/probe-result.json" >"$out/probe-rank$r.log" 2>&1 &
  pids+=($!)
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
echo "probe exit: $rc"
python3 -c "import torch; print('torch', torch.__version__, 'nccl', torch.cuda.nccl.version())" >"$out/versions.txt" 2>&1
nvidia-smi >"$out/nvidia-smi.txt" 2>&1
ls -la "$out"
exit $rc
