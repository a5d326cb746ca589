#!/usr/bin/env bash
# Issue #17 sections 3 (last bullet) and 5 through poslab-cli: a setup that cannot train is refused
# when it is read (checkTrainable, core/train/trainable_check.h), before any training, with exit
# code 2 and one line naming the file and the field; and every message of section 5 names its
# file or field. Each case below is named after the issue's wording.
#
# Checklist: every case of issue 17 sections 1-5 and the test that holds it.
#  s1 1e400 in a session / preset / config / state string: test_sessions_cli.sh huge.poslab;
#     test_cli.sh preset-1e400; here config-1e400; test_session_load_checks stateStringsThat...
#  s1 /dev/zero or huge input (session, preset, config, checkpoint, state string):
#     test_sessions_cli.sh /dev/zero; here preset-dev-zero, preset-too-big; test_cli.sh
#     config-dev-zero, checkpoint-dev-zero; test_session_load_checks (forged length header)
#  s2 train_length 1e9 / steps 2^63-1 (CLI, preset, GUI): test_cli.sh train-length-huge,
#     steps-huge, preset-train-length, preset-steps; test_sessions rows "s2 ..."
#  s2 FIFO as session, preset, config, checkpoint, text: test_sessions_cli.sh fifo.poslab;
#     test_cli.sh *-fifo; here preset-text-fifo
#  s2 eval length 1048576, checkpoint before evaluation, evaluation progress: test_cli.sh
#     eval-length-budget, eval-command-budget, killed-during-eval; here preset-eval-budget
#  s2 kernel --lags 0:16777216: test_cli.sh kernel-lags-budget
#  s3 unknown keys, trailing garbage, true for a number, 3.7 for an integer, "kernal":
#     test_cli.sh preset-* and config-* (learning_rate, step, dmodel, train_len, seed,
#     descripton, trailing, true-number, fraction, kernal, preset-variants);
#     tests/core/test_experiment_file.cpp; test_sessions rows "misspelt ..."
#  s3 CLI values (seeds -1 / [], families [], --train-length 0, --eval-every -1,
#     --eval-sequences 0/-5, --pin, --text, eval --eval-sequences 0, run --steps 0/-1,
#     probe --families '', compare rope,rope, diagnose --set gamma=nan|inf|-3): test_cli.sh
#     "Options that used to be accepted silently" block, preset-negative-seed, preset-no-*
#  s3 stdout on a full device: test_cli.sh kernel-full, kernel-json-full, probe-full
#  s3 GUI loads sessions that cannot train (unknown kernel, unknown family parameter, missing
#     text file, device cuda, eval length 1e7, beta1 = 2): test_sessions rows "s3 ..." (File >
#     Open), test_session_load_checks untrainableStateString... (Paste State),
#     tests/core/test_trainable_check.cpp, and here (presets, --config, options, checkpoints)
#  s3 the example session of docs/SESSIONS.md trains: TrainableCheck.DocumentedSessionsTrain,
#     TestSessionLoadChecks::documentedSessionsOpenAndTrain
#  s3 empty eval_lengths is the train length: TrainableCheck.EmptyEvalLengthsMeanTheTrainLength,
#     documentedSessionsOpenAndTrain (Step with the field empty), here "empty eval_lengths"
#  s4 train --out EXISTING: test_cli.sh out-existing, out-force
#  s4 --screenshot written in place: test_screenshot.sh (old.png kept)
#  s4 atomic writer and symlinks / devices / stale temporaries: tests/core/test_atomic_file.cpp
#  s4 compare --checkpoints FILE checked first: test_cli.sh checkpoints-file
#  s5 each message: here, section 5 below; test_sessions row "s5 top-level array"
# Issue 34 (docs/LIMITS.md), the block at the end: p3 thread variables (threads-*), p1 work
#  budgets of task-kernel, train/eval evaluation (eval-200000, eval-sequences-1e6,
#  eval-lengths-together, train-eval-*, eval-checkpoint-sequences-1e6: the whole evaluation,
#  every token counted), response, pope-usage, norms, kernel, attention,
#  probe and --budget (refused10 cases), p0 the run-directory
#  lock (lock-*), the cut metrics line on --resume, stale temporaries, ulimit -f, --position-lr
#  nan, duplicate seeds/families, response --lags 1, train --resume --out, WORLD_SIZE, the quick
#  look at a paper preset (run --steps 1 --eval-sequences --eval-lengths; run-eval-*), lessons
#  the GUI refuses (lesson-*: family, values, views, tab, types, fields, the shown view's work:
#  lesson-work-*, a training step over the whole-run budget: lesson-work-training); diagnose's budgets (diagnose-*); p2 progress with an ETA and SIGTERM within a
#  second (eval-progress, response-progress, diagnose-*-progress); p4 ulimit -u (OpenBLAS, the
#  thread pools) and memory
#  under the smallest ulimit -v that starts (memory-kernel) and threads that cannot start.
# Issue 34's second probe (other values, other commands): tests/cli/test_bad_values.sh.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/cli_test_lib.sh"

# expect_error NAME PATTERN CMD...: exit code 2, one stderr line matching PATTERN (grep -E),
# nothing on stdout. A command that trains would run into the timeout instead (exit 124).
expect_error() {
  local name=$1 pattern=$2; shift 2
  check_refused "$name" -E "$pattern" "$@" || return
  if [ -s "$tmp/out" ]; then fail "$name: printed on stdout"; return; fi
  ok
}

# A preset that trains in a second; each case edits one field. steps 1000000: a case that is not
# refused up front trains into the timeout instead of passing.
base="$tmp/base.json"
cat > "$base" <<'JSON'
{"name": "p", "families": ["rope"], "seeds": [0],
 "config": {"task": {"id": "kernel-lm", "kernel": "mixed_raw", "train_length": 8},
            "model": {"d_model": 16, "heads": 2, "layers": 1}, "optim": {"batch": 2},
            "run": {"steps": 1000000, "eval_lengths": [8], "eval_sequences": 2, "eval_every": 0}}}
JSON
mutate() { mutate_json "$base" "$@"; }  # mutate OUT PYTHON
preset_refused() {  # preset_refused NAME FIELD-AND-MESSAGE PYTHON
  mutate "$tmp/$1.json" "$3"
  expect_error "preset-$1" "^poslab-cli: error: preset file '$tmp/$1.json': field $2" \
    "$cli" run --preset "$tmp/$1.json"
}
config_refused() {  # config_refused NAME FIELD-AND-MESSAGE PYTHON: the config alone, train --config
  mutate "$tmp/c-$1.json" "$3; d = d['config']"
  expect_error "config-$1" "^poslab-cli: error: --config '$tmp/c-$1.json': field $2" \
    "$cli" train --family rope --config "$tmp/c-$1.json" --out "$tmp/out-$1"
  [ ! -e "$tmp/out-$1" ] && ok || fail "config-$1: a refused config created its run directory"
}

## Section 3, last bullet: "sessions that cannot train (unknown kernel, unknown family parameter,
## missing text file, device cuda, eval length 1e7, beta1 = 2)" are refused when read.
# s3 unknown kernel
preset_refused kernel "'config.task.kernel' = \"mixed_rawx\" is not a kernel of task kernel-lm" \
  'd["config"]["task"]["kernel"] = "mixed_rawx"'
config_refused kernel "'task.kernel' = \"mixed_rawx\"" 'd["config"]["task"]["kernel"] = "mixed_rawx"'
expect_error train-kernel-option "field 'task.kernel' = \"nope\" is not a kernel of task kernel-lm" \
  "$cli" train --task kernel-lm --kernel nope --family rope --steps 1000000 --out "$tmp/o1"
expect_error compare-kernel-option "field 'task.kernel' = \"nope\"" \
  "$cli" compare --task sector-teacher --kernel nope --families rope,pope --steps 1000000
# A variant that switches the task: the inherited kernel is one the new task lacks.
preset_refused variant-task "'config.task.kernel' = \"mixed_raw\" is not a kernel of task sector-teacher" \
  'd["variants"] = [{"id": "sector-teacher"}]'
# s3 unknown family parameter
preset_refused family-param "'family_params.rope.zeta': family rope has no parameter 'zeta'" \
  'd["family_params"] = {"rope": {"zeta": 1}}'
preset_refused family-param-range "'family_params.damped-rope.gamma': gamma = -3 is out of range" \
  'd["families"] = ["damped-rope"]; d["family_params"] = {"damped-rope": {"gamma": -3}}'
config_refused model-family-param "'model.family_params.zeta': family rope has no parameter" \
  'd["config"]["model"]["family_params"] = {"zeta": 1}'
# s3 missing text file (and a directory, an empty file, a FIFO as the text)
preset_refused text-missing "'config.task.text_file': text file '$tmp/none.txt' does not exist" \
  "d['config']['task'] = {'id': 'byte-lm', 'text_file': '$tmp/none.txt', 'train_length': 8}"
mkdir -p "$tmp/adir"
preset_refused text-dir "'config.task.text_file': text file '$tmp/adir' is a directory" \
  "d['config']['task'] = {'id': 'byte-lm', 'text_file': '$tmp/adir', 'train_length': 8}"
: > "$tmp/empty.txt"
preset_refused text-empty "'config.task.text_file': byte-lm: text file '$tmp/empty.txt' is empty" \
  "d['config']['task'] = {'id': 'byte-lm', 'text_file': '$tmp/empty.txt', 'train_length': 8}"
mkfifo "$tmp/fifo"
preset_refused text-fifo "'config.task.text_file': text file '$tmp/fifo' is not a regular file" \
  "d['config']['task'] = {'id': 'byte-lm', 'text_file': '$tmp/fifo', 'train_length': 8}"
expect_error train-text-option "field 'task.text_file': text file '$tmp/none.txt' does not exist" \
  "$cli" train --task byte-lm --text "$tmp/none.txt" --family rope --steps 1000000 --out "$tmp/o2"
# s3 device cuda (this project's Debian LibTorch has no CUDA; on a CUDA machine it would train)
if ! command -v nvidia-smi > /dev/null; then
  preset_refused cuda "'config.run.device' = \"cuda\": this LibTorch build or machine has no CUDA" \
    'd["config"]["run"]["device"] = "cuda"'
  expect_error train-cuda-option "field 'run.device' = \"cuda\"" \
    "$cli" train --task kernel-lm --device cuda --family rope --steps 1000000 --out "$tmp/o3"
fi
# s3 eval length 1e7 (the reader's range), one over the evaluation budget, one the task cannot make
preset_refused eval-1e7 "'config.run.eval_lengths\[1\]' = 1e\+07 is out of range" \
  'd["config"]["run"]["eval_lengths"] = [8, 1e7]'
preset_refused eval-budget "'config.run.eval_lengths\[0\]': evaluation at length 1048576 .* over the budget" \
  'd["config"]["run"]["eval_lengths"] = [1048576]; d["config"]["run"]["eval_sequences"] = 64'
preset_refused eval-task "'config.run.eval_lengths\[0\]' = 100000: task indirect-indexing cannot generate" \
  'd["config"]["task"] = {"id": "indirect-indexing", "train_length": 24}; d["config"]["run"]["eval_lengths"] = [100000]'
# s3 beta1 = 2 (and the other optimiser fields LibTorch would refuse with a stack trace)
preset_refused beta1 "'config.optim.beta1' = 2 is out of range" 'd["config"]["optim"]["beta1"] = 2'
preset_refused beta2 "'config.optim.beta2' = 1 is out of range" 'd["config"]["optim"]["beta2"] = 1'
preset_refused weight-decay "'config.optim.weight_decay' = -1 is out of range" \
  'd["config"]["optim"]["weight_decay"] = -1'
# Task options and pins, named by field as well.
preset_refused task-option "'config.task.options.no_such': task kernel-lm has no option 'no_such'" \
  'd["config"]["task"]["options"] = {"no_such": 1}'
preset_refused pin "'config.model.pinned': cannot pin 'gamma': family rope does not learn it" \
  'd["config"]["model"]["pinned"] = ["gamma"]'
# s3 "An empty eval_lengths, documented as 'the train length'": it trains, evaluated at T.
mutate "$tmp/empty-eval.json" 'd["config"]["run"]["steps"] = 2; d["config"]["run"]["eval_lengths"] = []'
if timeout 60 "$cli" run --preset "$tmp/empty-eval.json" --json > "$tmp/ee.json" 2> "$tmp/err" &&
   /usr/bin/python3 -c "import json; d=json.load(open('$tmp/ee.json')); assert [e['length'] for e in d['results'][0]['eval']] == [8]"; then
  ok
else
  fail "empty eval_lengths: $(cat "$tmp/err")"
fi
# The checkpoint's config is checked on eval, naming the checkpoint (a byte-lm text since removed).
printf 'the quick brown fox jumps over the lazy dog. %.0s' $(seq 200) > "$tmp/corpus.txt"
if timeout 120 "$cli" train --task byte-lm --text "$tmp/corpus.txt" --family rope --steps 1 --batch 2 \
     --train-length 8 --eval-lengths 8 --eval-sequences 2 --out "$tmp/bl" > /dev/null 2>&1; then
  rm "$tmp/corpus.txt"
  expect_error eval-checkpoint-text "checkpoint '$tmp/bl/checkpoint.pt': field 'config.task.text_file': text file '$tmp/corpus.txt' does not exist" \
    "$cli" eval --checkpoint "$tmp/bl/checkpoint.pt"
else
  fail "the byte-lm run for the checkpoint case did not train"
fi

## Section 5: "Name the file and the field in every error".
# s5 "an unreadable preset is reported as 'unknown preset'"
expect_error preset-missing-path "preset file '$tmp/none.json' does not exist" "$cli" run --preset "$tmp/none.json"
expect_not preset-missing-path "unknown preset"
echo '{}' > "$tmp/locked.json"
chmod 000 "$tmp/locked.json"
if [ "$(id -u)" -ne 0 ]; then
  expect_error preset-unreadable "cannot open preset file '$tmp/locked.json': Permission denied" \
    "$cli" run --preset "$tmp/locked.json"
  expect_not preset-unreadable "unknown preset"
fi
# s5 "a directory as a preset or checkpoint gives a libstdc++ message without the file name"
expect_error preset-dir "preset file '$tmp/adir' is a directory" "$cli" run --preset "$tmp/adir"
# byte-lm-paper trains on WikiText-103, which PosLab does not ship: refused naming its file, from a
# directory that lacks it; --text names the file, and only a text task takes one.
cd "$tmp" || exit 1
expect_error preset-needs-text \
  "'config.task.text_file': text file 'wikitext-103-train-1pct.txt' does not exist" \
  "$cli" run --preset byte-lm-paper
cd - > /dev/null || exit 1
expect_error preset-text-missing "'config.task.text_file': text file '$tmp/none.txt' does not exist" \
  "$cli" run --preset byte-lm-paper --text "$tmp/none.txt"
expect_error preset-text-not-text "text: preset kv-retrieval's task kv-retrieval reads no text" \
  "$cli" run --preset kv-retrieval --text "$tmp/none.txt"
expect_error checkpoint-dir "checkpoint '$tmp/adir' is a directory" "$cli" eval --checkpoint "$tmp/adir"
expect_error pope-usage-dir "checkpoint '$tmp/adir' is a directory" "$cli" pope-usage --checkpoint "$tmp/adir"
expect_error config-dir "--config '$tmp/adir' is a directory" "$cli" train --family rope --config "$tmp/adir"
expect_error text-dir-option "field 'task.text_file': text file '$tmp/adir' is a directory" \
  "$cli" train --task byte-lm --text "$tmp/adir" --family rope --out "$tmp/o4"
# s5 "u64 values are printed as -1": the largest seed is shown as itself, everywhere.
max=18446744073709551615
timeout 60 "$cli" compare --task kernel-lm --families rope --seeds "$max" --steps 1 --batch 2 \
  --train-length 8 --eval-lengths 8 --eval-sequences 2 --json > "$tmp/u64.json" 2> "$tmp/err"
/usr/bin/python3 -c "import json; d=json.load(open('$tmp/u64.json')); assert d['results'][0]['seed'] == $max" \
  && ok || fail "compare --json reports seed $max as $(cat "$tmp/u64.json" | head -c 300)"
expect_not u64-progress "(^|[^0-9])-1([^0-9]|$)"
timeout 60 "$cli" train --task kernel-lm --family rope --seed "$max" --steps 1 --batch 2 \
  --train-length 8 --eval-lengths 8 --eval-sequences 2 --out "$tmp/u64run" --json > "$tmp/u64t.json" 2> /dev/null
/usr/bin/python3 -c "
import json
assert json.load(open('$tmp/u64t.json'))['results'][0]['seed'] == $max
assert json.load(open('$tmp/u64run/config.json'))['run']['seed'] == $max" \
  && ok || fail "train --seed $max: $(head -c 300 "$tmp/u64t.json")"
preset_refused seed-too-big "'seeds\[0\]' = 18446744073709551616 is out of range|'seeds\[0\]' = 1.8446744073709552e\+19 is out of range" \
  'd["seeds"] = [18446744073709551616]'
# s5 "eval --checkpoint /dev/zero says 'out of memory'"
expect_error checkpoint-dev-zero "checkpoint '/dev/zero' is not a regular file" "$cli" eval --checkpoint /dev/zero
expect_not checkpoint-dev-zero "out of memory"
expect_error pope-usage-dev-zero "checkpoint '/dev/zero' is not a regular file" "$cli" pope-usage --checkpoint /dev/zero
expect_error preset-dev-zero "preset file '/dev/zero' is not a regular file" "$cli" run --preset /dev/zero
head -c $((17 * 1024 * 1024)) /dev/zero | tr '\0' ' ' > "$tmp/big.json"
expect_error preset-too-big "preset file '$tmp/big.json' is 17 MiB, larger than the 16 MiB" \
  "$cli" run --preset "$tmp/big.json"
# s5 "an unknown subcommand says 'A subcommand is required'"
expect_error unknown-subcommand "unknown command 'trian' \(commands: .*train" "$cli" trian
expect_not unknown-subcommand "A subcommand is required"
# s5 "lr 1e308 and batch 1e9 give LibTorch errors naming no field" (files: test_cli.sh; options:)
expect_error lr-option "field 'optim.lr' = 1e\+308 is out of range" \
  "$cli" train --task kernel-lm --family rope --lr 1e308 --out "$tmp/o5"
expect_not lr-option "LibTorch|libc10|Exception raised"
expect_error batch-option "field 'optim.batch' = 1000000000 is out of range" \
  "$cli" train --task kernel-lm --family rope --batch 1000000000 --out "$tmp/o6"
expect_error compare-lr-option "field 'optim.lr' = 1e\+308" \
  "$cli" compare --task kernel-lm --families rope,pope --lr 1e308
# s5 "a top-level JSON array is field '' must be a JSON object"
echo '[1, 2]' > "$tmp/array.json"
expect_error preset-array "preset file '$tmp/array.json' must hold a JSON object" "$cli" run --preset "$tmp/array.json"
expect_not preset-array "field ''"
expect_error config-array "--config '$tmp/array.json' must hold a JSON object" \
  "$cli" train --family rope --config "$tmp/array.json"
echo '{"families": ["rope"], "config": []}' > "$tmp/inner-array.json"
expect_error preset-inner-array "preset file '$tmp/inner-array.json': field 'config' must be" \
  "$cli" run --preset "$tmp/inner-array.json"
# Section 1 for configs: a number no double holds names the file (presets: test_cli.sh).
echo '{"optim": {"lr": 1e400}}' > "$tmp/c-1e400.json"
expect_error config-1e400 "--config '$tmp/c-1e400.json'" "$cli" train --family rope --config "$tmp/c-1e400.json"

## Issue 34: every request bounded before it starts. Each case ends within 10 s (timeout 10):
## a regression that runs instead of refusing fails with exit 124.
refused10() {  # refused10 NAME PATTERN CMD...: expect_error under a 10 s limit
  local name=$1 pattern=$2; shift 2
  expect_error "$name" "$pattern" timeout 10 "$@"
}
# p3 threads: POSLAB_THREADS, then OMP_NUM_THREADS, a whole number in [1, 4 x cores].
most=$((4 * $(nproc)))
for value in 0 -1 abc 2.5 1e9 "" 99999 " 2"; do
  refused10 "threads-'$value'" "^poslab-cli: error: POSLAB_THREADS = '$value' is not a whole number in \[1, $most\]" \
    env POSLAB_THREADS="$value" "$cli" families
done
threads_in_json() {  # threads_in_json NAME EXPECTED ENV...: the --json document's "threads"
  local name=$1 want=$2; shift 2
  env "$@" "$cli" kernel --family rope --lags 0:4 --json > "$tmp/th.json" 2> "$tmp/err" &&
    /usr/bin/python3 -c "import json; assert json.load(open('$tmp/th.json'))['threads'] == $want" &&
    ok || fail "$name: threads in --json is not $want: $(head -c 200 "$tmp/th.json") $(cat "$tmp/err")"
}
threads_in_json threads-json-1 1 POSLAB_THREADS=1
threads_in_json threads-json-omp 1 -u POSLAB_THREADS OMP_NUM_THREADS=1
threads_in_json threads-json-cores "$(nproc)" -u POSLAB_THREADS -u OMP_NUM_THREADS
threads_in_json threads-json-most "$most" POSLAB_THREADS="$most"

# A tiny kernel-lm run: the checkpoint of the response, pope-usage and eval cases, and the run
# directory of the lock and resume cases (d_model 16, 1 layer: about 3,400 parameters).
arch=(--task kernel-lm --family rope --batch 2 --train-length 8 --d-model 16 --heads 2 --layers 1)
model=("${arch[@]}" --eval-sequences 2)
small=("${model[@]}" --eval-lengths 8)
timeout 120 "$cli" train "${small[@]}" --steps 1 --out "$tmp/small" > /dev/null 2>&1 ||
  fail "the small run did not train"
ck="$tmp/small/checkpoint.pt"
/usr/bin/python3 -c "import json; assert json.load(open('$tmp/small/summary.json'))['threads'] >= 1" &&
  ok || fail "summary.json lacks the thread count"

# p1 work budgets: the option, the estimate and the budget in one line.
refused10 task-kernel-length "--length 1000000000 needs about .* multiply-adds|--length 1000000000 needs about .* of memory" \
  "$cli" task-kernel --task kernel-lm --kernel mixed_raw --length 1000000000
refused10 task-kernel-length-2g "--length 2147483648 needs about" \
  "$cli" task-kernel --task kernel-lm --kernel mixed_raw --length 2147483648
refused10 task-kernel-length-huge "--length" \
  "$cli" task-kernel --task kernel-lm --kernel mixed_raw --length 99999999999999999999
refused10 task-kernel-train-length "--train-length 1000000000000 needs about .* multiply-adds, over the budget of" \
  "$cli" task-kernel --task kernel-lm --kernel mixed_raw --length 64 --train-length 1000000000000
refused10 train-eval-200000 "evaluation at length 200000 .*needs about .* over the budget" \
  "$cli" train "${model[@]}" --steps 1 --eval-lengths 200000 --out "$tmp/e200k"
[ ! -e "$tmp/e200k/checkpoint.pt" ] && ok || fail "a refused evaluation length trained"
refused10 train-eval-353553 "evaluation at length 353553" \
  "$cli" train "${model[@]}" --steps 1 --eval-lengths 353553 --out "$tmp/e353k"
refused10 eval-200000 "--lengths 200000 --eval-sequences 1: evaluation at length 200000 with 1 sequences.* over the budget of .*--budget [0-9]" \
  "$cli" eval --checkpoint "$ck" --lengths 200000 --eval-sequences 1
# The whole evaluation is counted: every token's cost besides attention (a million sequences of
# 64 tokens), and lengths that fit one by one but not together.
refused10 eval-sequences-1e6 "--lengths 64 --eval-sequences 1000000: evaluation at length 64 with 1000000 sequences needs about .* over the budget" \
  "$cli" eval --checkpoint "$ck" --lengths 64 --eval-sequences 1000000
refused10 eval-lengths-together "--lengths 64,64,64 --eval-sequences 500000: evaluation at lengths 64, 64 and 64 with 500000 sequences each needs about" \
  "$cli" eval --checkpoint "$ck" --lengths 64,64,64 --eval-sequences 500000
refused10 train-eval-sequences-1e6 "field 'run.eval_lengths\[0\]': evaluation at length 64 with 1000000 sequences needs about" \
  "$cli" train "${arch[@]}" --steps 1 --eval-lengths 64 --eval-sequences 1000000 --out "$tmp/e1m"
# A checkpoint whose config asks for a million sequences (trained under --budget 100, stopped before
# its evaluation): eval refuses it naming the checkpoint and the field.
timeout 60 "$cli" --budget 100 train "${arch[@]}" --eval-lengths 64 --eval-sequences 1000000 \
  --eval-every 0 --steps 2 --stop-after 1 --out "$tmp/m1" > /dev/null 2>&1 || fail "could not train the million-sequence run"
refused10 eval-checkpoint-sequences-1e6 "checkpoint '$tmp/m1/checkpoint.pt': field 'config.run.eval_lengths\[0\]': evaluation at length 64 with 1000000 sequences needs about" \
  "$cli" eval --checkpoint "$tmp/m1/checkpoint.pt"
refused10 response-20000 "--length 20000 with --samples 2 and --lags 16 needs about .* over the budget" \
  "$cli" response --checkpoint "$ck" --length 20000 --samples 2 --lags 16
refused10 response-100000 "--length 100000 with --samples 16 and --lags 128 needs about" \
  "$cli" response --checkpoint "$ck" --length 100000
refused10 pope-usage-100000 "--length 100000 with --sequences 1 needs about .* over the budget" \
  "$cli" pope-usage --checkpoint "$ck" --length 100000 --sequences 1
refused10 norms-1e7 "--max-pos 10000000 needs about .* over the budget" \
  "$cli" norms --family jordan-exact --max-pos 10000000
refused10 kernel-lags "--lags 0:100000000 \(100000000 lags\) needs about" \
  "$cli" kernel --family rope --lags 0:100000000
refused10 attention-T "--T 20000 needs about|over the 2 GiB budget" \
  "$cli" attention --family rope --T 20000 --out "$tmp/a.csv"
refused10 probe-L "--set L=1e\+06 with 6 families and 16 channels needs about" \
  "$cli" probe --set L=1000000
# The refusal names the factor that admits it; the factor is accepted before or after the command.
grep -q -- "--budget [0-9]" "$tmp/err" && ok || fail "the probe refusal names no --budget factor"
# diagnose: its two recoveries held to the budget of a command with progress (2e12), the
# kernel-LM fit to the request budget, each naming its options (limits/work_budget.h).
refused10 diagnose-adaptive "^poslab-cli: error: --steps 100000 with --restarts 64 for 9 targets at --train-len 65536, --eval-len 4096 and --max-order 8 needs about .* multiply-adds, over the budget of 2e\+12 .*--budget [0-9]" \
  "$cli" diagnose --target phase,linear,first_jet,second_jet,third_jet,recency_weak_jet,lc_core,lc_affine,affine \
  --steps 100000 --restarts 64 --train-len 65536 --max-order 8
refused10 diagnose-adaptive-one "--steps 100000 with --restarts 8 for target phase at --train-len 65536" \
  "$cli" diagnose --target phase --steps 100000 --restarts 8 --train-len 65536
refused10 diagnose-fixed "^poslab-cli: error: --eval-lengths 1000000,1000000,1000000,1000000 with --train-len 1024, 3 --omega-cycles, 8 targets and --max-order 8 needs about" \
  "$cli" diagnose --fixed-kernel --eval-lengths 1000000,1000000,1000000,1000000 --max-order 8
refused10 diagnose-kernel-lm "^poslab-cli: error: --set L=10000000 \(order 8\) needs about .* over the budget of 5e\+10" \
  "$cli" diagnose --target mixed_raw --set L=10000000 --set order=8
expect_error budget-word "--budget: 'x' must be a number" "$cli" --budget x families
expect_error budget-zero "--budget: '0' must be a number" "$cli" kernel --family rope --budget 0
timeout 60 "$cli" --budget 100 kernel --family rope --lags 0:4 > /dev/null 2> "$tmp/err" && ok ||
  fail "--budget before the command: $(cat "$tmp/err")"

# p0 run directories: one writer at a time, --force included.
timeout 120 "$cli" train "${small[@]}" --steps 1000000 --out "$tmp/live" > /dev/null 2> "$tmp/live.err" &
live=$!
for _ in $(seq 400); do grep -q "^Training" "$tmp/live.err" 2>/dev/null && break; sleep 0.05; done
refused10 lock-force "--out $tmp/live is in use by another run \(pid [0-9]+\)" \
  "$cli" train "${small[@]}" --steps 1 --out "$tmp/live" --force
refused10 lock-resume "--out $tmp/live is in use by another run \(pid [0-9]+\)" \
  "$cli" train --resume --out "$tmp/live"
kill $live 2>/dev/null; wait $live 2>/dev/null
# Killed between the checkpoint and its metrics line: what that leaves is the checkpoint of step
# 2 with metrics.jsonl ending at step 1 and the pending line of step 2. --resume writes step 2's line
# (with its evaluation), then trains on.
timeout 120 "$cli" train "${small[@]}" --steps 4 --eval-every 2 --stop-after 2 --out "$tmp/cut" > /dev/null 2>&1
/usr/bin/python3 - "$tmp/cut" <<'PY' || fail "could not stage the cut run"
import json, sys
d = sys.argv[1]
lines = [json.loads(l) for l in open(d + "/metrics.jsonl")]
assert [l["step"] for l in lines] == [1, 2], lines
cut = dict(lines[1]); cut.pop("eval")
json.dump(cut, open(d + "/.metrics-pending.json", "w"))
open(d + "/metrics.jsonl", "w").write(json.dumps(lines[0]) + "\n")
open(d + "/.checkpoint.pt.tmp-999999999-1", "w").write("a write cut by a kill")
PY
timeout 120 "$cli" train --resume --out "$tmp/cut" > /dev/null 2> "$tmp/err"
/usr/bin/python3 -c "
import json
lines = [json.loads(l) for l in open('$tmp/cut/metrics.jsonl')]
assert [l['step'] for l in lines] == [1, 2, 3, 4], [l['step'] for l in lines]
assert 'eval' in lines[1] and 'eval' in lines[3]" && ok || fail "resume lost the cut line: $(cat "$tmp/err")"
ls -a "$tmp/cut" | grep -q "tmp-\|pending" && fail "a temporary is left in the run directory: $(ls -a "$tmp/cut")" || ok
# train --resume --out DIR as docs/DISTRIBUTED.md writes it: no --family needed.
timeout 120 "$cli" train "${small[@]}" --steps 2 --stop-after 1 --out "$tmp/res" > /dev/null 2>&1
timeout 120 "$cli" train --resume --out "$tmp/res" > /dev/null 2> "$tmp/err" && ok ||
  fail "train --resume --out DIR: $(cat "$tmp/err")"
# A file-size limit: the write fails with a message (was: killed by SIGXFSZ, exit 153), and no
# temporary is left.
(ulimit -f 8 && timeout 60 "$cli" train "${small[@]}" --steps 1 --out "$tmp/fsize" > /dev/null 2> "$tmp/err")
rc=$?
[ $rc -eq 2 ] && ok || fail "under ulimit -f: exit $rc, $(head -c 300 "$tmp/err")"
ls -a "$tmp/fsize" 2>/dev/null | grep -q "tmp-" && fail "ulimit -f left a temporary: $(ls -a "$tmp/fsize")" || ok

# p0 the smaller cases.
expect_error position-lr-nan "--position-lr: 'nan' must be a number in" \
  "$cli" run --preset jordan-kernel-lm --position-lr nan
# `run --preset jordan-kernel-lm-paper --steps 1 --seeds 0`, a quick look, took 504 s: --steps
# shortens only the training; --eval-sequences and --eval-lengths shorten the evaluation, and a
# refusal of what they changed names them.
timeout 300 "$cli" run --preset jordan-kernel-lm-paper --steps 1 --seeds 0 --families rope \
  --eval-sequences 2 --eval-lengths 1024 --json > "$tmp/quick.json" 2> "$tmp/err" &&
  python3 - "$tmp/quick.json" << 'PY' && ok || fail "quick look at a paper preset: $(tail -c 300 "$tmp/err")"
import json, sys
d = json.load(open(sys.argv[1]))
runs = d["results"]
assert len(runs) == 1 and runs[0]["family"] == "rope" and runs[0]["seed"] == 0, runs
assert [e["length"] for e in runs[0]["eval"]] == [1024], runs[0]["eval"]
PY
refused10 run-eval-lengths-budget "preset file '.*jordan-kernel-lm-paper.json' with --eval-lengths 4000000: field 'config.run.eval_lengths\[0\]'" \
  "$cli" run --preset jordan-kernel-lm-paper --eval-lengths 4000000
expect_error run-eval-sequences-0 "--eval-sequences: '0' must be a whole number in" \
  "$cli" run --preset jordan-kernel-lm-paper --eval-sequences 0
preset_refused dup-seed "'seeds\[1\]' repeats seed 0 \(also at \[0\]\)" 'd["seeds"] = [0, 0]'
preset_refused dup-family "'families\[1\]' repeats family \"rope\"" 'd["families"] = ["rope", "rope"]'
refused10 response-lags-1 "--lags: '1' must be a whole number in \[2, " \
  "$cli" response --checkpoint "$ck" --lags 1
expect_not response-lags-1 "9223372036854775807"
refused10 world-size-huge "WORLD_SIZE=1000000 is outside \[1, 4096\]" \
  env RANK=0 WORLD_SIZE=1000000 MASTER_ADDR=127.0.0.1 MASTER_PORT=29731 "$cli" train "${small[@]}" --out "$tmp/w1"
refused10 world-size-batch "--batch 2 is not a multiple of the 3 processes" \
  env RANK=0 WORLD_SIZE=3 MASTER_ADDR=127.0.0.1 MASTER_PORT=29731 "$cli" train "${small[@]}" --out "$tmp/w2"

# p2 long but legal work shows progress with an ETA on stderr and ends within a second of SIGTERM,
# leaving nothing half-written (a background job of a script ignores SIGINT, so SIGTERM stands for
# both here; a terminal's Ctrl-C ends these commands the same way).
stops_within_a_second() {  # stops_within_a_second NAME CMD...
  local name=$1; shift
  "$@" > "$tmp/slow.out" 2> "$tmp/slow.err" &
  local pid=$!
  # Up to 60 s for the first line: the first fit of a long request is slow under load.
  for _ in $(seq 1200); do grep -q "ETA [1-9]" "$tmp/slow.err" 2>/dev/null && break; sleep 0.05; done
  if ! grep -q "ETA [1-9]" "$tmp/slow.err"; then
    fail "$name: no progress line with an ETA: $(head -c 300 "$tmp/slow.err")"
    kill -KILL $pid 2>/dev/null; wait $pid 2>/dev/null; return
  fi
  local t0 rc ms
  t0=$(date +%s%N)
  kill -TERM $pid
  wait $pid
  rc=$? ms=$((($(date +%s%N) - t0) / 1000000))
  [ $rc -eq 143 ] && [ $ms -lt 1000 ] && ok || fail "$name: exit $rc, $ms ms after SIGTERM"
}
stops_within_a_second eval-progress "$cli" eval --checkpoint "$ck" --lengths 8 --eval-sequences 100000
stops_within_a_second response-progress "$cli" response --checkpoint "$ck" --length 64 \
  --samples 1000 --lags 63 --csv "$tmp/slow.csv"
# diagnose: the adaptive recovery counts Adam steps, the fixed one its fits (nothing is written).
stops_within_a_second diagnose-adaptive-progress "$cli" diagnose --target phase --steps 100000 --restarts 4
stops_within_a_second diagnose-fixed-progress "$cli" diagnose --fixed-kernel --eval-lengths 300000 \
  --omega-cycles 5,17,61
ls "$tmp" | grep -q "slow.csv" && fail "a stopped response left $(ls "$tmp" | grep slow.csv)" || ok

# p0 `poslab-cli lesson FILE` refuses every lesson the GUI refuses (lessons/window_state_check.h,
# the checks the GUI's validateSession shares): one step's state edited per case, named by step,
# state and field.
lesson="$tmp/lesson.json"
cat > "$lesson" <<'JSON'
{"format": "poslab-lesson-1", "title": "t", "summary": "s",
 "steps": [{"title": "a", "text": "b", "action": "c", "state": {"tab": "kernel"}},
           {"title": "a", "text": "b", "action": "c",
            "state": {"explorer": {"family": "rope", "values": {"base": 500}},
                      "views": {"kernel": {"lags": 256, "log_lag": true}}}}]}
JSON
"$cli" lesson "$lesson" > /dev/null 2> "$tmp/err" && ok || fail "the base lesson is refused: $(cat "$tmp/err")"
lesson_refused() {  # lesson_refused NAME MESSAGE PYTHON (s: step 2's state)
  mutate_json "$lesson" "$tmp/l-$1.json" "s = d['steps'][1]['state']; $3"
  expect_error "lesson-$1" "^poslab-cli: error: lesson file '$tmp/l-$1.json', step 2, state: $2" \
    timeout 10 "$cli" lesson "$tmp/l-$1.json"
}
lesson_refused unknown-family "field 'explorer.family': unknown family 'ropee'" 's["explorer"]["family"] = "ropee"'
lesson_refused value-range "field 'explorer.values.base' = 0.5 is outside \[1.0001, 1e\+09\] for family rope" \
  's["explorer"]["values"]["base"] = 0.5'
lesson_refused value-unknown "field 'explorer.values.gamma': family rope has no parameter 'gamma'" \
  's["explorer"]["values"]["gamma"] = 0.1'
lesson_refused value-fraction "field 'explorer.values.head_dim' = 7.5 must be a whole number" \
  's["explorer"]["values"]["head_dim"] = 7.5'
lesson_refused value-odd-head "field 'explorer.values': .*head_dim" 's["explorer"]["values"]["head_dim"] = 7'
lesson_refused value-word "field 'explorer.values.base' must be a number" 's["explorer"]["values"]["base"] = "x"'
lesson_refused no-family "field 'explorer.family' is missing" 'del s["explorer"]["family"]'
lesson_refused lags "field 'views.kernel.lags' = 100 is not one of 16, 32" 's["views"]["kernel"]["lags"] = 100'
lesson_refused lags-string "field 'views.kernel.lags' must be a whole number" 's["views"]["kernel"]["lags"] = "256"'
lesson_refused lagz "field 'views.kernel.lagz' is not a known field" 's["views"]["kernel"]["lagz"] = 256'
lesson_refused attention-T "field 'views.attention.T' = 1048576 is not one of" 's["views"]["attention"] = {"T": 1048576}'
lesson_refused attention-head "field 'views.attention.head' = 0 is outside \[1, 4096\]" 's["views"]["attention"] = {"head": 0}'
lesson_refused norms-huge "field 'views.norms.max_position' = 10000000 is not one of" 's["views"]["norms"] = {"max_position": 10000000}'
lesson_refused probe-target "field 'views.probe.target' = \"nope\" is not one of" 's["views"]["probe"] = {"target": "nope"}'
lesson_refused diagnostics-target "field 'views.diagnostics.target' = \"nope\" is not one of" 's["views"]["diagnostics"] = {"target": "nope"}'
lesson_refused overlay-unknown "field 'views.kernel.overlay\[0\]': unknown family 'nopee'" 's["views"]["kernel"]["overlay"] = ["nopee"]'
lesson_refused overlay-twice "field 'views.kernel.overlay' lists family 'alibi' twice" 's["views"]["kernel"]["overlay"] = ["alibi", "alibi"]'
lesson_refused overlay-many "field 'views.kernel.overlay' lists 4 families; the kernel view overlays at most 3" \
  's["views"]["kernel"]["overlay"] = ["alibi", "nope", "rope-pi", "rope-ntk"]'
lesson_refused tab "field 'tab' = \"kernal\" is not one of kernel\|attention" 's["tab"] = "kernal"'
lesson_refused tab-number "field 'tab' must be a string" 's["tab"] = 3'
lesson_refused trained-models "field 'trained_models' is not allowed" 's["trained_models"] = []'
lesson_refused format "field 'format' is \"x\", not \"poslab-session-1\"" 's["format"] = "x"'
lesson_refused unknown-top "field 'explorerr' is not a known field" 's["explorerr"] = {}'
lesson_refused views-array "field 'views' must be a JSON object, not an array" 's["views"] = []'
lesson_refused explorer-string "field 'explorer' must be a JSON object" 's["explorer"] = "rope"'
lesson_refused family-files "field 'family_files' must be an array" 's["family_files"] = {}'
# The work of the view a step shows (limits/view_work.h, the window's own check), with the steps
# before it over a fresh window: the same line as the GUI's (tests/ui/test_work_budgets.cpp).
wide='{"family": "rope-ntk-affine", "values": {"heads": 64, "head_dim": 1024}}'
lesson_refused work-probe "field 'explorer.values.L' = 200000: L 200000 with 6 families and 16 channels needs about .* multiply-adds, over the budget of 5e\+10" \
  's["tab"] = "probe"; s["explorer"] = {"family": "rope-pi", "values": {"L": 200000}}'
lesson_refused work-attention "field 'views.attention.T' = 1024: T 1024 \(64 heads of head_dim 1024\) needs about 6.9e\+10 multiply-adds" \
  "s['tab'] = 'attention'; s['explorer'] = $wide; s['views']['attention'] = {'T': 1024}"
lesson_refused work-norms "field 'views.norms.max_position' = 32768: largest position 32768 \(64 heads of head_dim 1024\) needs about" \
  "s['explorer'] = $wide; d['steps'][0]['state']['tab'] = 'norms'"
# A training step whose run is over the training tab's whole-run budget (a million steps of batch
# 8 at length 1024): the window refuses it when the step is loaded, with the same check
# (train/run_limits.h trainingRunBudgetProblem; tests/ui/test_training_controller.cpp).
lesson_refused work-training "field 'training.config': steps, batch and train length: 1000000 steps of batch 8 at length 1024 .*over the budget of 5e\+14 on a CPU" \
  's["training"] = {"name": "big", "families": ["rope"], "seeds": [0], "config": {"task": {"id": "kernel-lm", "train_length": 1024}, "optim": {"batch": 8}, "run": {"steps": 1000000}}}'
# Under --budget the same lesson passes, as under the window's --budget.
timeout 10 "$cli" --budget 5 lesson "$tmp/l-work-attention.json" > /dev/null 2> "$tmp/err" && ok ||
  fail "lesson under --budget 5: $(cat "$tmp/err")"
timeout 10 "$cli" --budget 20 lesson "$tmp/l-work-training.json" > /dev/null 2> "$tmp/err" && ok ||
  fail "training lesson under --budget 20: $(cat "$tmp/err")"

# p4 memory: the smallest address-space limit (ulimit -v) the program starts under, in steps of
# 50 MB from 500 MB (below it the loader or LibTorch's static initialisers fail before main:
# docs/LIMITS.md); no limit may leave it running (OpenBLAS's exit joined a thread it could not
# start, for ever, at 600-660 MB); just above the limit it starts at, an allocation that fails is
# exit 2 and one line, "out of memory" and the command.
start_mb=""
for mb in $(seq 500 50 3000); do
  (ulimit -v $((mb * 1024)) && POSLAB_THREADS=1 timeout 20 "$cli" families > /dev/null 2>&1)
  rc=$?
  [ $rc -eq 124 ] && fail "poslab-cli families did not end within 20 s under ulimit -v $mb MB"
  [ $rc -eq 0 ] && { start_mb=$mb; break; }
done
if [ -z "$start_mb" ]; then fail "poslab-cli families did not start under 3000 MB of address space"
else
  limit=$(((start_mb + 200) * 1024))
  (ulimit -v $limit && POSLAB_THREADS=1 timeout 10 "$cli" kernel --family rope --lags 0:8 > /dev/null 2> "$tmp/err") &&
    ok || fail "kernel under ulimit -v $limit KiB: $(head -c 300 "$tmp/err")"
  (ulimit -v $limit && POSLAB_THREADS=1 timeout 10 "$cli" --no-budget kernel --family rope --lags 0:16777216 > "$tmp/out" 2> "$tmp/err")
  rc=$?
  [ $rc -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] &&
    grep -q "^poslab-cli: error: out of memory while running \`kernel\` (.*ulimit -v" "$tmp/err" && ok ||
    fail "memory-kernel under ulimit -v $limit KiB: exit $rc, $(head -c 300 "$tmp/err")"
  # Threads that cannot start (each reserves a 64 MB stack here; OpenBLAS, which starts its own
  # before main, held to one): refused, where torch's pool waited for them for ever.
  refused10 threads-cannot-start "cannot start $most threads .*POSLAB_THREADS=1" \
    env OPENBLAS_NUM_THREADS=1 POSLAB_THREADS="$most" \
    bash -c "ulimit -v $((start_mb * 1024)) && ulimit -s 65536 && exec '$cli' families"
fi

# p4 a process limit (ulimit -u, which does not bind root: the cases run as nobody where the test
# runs as root). OpenBLAS, which starts its threads before main, starts none (it ended the program
# with its own message, exit 130); the threads torch would start are counted first and refused in
# one line (ulimit -u 3 hung in at::set_num_threads); one thread runs.
as_user=() nproc_cli=$cli
if [ "$(id -u)" -eq 0 ] && command -v setpriv > /dev/null; then
  as_user=(setpriv --reuid 65534 --regid 65534 --clear-groups)
  # nobody may not reach the build folder (a clone under /root, mode 700): a copy it can run.
  if ! "${as_user[@]}" test -x "$cli"; then
    nproc_dir=$(mktemp -d) && chmod 755 "$nproc_dir" && cp "$cli" "$nproc_dir/" &&
      nproc_cli=$nproc_dir/$(basename "$cli")
  fi
fi
if [ "$(id -u)" -ne 0 ] || command -v setpriv > /dev/null; then
  for n in 1 3; do
    timeout 20 "${as_user[@]}" bash -c "ulimit -u $n && exec '$nproc_cli' kernel --family rope --lags 0:4" \
      > /dev/null 2> "$tmp/nproc.err"
    rc=$?
    [ $rc -eq 2 ] && [ "$(wc -l < "$tmp/nproc.err")" -eq 1 ] &&
      grep -Eq "^poslab-cli: error: cannot start [0-9]+ threads? .*ulimit -u" "$tmp/nproc.err" &&
      ok || fail "under ulimit -u $n: exit $rc, $(head -c 300 "$tmp/nproc.err")"
  done
  timeout 20 "${as_user[@]}" env POSLAB_THREADS=1 bash -c "ulimit -u 3 && exec '$nproc_cli' kernel --family rope --lags 0:4" \
    > /dev/null 2> "$tmp/nproc.err" && ok || fail "one thread under ulimit -u 3: $(head -c 300 "$tmp/nproc.err")"
  [ -n "${nproc_dir:-}" ] && rm -rf "$nproc_dir"
else
  echo "note: running as root without setpriv; the ulimit -u cases are skipped"
fi

finish "cli bad input"
