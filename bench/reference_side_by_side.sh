#!/usr/bin/env bash
# Training throughput of PosLab against the papers' own Python code, measured side by side in one
# run on the same machine, at the reference scripts' default shapes and the same thread count.
#
# Usage: bench/reference_side_by_side.sh [--poincare DIR] [--jordan DIR] [--steps N]
#                                        [--kernel-lm-steps N] [--threads N] [--build-dir DIR]
#   --poincare DIR  a checkout of the PJ-RoPE paper's code (ybzhang-nxu/Poincare_Rope); runs its
#                   experiments/synthetic_query_lm.py (embed 96, 4 heads, 2 layers, MLP 2x,
#                   batch 96, T 96, sector "full", max order 3, recency_weak_jet attention teacher)
#                   against `poslab-cli train --family pj-bias` on sector-teacher at those shapes
#                   (affine slope from the script's 0.4).
#   --jordan DIR    a checkout of the Jordan-RoPE paper's code (ybzhang-nxu/jordan_rope); runs its
#                   scripts/run_kernel_lm.py with configs/kernel_lm.yaml (d_model 128, 4 heads,
#                   3 layers, MLP 2x, batch 24, T 1024, mixed_raw) for its methods rope and
#                   jordan_rope, against PosLab's rope and jordan-stabilized-abs on kernel-lm.
#   --steps N       steps of each PJ query-LM run (default 30, at least 2)
#   --kernel-lm-steps N  steps of each kernel-LM run (default 3, at least 2; seconds to tens of
#                   seconds each)
#   --threads N     intra-op threads of both sides (default 1: on a shared machine a second thread
#                   mostly waits for a core, docs/PERFORMANCE.md); POSLAB_THREADS, OMP_NUM_THREADS
#                   and torch.set_num_threads (OpenBLAS at 1 inside them, as PosLab pins it)
# Without --poincare or --jordan it says so in one line and compares instead with
# bench/python_reference.py (the plain-PyTorch RoPE model bench/run_training_bench.sh times) at the
# same shapes, against PosLab's rope family on kernel-lm: RoPE on both sides, not PJ-bias.
#
# The checkouts stay where they are (keep them outside this repository): their scripts run
# unchanged through bench/side_by_side_timing.py, and what this writes for them (a YAML config,
# their run directories) goes to a temporary directory. Timed window, both sides: steps 2..N of
# each run (start-up, imports, step 1 and every evaluation are outside it), wall and process CPU
# seconds. Prints tokens/s (batch * T / wall seconds per step) of each side and the ratio
# PosLab/reference, and the same ratio in CPU seconds, which is the one to trust when the load
# average is above the core count (printed before and after each pair of runs).
# Builds build/app/poslab-cli first if needed. Bad arguments: one line and exit status 2.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
me=reference_side_by_side.sh
source "$repo/bench/reference_common.sh"
poincare=""
jordan=""
steps=30
klm_steps=3
threads=1
build_dir="$repo/build"
python=/usr/bin/python3
timing="$repo/bench/side_by_side_timing.py"

while [[ $# -gt 0 ]]; do
  case "$1" in
    --poincare) value "$@"; poincare="$2"; shift 2 ;;
    --jordan) value "$@"; jordan="$2"; shift 2 ;;
    --steps) value "$@"; count --steps "$2" 2; steps="$2"; shift 2 ;;
    --kernel-lm-steps) value "$@"; count --kernel-lm-steps "$2" 2; klm_steps="$2"; shift 2 ;;
    --threads) value "$@"; count --threads "$2" 1; threads="$2"; shift 2 ;;
    --build-dir) value "$@"; build_dir="$2"; shift 2 ;;
    -h|--help) sed -n '2,33p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) fail "unknown argument '$1' (see --help)" ;;
  esac
done
pj_script="" klm_script="" klm_yaml=""
[[ -z "$poincare" ]] || poincare_checkout "$poincare"
[[ -z "$jordan" ]] || jordan_checkout "$jordan"
ensure_cli "$build_dir"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
results="$tmp/results"
cores="$(nproc)"  # before OMP_NUM_THREADS is set: nproc reads it
pin_threads "$threads"
load() { cut -d' ' -f1-3 /proc/loadavg; }

# A TrainConfig JSON: config family C H layers mlp norm task kernel options T head_dim batch lr wd
# steps [family_params, default {}]. Constant learning rate (no warm-up, min_lr_ratio 1) as the
# reference scripts.
poslab_config() {
  local out="$tmp/$1.json" family_params="${17:-}"
  [[ -n "$family_params" ]] || family_params='{}'
  cat >"$out" <<EOF
{"model": {"family": "$2", "d_model": $3, "heads": $4, "layers": $5, "mlp_ratio": $6, "norm": "$7",
           "family_params": $family_params},
 "task": {"id": "$8", "kernel": "$9", "options": ${10}, "train_length": ${11}, "head_dim": ${12}},
 "optim": {"batch": ${13}, "lr": ${14}, "weight_decay": ${15}, "warmup": 0, "min_lr_ratio": 1.0},
 "run": {"steps": ${16}, "eval_lengths": [${11}], "eval_sequences": 1, "eval_every": 0,
         "device": "cpu", "seed": 0}}
EOF
  echo "$out"
}

# run LABEL SIDE TOKENS_PER_STEP COMMAND...: one timed run; its TIMING line goes to $results.
run() {
  local label="$1" side="$2" tokens="$3" log="$tmp/$1-$2.log" line
  shift 3
  if ! line="$("$@" 2>"$log" | grep '^TIMING ')"; then
    echo "reference_side_by_side.sh: the $side run of $label failed; its last lines:" >&2
    tail -n 5 "$log" >&2
    exit 1
  fi
  echo "$label|$side|$tokens|${line#TIMING }" >>"$results"
  echo "  $side: $(cut -d' ' -f2- <<<"$line")"
}

# poslab LABEL FAMILY CONFIG N: `poslab-cli train` of N + 1 steps, window steps 2..N.
poslab() {
  local out="$tmp/run-$1-$2"
  run "$1" poslab "$5" "$python" "$timing" poslab "$4" "$out/metrics.jsonl" -- \
    "$cli" train --family "$2" --config "$3" --out "$out" --force
}

echo "threads $threads; PJ query-LM $steps steps, kernel LM $klm_steps steps per run"
echo "load before: $(load) ($cores cores)"

# PJ query-LM (synthetic_query_lm.py's defaults, given explicitly so that both sides match).
C=96 H=4 layers=2 mlp=2 B=96 T=96
if [[ -n "$pj_script" ]]; then
  echo "PJ query-LM: $pj_script"
  # The affine slope starts at the script's --init-affine-slope 0.4 (PJ-bias alone: ln 2).
  cfg="$(poslab_config pj pj-bias $C $H $layers $mlp layer sector-teacher recency_weak_jet \
         '{"teacher": 1}' $T $((C / H)) $B 0.003 0.0001 $((steps + 1)) '{"slope": 0.4}')"
  poslab "pj-query-lm pj-bias" pj-bias "$cfg" "$steps" $((B * T))
  run "pj-query-lm pj-bias" reference $((B * T)) "$python" "$timing" reference "$threads" \
    "$pj_script" --steps "$steps" --device cpu --embed-dim $C --num-heads $H --layers $layers \
    --mlp-ratio $mlp --batch-size $B --train-len $T --sectors full --max-order 3 \
    --target recency_weak_jet --teacher attention --lr 0.003 --weight-decay 0.0001 \
    --eval-batches 1 --eval-lens $T --out-dir "$tmp/pj-reference"
else
  echo "no --poincare checkout: PJ query-LM shapes compared with bench/python_reference.py (RoPE)"
  cfg="$(poslab_config pj-rope rope $C $H $layers $mlp rms kernel-lm mixed_raw '{}' $T \
         $((C / H)) $B 0.003 0.01 $((steps + 1)))"
  poslab "pj-query-lm-shapes rope" rope "$cfg" "$steps" $((B * T))
  run "pj-query-lm-shapes rope" python_reference $((B * T)) "$python" "$timing" reference \
    "$threads" "$repo/bench/python_reference.py" --threads "$threads" --warmup-steps 1 \
    --steps $((steps - 1)) --batch $B --T $T --d-model $C --heads $H --layers $layers \
    --mlp-ratio $mlp
fi
echo "load: $(load)"

# Kernel LM (configs/kernel_lm.yaml; without a checkout its values as of this script).
if [[ -n "$klm_script" ]]; then
  echo "kernel LM: $klm_script with $klm_yaml"
  shapes="$("$python" "$timing" kernel-lm-config "$klm_yaml" "$tmp/kernel_lm.yaml" "$klm_steps")"
  read -r C H layers mlp B T lr wd < <("$python" -c 'import json, sys; s = json.loads(sys.argv[1])
print(*(s[k] for k in ("d_model", "heads", "layers", "mlp_ratio", "batch", "T", "lr",
                       "weight_decay")))' "$shapes")
  for pair in rope:rope jordan-stabilized-abs:jordan_rope; do
    family="${pair%%:*}" method="${pair#*:}"
    cfg="$(poslab_config "klm-$family" "$family" "$C" "$H" "$layers" "$mlp" rms kernel-lm \
           mixed_raw '{}' "$T" $((C / H)) "$B" "$lr" "$wd" $((klm_steps + 1)))"
    poslab "kernel-lm $family" "$family" "$cfg" "$klm_steps" $((B * T))
    run "kernel-lm $family" "reference $method" $((B * T)) "$python" "$timing" reference \
      "$threads" "$klm_script" --config "$tmp/kernel_lm.yaml" --out-dir "$tmp/klm-$method" \
      --methods "$method"
    echo "load: $(load)"
  done
else
  echo "no --jordan checkout: kernel-LM shapes compared with bench/python_reference.py (RoPE)"
  C=128 H=4 layers=3 mlp=2 B=24 T=1024
  cfg="$(poslab_config klm-rope rope $C $H $layers $mlp rms kernel-lm mixed_raw '{}' $T \
         $((C / H)) $B 0.0005 0.01 $((klm_steps + 1)))"
  poslab "kernel-lm-shapes rope" rope "$cfg" "$klm_steps" $((B * T))
  run "kernel-lm-shapes rope" python_reference $((B * T)) "$python" "$timing" reference \
    "$threads" "$repo/bench/python_reference.py" --threads "$threads" --warmup-steps 1 \
    --steps $((klm_steps - 1)) --batch $B --T $T --d-model $C --heads $H --layers $layers \
    --mlp-ratio $mlp
  echo "load: $(load)"
fi
echo "load after: $(load)"

"$python" - "$results" <<'PY'
import json, sys
rows = {}
for line in open(sys.argv[1]):
    label, side, tokens, timing = line.rstrip("\n").split("|", 3)
    t = json.loads(timing)
    per_step_wall, per_step_cpu = t["wall_s"] / t["steps"], t["cpu_s"] / t["steps"]
    rows.setdefault(label, []).append((side, int(tokens), t["steps"], per_step_wall, per_step_cpu))
print()
print(f"{'run':34}{'side':28}{'steps':>6}{'wall s/step':>13}{'tokens/s':>11}{'CPU s/step':>12}")
for label, sides in rows.items():
    for side, tokens, n, wall, cpu in sides:
        print(f"{label:34}{side:28}{n:6d}{wall:13.3f}{tokens / wall:11.0f}{cpu:12.3f}")
print()
for label, sides in rows.items():
    (_, _, _, pw, pc), (other, _, _, rw, rc) = sides
    print(f"{label}: PosLab/{other} tokens/s {rw / pw:.2f}x (wall), {rc / pc:.2f}x (CPU seconds)")
PY
