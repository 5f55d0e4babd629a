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
# The node's topology as the network issue's importers read it: `nvidia-smi topo -m` text and
# NCCL's own topology dump (NCCL_TOPO_DUMP_FILE, written during communicator init), with NCCL's
# INIT/GRAPH/TUNING log of a one-rank all-reduce over a range of sizes.
nvidia-smi topo -m >"$out/topo-m.txt" 2>&1
nvidia-smi nvlink -s >"$out/nvlink-s.txt" 2>&1
NCCL_TOPO_DUMP_FILE="$out/nccl-topo.xml" NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,GRAPH,TUNING \
  RANK=0 WORLD_SIZE=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=29534 timeout 120 python3 - >"$out/nccl-init.log" 2>&1 <<'PY'
import torch, torch.distributed as dist
dist.init_process_group("nccl", device_id=torch.device("cuda", 0))
for n in (1 << 10, 1 << 20, 1 << 26):
    t = torch.ones(n, device="cuda", dtype=torch.bfloat16)
    dist.all_reduce(t)
torch.cuda.synchronize()
dist.destroy_process_group()
PY
# Dense bf16 GEMM throughput at the shapes the step-time estimate prices (TFLOP/s, best of 20).
timeout 120 python3 - >"$out/gemm.txt" 2>&1 <<'PY'
import torch
for m, n, k in ((8192, 8192, 8192), (4096, 4096, 4096), (16384, 8192, 28672), (4096, 28672, 8192), (2048, 2048, 2048)):
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16); b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
    for _ in range(3): a @ b
    torch.cuda.synchronize(); best = 1e9
    for _ in range(20):
        s = torch.cuda.Event(enable_timing=True); e = torch.cuda.Event(enable_timing=True)
        s.record(); a @ b; e.record(); torch.cuda.synchronize(); best = min(best, s.elapsed_time(e) / 1e3)
    print(f"bf16 {m}x{n}x{k}: {2*m*n*k/best/1e12:.1f} TFLOP/s ({best*1e3:.3f} ms)")
x = torch.empty(1 << 30, device="cuda", dtype=torch.uint8); y = torch.empty_like(x)
for _ in range(3): y.copy_(x)
torch.cuda.synchronize(); s = torch.cuda.Event(enable_timing=True); e = torch.cuda.Event(enable_timing=True)
s.record(); [y.copy_(x) for _ in range(10)]; e.record(); torch.cuda.synchronize()
print(f"HBM copy 1 GiB: {2*10*(1<<30)/(s.elapsed_time(e)/1e3)/1e9:.0f} GB/s (read + write)")
PY
python3 -c "import torch; print('torch', torch.__version__, 'nccl', torch.cuda.nccl.version())" >"$out/versions.txt" 2>&1
nvidia-smi >"$out/nvidia-smi.txt" 2>&1
ls -la "$out"
exit $rc
