#!/usr/bin/env bash
# Runs each libFuzzer target in build/fuzz over its seed corpus for a share of the
# given seconds (default 60 in all). New crashes are saved to tests/data/fuzz-crashes/.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
total=${1:-60}
cd "$ROOT"
targets=()
# FUZZ_BUILD: the build folder whose tests/fuzz holds them: the dev build (scripts/test.sh builds them
# there, beside the sanitized core) or the fuzz preset's.
FUZZ_BUILD="${FUZZ_BUILD:-build/fuzz}"
for t in "$FUZZ_BUILD"/tests/fuzz/fuzz_*; do [[ -f $t && -x $t ]] && targets+=("$t"); done
n=${#targets[@]}
((n)) || { echo "no fuzz targets built in $FUZZ_BUILD (cmake --preset fuzz, or the dev preset with -DPARAPLAN_SANITIZED_CORE=ON)" >&2; exit 1; }
per=$(( total / n )); ((per > 0)) || per=1
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
# Undefined behaviour (an out-of-range cast, an overflow) is a finding too: stop at the first.
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
mkdir -p tests/data/fuzz-crashes
status=0
for t in "${targets[@]}"; do
  name=$(basename "$t")
  corpus="$work/$name"; mkdir -p "$corpus"
  case $name in
    fuzz_project) seeds=(resources/examples tests/data/project-versions tests/data/fuzz/project) ;;
    fuzz_hf_config) seeds=(tests/data/hf tests/data/fuzz/hf) ;;
    fuzz_telemetry) seeds=(tests/data/nvidia-smi tests/data/rocm-smi) ;;
    fuzz_slurm_log) seeds=(tests/data/fuzz/slurm) ;;
    fuzz_job_log) seeds=(tests/data/fuzz/joblog) ;;
    fuzz_ssh_text) seeds=(tests/data/fuzz/ssh) ;;
    fuzz_runtime_config) seeds=(tests/data/fuzz/runtime) ;;
    fuzz_probe_result) seeds=(tests/data/probe tests/data/fuzz/probe) ;;
    fuzz_probe_log) seeds=(tests/data/fuzz/probelog) ;;
    fuzz_job_history) seeds=(tests/data/fuzz/jobs) ;;
    fuzz_runs_table) seeds=(tests/data/calibrate tests/data/fuzz/runs) ;;
    fuzz_nccl_tests_output) seeds=(tests/data/nccl-tests tests/data/fuzz/nccl-tests) ;;
    fuzz_pytorch_csv) seeds=(tests/data/fuzz/pipeline-csv) ;;
    fuzz_python_call) seeds=(tests/data/fuzz/pycall) ;;
    fuzz_toml) seeds=(tests/data/fuzz/toml) ;;
    fuzz_ssh_option) seeds=(tests/data/fuzz/ssh-option) ;;
    fuzz_nccl_topo_xml) seeds=(tests/data/topology/h200-1gpu-vm tests/data/topology/constructed tests/data/fuzz/nccl-xml) ;;
    fuzz_smi_topo) seeds=(tests/data/topology/h200-1gpu-vm tests/data/topology/constructed tests/data/fuzz/smi-topo) ;;
    fuzz_slurm_topology) seeds=(tests/data/topology/slurm-docs tests/data/fuzz/slurm-topology) ;;
    fuzz_smi_stream)
      # Its first byte picks the tool (bit 0: rocm-smi) and the chunk sizes: the recorded
      # outputs get one ('@' nvidia-smi, 'A' rocm-smi), and rocm-smi's documents their end marker.
      smi="$work/smi-seeds"; mkdir -p "$smi"
      for f in tests/data/nvidia-smi/*.csv; do { printf '@'; cat "$f"; } >"$smi/$(basename "$f")"; done
      for f in tests/data/rocm-smi/*.json; do
        { printf 'A'; cat "$f"; printf '\n__PARAPLAN_ROCM_SMI_END__\n'; } >"$smi/$(basename "$f")"
      done
      seeds=("$smi" tests/data/fuzz/smi) ;;
    *) seeds=() ;;
  esac
  dirs=()
  for s in "${seeds[@]}"; do [[ -d $s ]] && dirs+=("$s"); done
  echo "fuzzing $name for ${per}s (seeds: ${dirs[*]:-none})"
  if ! "$t" -max_total_time="$per" -timeout=10 -rss_limit_mb=2048 -print_final_stats=0 \
        -artifact_prefix=tests/data/fuzz-crashes/"$name"- "$corpus" "${dirs[@]}" >"$work/$name.log" 2>&1; then
    echo "FUZZ FAILURE in $name:" >&2; tail -n 40 "$work/$name.log" >&2; status=1
  else
    grep -E "^Done [0-9]+ runs" "$work/$name.log" | tail -n 1 || true
  fi
done
exit $status
