#!/usr/bin/env bash
# Accuracy of PosLab beside the papers' own Python code at the same configuration and seeds: the
# reference scripts run unchanged from their checkouts (keep them outside this repository) and
# `poslab-cli train` with the reference's architecture, per seed, and the table printed side by
# side with a two-sample test of each metric's difference (bench/reference_accuracy.py table).
#
# Usage: bench/reference_accuracy.sh --poincare DIR --jordan DIR [--out DIR] [--seeds LIST]
#          [--targets LIST] [--teachers LIST] [--pj-steps N] [--kernel-lm-length T]
#          [--kernel-lm-steps N] [--kernel-lm-methods LIST] [--jobs N] [--side SIDE]
#          [--build-dir DIR] [--table-only]
#   --poincare DIR  a checkout of the PJ-RoPE paper's code (ybzhang-nxu/Poincare_Rope): its
#                   experiments/synthetic_query_lm.py (sectors full, max order 3, at its defaults,
#                   which the preset pj-sector-teachers-paper encodes) beside `poslab-cli train
#                   --family pj-bias --architecture pj-reference` on sector-teacher, for each
#                   target and teacher: accuracy, loss, final-query attention entropy and support
#                   at 96 and 192, the three sector gates and the FJ and LC per-order masses
#   --jordan DIR    a checkout of the Jordan-RoPE paper's code (ybzhang-nxu/jordan_rope): its
#                   scripts/run_kernel_lm.py with configs/kernel_lm.yaml rewritten to a smaller
#                   shape (training length T, N steps, position train_context T, evaluated at T,
#                   2T, 4T on 32 sequences each) beside `poslab-cli train --architecture
#                   jordan-reference` at the preset jordan-kernel-lm-paper with the same changes
#   (at least one of the two is needed; without one, that experiment is skipped)
#   --out DIR       where the runs and the table are kept (default out/reference-accuracy); a run
#                   already finished there is not run again, so the same command continues
#   --seeds LIST    seeds of both sides (default 0,1,2)
#   --targets LIST  PJ sector teachers (default phase,first_jet,recency_weak_jet)
#   --teachers LIST attention and/or signed (K/||K||) (default attention,signed)
#   --pj-steps N    steps of each PJ run (default 350, the reference's)
#   --kernel-lm-length T  (default 128)   --kernel-lm-steps N  (default 300)
#   --kernel-lm-methods LIST  reference method names (default rope,jordan_rope; also nope, alibi,
#                   rope_alibi, damped_rope, direct_sum, jordan_no_gamma, jordan_raw_tau)
#   --jobs N        runs at once (default 1), each with one intra-op thread on both sides
#   --side SIDE     both (default), reference or poslab: run only that side, e.g. the two sides
#                   as two invocations at once on the same --out (each skips what is finished)
#   --table-only    print the table of the runs finished under --out and run nothing
# Order: the PJ runs of the first teacher, the kernel LM, the PJ runs of the other teacher, each
# seed by seed (so that a stopped run has every configuration of the first at the first seeds);
# the reference and PosLab run of a configuration one after the other. The data streams differ (torch's random
# generator against PosLab's own), so the two sides agree in distribution, never draw for draw.
# Builds build/app/poslab-cli first if needed. Bad arguments: one line and exit status 2.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
me=reference_accuracy.sh
source "$repo/bench/reference_common.sh"
python=/usr/bin/python3
helper="$repo/bench/reference_accuracy.py"
timing="$repo/bench/side_by_side_timing.py"
poincare="" jordan="" out="$repo/out/reference-accuracy" seeds=0,1,2
targets=phase,first_jet,recency_weak_jet teachers=attention,signed pj_steps=350
klm_T=128 klm_steps=300 klm_methods=rope,jordan_rope jobs=1 build_dir="$repo/build"
table_only=0 only_side=both

# list OPTION VALUE ALLOWED_REGEX [WHAT]: a comma list whose every item matches; WHAT names the
# items in the message (default: the alternatives of the regex).
list() {
  local item
  [[ "$2" =~ ^[^,]+(,[^,]+)*$ ]] || fail "$1 '$2' must be a comma list"
  for item in ${2//,/ }; do
    [[ "$item" =~ ^($3)$ ]] || fail "$1: '$item' is not ${4:-one of ${3//|/, }}"
  done
}

while [[ $# -gt 0 ]]; do
  case "$1" in
    --poincare) value "$@"; poincare="$2"; shift 2 ;;
    --jordan) value "$@"; jordan="$2"; shift 2 ;;
    --out) value "$@"; out="$2"; shift 2 ;;
    --seeds) value "$@"; list --seeds "$2" '[0-9]{1,9}' 'a seed (an integer)'; seeds="$2"; shift 2 ;;
    --targets) value "$@"
      list --targets "$2" 'phase|first_jet|second_jet|third_jet|affine|recency_weak_jet|lc_core|lc_affine'
      targets="$2"; shift 2 ;;
    --teachers) value "$@"; list --teachers "$2" 'attention|signed'; teachers="$2"; shift 2 ;;
    --pj-steps) value "$@"; count --pj-steps "$2" 1; pj_steps="$2"; shift 2 ;;
    --kernel-lm-length) value "$@"; count --kernel-lm-length "$2" 8; klm_T="$2"; shift 2 ;;
    --kernel-lm-steps) value "$@"; count --kernel-lm-steps "$2" 1; klm_steps="$2"; shift 2 ;;
    --kernel-lm-methods) value "$@"
      list --kernel-lm-methods "$2" 'nope|rope|alibi|rope_alibi|damped_rope|direct_sum|jordan_rope|jordan_no_gamma|jordan_raw_tau'
      klm_methods="$2"; shift 2 ;;
    --jobs) value "$@"; count --jobs "$2" 1; jobs="$2"; shift 2 ;;
    --side) value "$@"; list --side "$2" 'both|reference|poslab'; only_side="$2"; shift 2 ;;
    --build-dir) value "$@"; build_dir="$2"; shift 2 ;;
    --table-only) table_only=1; shift ;;
    -h|--help) sed -n '2,42p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) fail "unknown argument '$1' (see --help)" ;;
  esac
done
pj_script="" klm_script="" klm_yaml=""
[[ -z "$poincare" ]] || poincare_checkout "$poincare"
[[ -z "$jordan" ]] || jordan_checkout "$jordan"
[[ "$table_only" == 1 || -n "$pj_script$klm_script" ]] ||
  fail "give --poincare DIR and/or --jordan DIR (see --help)"
mkdir -p "$out" 2>/dev/null || fail "--out '$out' cannot be created"
out="$(cd "$out" && pwd -P)"

if [[ "$table_only" == 1 ]]; then
  "$python" "$helper" table "$out"
  exit 0
fi
ensure_cli "$build_dir"
pin_threads 1

# PosLab's family of each reference kernel-LM method (the preset jordan-kernel-lm-paper's map).
declare -A family_of=([nope]=nope [rope]=rope [alibi]=alibi [rope_alibi]=rope-alibi
  [damped_rope]=damped-rope [direct_sum]=direct-sum [jordan_rope]=jordan-stabilized-abs
  [jordan_no_gamma]=jordan-no-gamma [jordan_raw_tau]=jordan-exact)

# side DIR NAME COMMAND...: one run into DIR; NAME.done marks it finished (then it is skipped),
# its output goes to DIR/NAME.log. A failed run says so in one line and leaves no NAME.done.
side() {
  local dir="$1" name="$2"
  shift 2
  [[ -f "$dir/$name.done" ]] && return 0
  mkdir -p "$dir"
  echo "$(date -u +%H:%M:%S) start $name ${dir#"$out"/}"
  if "$@" >"$dir/$name.out" 2>"$dir/$name.log"; then
    touch "$dir/$name.done"
    echo "$(date -u +%H:%M:%S) done  $name ${dir#"$out"/}"
  else
    echo "$me: the $name run in $dir failed (see $name.log)" >&2
  fi
}

# pair DIR FAMILY ARCHITECTURE REFERENCE_ARGS...: both sides of one configuration, one after the
# other (the reference first), as a background job when --jobs allows. PosLab's side trains from
# DIR/poslab-config.json; its JSON result is DIR/poslab.out.
pair() {
  while (($(jobs -rp | wc -l) >= jobs)); do wait -n || true; done
  (
    [[ "$only_side" == poslab ]] || side "$1" reference "$python" "$timing" reference 1 "${@:4}"
    [[ "$only_side" == reference ]] || side "$1" poslab "$cli" train --json --family "$2" \
      --architecture "$3" --config "$1/poslab-config.json" --out "$1/poslab-run" --force
  ) &
}

# pj_runs TEACHER: the PJ query-LM of one teacher, seed by seed, each target.
pj_runs() {
  local seed target dir ref_args
  for seed in ${seeds//,/ }; do
    for target in ${targets//,/ }; do
      dir="$out/pj/$1-$target/s$seed"
      mkdir -p "$dir"
      ref_args="$("$python" "$helper" pj "$repo/resources/presets/pj-sector-teachers-paper.json" \
        "$target" "$1" "$seed" "$pj_steps" "$dir/poslab-config.json")"
      # shellcheck disable=SC2086  # ref_args is a list of plain words
      pair "$dir" pj-bias pj-reference "$pj_script" $ref_args --out-dir "$dir/reference"
    done
  done
}

# kernel_lm_runs: the kernel LM, seed by seed, each method.
kernel_lm_runs() {
  local seed method dir
  for seed in ${seeds//,/ }; do
    for method in ${klm_methods//,/ }; do
      dir="$out/kernel-lm/$method-T$klm_T-steps$klm_steps/s$seed"
      mkdir -p "$dir"
      "$python" "$helper" klm "$repo/resources/presets/jordan-kernel-lm-paper.json" "$klm_yaml" \
        "$klm_T" "$klm_steps" "$klm_T,$((2 * klm_T)),$((4 * klm_T))" "$seed" \
        "$dir/poslab-config.json" "$dir/kernel_lm.yaml"
      pair "$dir" "${family_of[$method]}" jordan-reference "$klm_script" \
        --config "$dir/kernel_lm.yaml" --out-dir "$dir/reference" --methods "$method" --seeds "$seed"
    done
  done
}

echo "$me: out $out; seeds $seeds; load $(cut -d' ' -f1-3 /proc/loadavg)"
IFS=, read -r -a teacher_list <<<"$teachers"
[[ -z "$pj_script" ]] || pj_runs "${teacher_list[0]}"
[[ -z "$klm_script" ]] || kernel_lm_runs
if [[ -n "$pj_script" ]]; then
  for teacher in "${teacher_list[@]:1}"; do pj_runs "$teacher"; done
fi
wait
echo "$me: load $(cut -d' ' -f1-3 /proc/loadavg)"
"$python" "$helper" table "$out"
