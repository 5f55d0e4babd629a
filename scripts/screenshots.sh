#!/usr/bin/env bash
# Regenerates every picture under docs/images/ (user guide, concepts guide, README)
# and docs/cli.md, from the app itself: `paraplan --screenshot` offscreen, one view
# at a time (--grab-view), on the built-in examples and docs/projects/.
#
#   scripts/screenshots.sh              # build paraplan + paraplan-cli (dev preset), then render
#   scripts/screenshots.sh --no-build   # use build/dev as it is
#   scripts/screenshots.sh NAME...      # only the pictures whose names contain one of NAME
#
# A view the app does not know (e.g. before a dock is merged) is skipped with a warning.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

build=1
filters=()
for a in "$@"; do
  case $a in
    --no-build) build=0 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) filters+=("$a") ;;
  esac
done

if ((build)); then
  install_packages "${PARAPLAN_BUILD_PACKAGES[@]}"
  log "Building paraplan and paraplan-cli (dev)"
  cmake --preset dev >/dev/null
  cmake --build build/dev -j "$JOBS" --target paraplan paraplan-cli
fi

APP="$ROOT/build/dev/app/paraplan"
CLI="$ROOT/build/dev/app/paraplan-cli"
[[ -x $APP && -x $CLI ]] || { echo "build/dev/app/paraplan is missing: run without --no-build" >&2; exit 2; }

OUT="$ROOT/docs/images"
mkdir -p "$OUT"
# A clean, private settings and data folder: no saved window state or recent files.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export QT_QPA_PLATFORM=offscreen XDG_CONFIG_HOME="$scratch/config" XDG_DATA_HOME="$scratch/data" \
       XDG_RUNTIME_DIR="$scratch/run" QT_LOGGING_RULES="*.debug=false;qt.qpa.*=false"
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"

made=0 skipped=0
# shot NAME ARGS...: renders docs/images/NAME.png with `paraplan --screenshot ... ARGS`.
shot() {
  local name=$1; shift
  if ((${#filters[@]})); then
    local f hit=0
    for f in "${filters[@]}"; do [[ $name == *"$f"* ]] && hit=1; done
    ((hit)) || return 0
  fi
  local err tmp="$scratch/$name.png"
  err=$("$APP" --screenshot "$tmp" "$@" 2>&1 >/dev/null | grep -v 'propagateSizeHints') || true
  if [[ ! -s $tmp ]]; then
    if [[ $err == *"unknown view"* ]]; then
      printf 'warning: %s skipped: %s\n' "$name" "$err" >&2
      skipped=$((skipped + 1))
      return 0
    fi
    printf 'error: %s: %s\n' "$name" "$err" >&2
    exit 1
  fi
  mv -f "$tmp" "$OUT/$name.png"
  made=$((made + 1))
  printf '  %s.png\n' "$name"
}

EX70=(--example llama3.1-70b-4nodes)
EX8=(--example llama3.1-8b-pp4-1node)
GPT2=(--example gpt2-1node)
MIX=(--example mixtral-8x7b-2nodes-ep)
LONG=(--project "$ROOT/docs/projects/llama3.1-8b-128k-context.paraplan.json")
RUN=(--project "$ROOT/docs/projects/gpt2-2nodes-run.paraplan.json")

log "Rendering docs/images"
# --- README and user guide: the window and each view -----------------------------------
shot main-window "${EX70[@]}" --size 1600x1000
# Building a cluster from nothing: File > New…'s form as it opens, then its project with three
# more nodes added from the palette's "8 × h100-sxm" (Edit > Add Node), the canvas and the
# Diagnostics finding that the new GPUs bring.
NEW4=(--new --add-node "8 × h100-sxm" --add-node "8 × h100-sxm" --add-node "8 × h100-sxm")
shot guide-new-project --new-dialog --size 620x260
shot guide-add-nodes "${NEW4[@]}" --view canvas --grab-view --size 1000x480
shot guide-add-nodes-fix "${NEW4[@]}" --view diagnostics --grab-view --size 1280x240
shot view-canvas "${EX70[@]}" --view canvas --grab-view --size 1100x560 --colour pp --select-rank 3
# --- Describing a real cluster (docs/real-cluster.md): NVL72 racks and their NVLink domains ----
NVL72=(--project "$ROOT/docs/projects/gb200-nvl72-rack.paraplan.json")
NVL72X2=(--project "$ROOT/docs/projects/gb200-nvl72-2racks.paraplan.json")
shot canvas-nvl72-rack "${NVL72[@]}" --view canvas --grab-view --size 1200x820 --colour tp --select-rank 0
shot canvas-nvl72-two-racks "${NVL72X2[@]}" --view canvas --grab-view --size 1400x760 --colour pp --select-rank 5
shot view-layout "${EX70[@]}" --view layout --grab-view --size 470x900
# The LoRA example's whole Layout panel, down to its Fine-tuning group (user guide, "A LoRA example").
shot view-layout-lora --example llama3.1-70b-lora-1node --view layout --grab-view --size 470x1300
shot view-explain "${EX70[@]}" --view explain --grab-view --size 460x560
shot view-diagnostics "${EX70[@]}" --set /layout/tp=3 --view diagnostics --grab-view --size 1400x290
shot view-grid "${EX70[@]}" --view grid --grab-view --size 660x330 --colour pp --group tp --select-rank 9
shot view-timeline "${EX8[@]}" --view timeline --grab-view --size 1200x360
shot view-timeline-flushes "${EX70[@]}" --view timeline --grab-view --size 1200x360
shot view-memory "${EX70[@]}" --view memory --grab-view --size 1200x420
shot view-history "${EX70[@]}" --set /layout/tp=4 --set /layout/pp=8 --set /layout/zero_stage=0 \
     --view history --grab-view --size 420x120
shot view-run "${RUN[@]}" --view run --grab-view --size 1200x560 --dry-run
shot view-gpus "${GPT2[@]}" --view gpus --grab-view --size 1200x380
shot export-dialog "${EX70[@]}" --export-format megatron --size 1100x640
shot view-planner "${EX70[@]}" --view planner --grab-view --size 1200x560
# Compare: the 70B example (tp 8, pp 4) beside tp 4 x pp 8 and beside interleaved 1F1B.
variant() {   # variant NAME 'python assignments to d["layout"]': a copy of the 70B example
  python3 - "$ROOT/resources/examples/llama3.1-70b-4nodes.paraplan.json" "$scratch/$1.paraplan.json" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3], {"d": d})
json.dump(d, open(sys.argv[2], "w"), indent=2)
PY
}
variant tp4-pp8 'd["layout"].update(tp=4, pp=8)'
variant interleaved 'd["layout"].update(schedule="interleaved", chunks=2)'
shot view-compare "${EX70[@]}" --compare "$scratch/tp4-pp8.paraplan.json" --compare "$scratch/interleaved.paraplan.json" \
     --view compare --grab-view --size 1500x760
shot view-links "${EX70[@]}" --view links --grab-view --size 900x290
shot view-shardformer "${GPT2[@]}" --view shardformer --grab-view --size 620x400
shot view-lessons "${GPT2[@]}" --view lessons --invoke startSelected --invoke makeChange --grab-view --size 620x760

# --- Concepts guide --------------------------------------------------------------------
# Data and tensor parallelism: the same 8 GPUs coloured by their tp and dp coordinates.
shot concept-grid-tp "${GPT2[@]}" --view grid --grab-view --size 500x340 --colour tp --group tp --select-rank 0
shot concept-grid-dp "${GPT2[@]}" --view grid --grab-view --size 500x340 --colour dp --group dp --select-rank 0
# ColossalAI's legacy 2D / 2.5D / 3D tensor parallelism: one weight split over the tp group.
shot concept-tensor-2d "${EX8[@]}" --set /layout/pp=1 --set /layout/tp=4 --set /layout/tp_mode='"2d"' \
     --view grid --grab-view --size 480x350 --colour tp --group tp --select-rank 0
shot concept-tensor-2p5d "${EX8[@]}" --set /layout/pp=1 --set /layout/tp=8 --set /layout/tp_mode='"2.5d"' \
     --set /layout/tp_depth=2 --view grid --grab-view --size 600x370 --colour tp --group tp --select-rank 0
shot concept-tensor-3d "${EX8[@]}" --set /layout/pp=1 --set /layout/tp=8 --set /layout/tp_mode='"3d"' \
     --view grid --grab-view --size 600x420 --colour tp --group tp --select-rank 0
# Pipeline parallelism: one stage per node.
shot concept-pipeline-canvas "${EX70[@]}" --view canvas --grab-view --no-palette --size 860x470 --colour pp --select-rank 0
# The pipeline schedules at pp 4, 8 microbatches.
shot concept-schedule-gpipe "${EX8[@]}" --set /layout/schedule='"gpipe"' --view timeline --grab-view --size 1100x300
shot concept-schedule-1f1b "${EX8[@]}" --view timeline --grab-view --size 1100x300
shot concept-schedule-interleaved "${EX8[@]}" --set /layout/schedule='"interleaved"' --set /layout/chunks=2 \
     --view timeline --grab-view --size 1100x300
shot concept-schedule-zbh1 "${EX8[@]}" --set /layout/schedule='"zbh1"' --view timeline --grab-view --size 1100x300
shot concept-schedule-zbh1-estimate "${EX8[@]}" --set /layout/schedule='"zbh1"' --view timeline \
     --invoke useEstimatesPassTimes --grab-view --size 1100x300
shot concept-schedule-zbv "${EX8[@]}" --set /layout/schedule='"zbv"' --set /layout/chunks=2 \
     --view timeline --grab-view --size 1100x300
# Sequence parallelism (Ulysses all-to-all) and context parallelism (ring attention).
shot concept-sequence-ulysses "${EX8[@]}" --set /layout/pp=1 --set /layout/tp=2 --set /layout/sp=2 \
     --set /layout/sp_mode='"all_to_all"' --view grid --grab-view --size 480x330 --colour sp --group sp --select-rank 0
shot concept-context-ring "${LONG[@]}" --view canvas --grab-view --no-palette --size 860x280 --colour sp --select-rank 0
# Expert parallelism: Mixtral's 8 experts over the 8 GPUs of a node.
shot concept-expert-canvas "${MIX[@]}" --view canvas --grab-view --no-palette --size 860x280 --colour ep --group ep --select-rank 0
# ZeRO: model-state memory of the same 8-way data-parallel job at stages 0 and 3.
shot concept-zero-0 "${EX8[@]}" --set /layout/pp=1 --set /layout/tp=1 --set /layout/num_microbatches=1 \
     --set /layout/zero_stage=0 --view memory --grab-view --size 1000x360
shot concept-zero-3 "${EX8[@]}" --set /layout/pp=1 --set /layout/tp=1 --set /layout/num_microbatches=1 \
     --set /layout/zero_stage=3 --view memory --grab-view --size 1000x360
# How frameworks order ranks: the same sizes (tp 2, pp 2, dp 2) under ColossalAI and Megatron-LM.
shot concept-order-colossalai "${GPT2[@]}" --view grid --grab-view --size 500x340 --colour pp --group pp --select-rank 0
shot concept-order-megatron "${GPT2[@]}" --set /layout/framework='"megatron"' --view grid --grab-view --size 500x340 \
     --colour pp --group pp --select-rank 0

# Play a step: one frame a quarter into the step (the playhead, stages busy and idle, collectives).
if ((${#filters[@]} == 0)) || [[ " ${filters[*]} " == *play-step* ]]; then
  frames="$scratch/frames"
  "$APP" "${EX8[@]}" --playback-frames "$frames" --frames 9 --size 1400x900 >/dev/null 2>&1 \
    || { echo "error: play-step: --playback-frames failed" >&2; exit 1; }
  cp -f "$frames/frame_0002.png" "$OUT/play-step.png" && made=$((made + 1)) && printf '  play-step.png\n'
fi

log "Writing docs/cli.md"
"$CLI" --markdown >"$ROOT/docs/cli.md"

log "$made pictures written to docs/images, $skipped skipped"
