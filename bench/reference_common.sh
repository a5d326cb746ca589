# shellcheck shell=bash disable=SC2154  # me and repo are set by the sourcing script
# Shell pieces shared by bench/reference_side_by_side.sh and bench/reference_accuracy.sh, which
# run the papers' own scripts from checkouts kept outside this repository. Sourced after the
# caller sets `me` (its name for messages) and `repo` (this repository's root).
#   fail MESSAGE...          one line on stderr, exit status 2 (bad arguments)
#   value OPTION [VALUE]     fails unless the option has a non-empty value
#   count OPTION VALUE MIN   fails unless VALUE is an integer >= MIN
#   poincare_checkout DIR    sets pj_script (experiments/synthetic_query_lm.py) or fails
#   jordan_checkout DIR      sets jordan, klm_script and klm_yaml (scripts/run_kernel_lm.py,
#                            configs/kernel_lm.yaml) or fails
#   ensure_cli BUILD_DIR     sets cli to BUILD_DIR/app/poslab-cli, building it first if needed
#   pin_threads N            N intra-op threads on both sides: POSLAB_THREADS, OMP_NUM_THREADS
#                            (read by torch.set_num_threads' default), OpenBLAS at 1 inside them
#                            as poslab::configureThreads() pins it (docs/PERFORMANCE.md)

fail() { echo "$me: $*" >&2; exit 2; }
value() { [[ $# -ge 2 && -n "$2" ]] || fail "$1 needs a value (see --help)"; }
count() { [[ "$2" =~ ^[0-9]+$ && "$2" -ge "$3" ]] || fail "$1 '$2' must be an integer >= $3"; }

# outside_repo OPTION DIR: the checkouts run unchanged and must not be part of this repository.
outside_repo() {
  [[ "$2/" == "$repo/"* ]] && fail "$1 '$2' is inside this repository; keep the checkout outside"
  return 0
}

poincare_checkout() {
  local dir
  dir="$(cd "$1" 2>/dev/null && pwd -P)" || fail "--poincare '$1' is not a directory"
  pj_script="$dir/experiments/synthetic_query_lm.py"
  [[ -f "$pj_script" ]] || fail "--poincare '$1' holds no experiments/synthetic_query_lm.py"
  outside_repo --poincare "$dir"
}

jordan_checkout() {
  jordan="$(cd "$1" 2>/dev/null && pwd -P)" || fail "--jordan '$1' is not a directory"
  klm_script="$jordan/scripts/run_kernel_lm.py" klm_yaml="$jordan/configs/kernel_lm.yaml"
  [[ -f "$klm_script" && -f "$klm_yaml" ]] ||
    fail "--jordan '$1' holds no scripts/run_kernel_lm.py and configs/kernel_lm.yaml"
  outside_repo --jordan "$jordan"
}

ensure_cli() {
  cli="$1/app/poslab-cli"
  if [[ ! -x "$cli" ]]; then
    [[ -f "$1/build.ninja" ]] ||
      cmake -S "$repo" -B "$1" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build "$1" --target poslab-cli >/dev/null
  fi
}

pin_threads() {
  export POSLAB_THREADS="$1" OMP_NUM_THREADS="$1" MKL_NUM_THREADS="$1" OPENBLAS_NUM_THREADS=1
}
