#!/usr/bin/env bash
# poslab-cli as a user runs it: every command in table and JSON form, and bad input that must give
# one clear line on stderr with exit code 2 (never a crash, never a silent NaN).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/cli_test_lib.sh"

# expect_ok NAME CMD...: exits 0 and prints something.
expect_ok() {
  local name=$1; shift
  if "$@" > "$tmp/out" 2> "$tmp/err" && [ -s "$tmp/out" ]; then ok; else fail "$name: $(cat "$tmp/err")"; fi
}
# expect_error NAME PATTERN CMD...: exit code 2, one stderr line holding PATTERN (any case).
expect_error() {
  local name=$1 pattern=$2; shift 2
  check_refused "$name" -i "$pattern" "$@" && ok
}
json_has() {  # json_has NAME FILE JQ-LIKE-PYTHON-EXPR
  if /usr/bin/python3 -c "import json,sys; d=json.load(open('$2')); assert $3, 'assertion'" 2>"$tmp/pyerr"; then ok; else fail "$1: $(tail -1 "$tmp/pyerr")"; fi
}

# families: all 32 ids
expect_ok families "$cli" families
"$cli" families --json > "$tmp/f.json"
json_has families-json "$tmp/f.json" "len(d['families']) == 32 and all('params' in f for f in d['families'])"
for id in nope rope rope-pi rope-ntk rope-yarn rope-ntk-affine xpos alibi rope-alibi damped-rope \
          direct-sum jordan-exact jordan-stabilized jordan-stabilized-abs real-jordan jordan-no-gamma jordan-scaled jordan-m3 \
          jordan-m4 jordan-m3-exact jordan-m4-exact jordan-m3-scaled jordan-m4-scaled \
          jordan-m3-jetmix jordan-m4-jetmix jordan-m4-jetmix-full jordan-scaled-alibi \
          jordan-m3-jetmix-alibi jordan-m4-jetmix-full-alibi pj-bias pj-rotary pope; do
  json_has "family-$id" "$tmp/f.json" "'$id' in [f['id'] for f in d['families']]"
done

# kernel: JSON shape of the CLI contract
"$cli" kernel --family jordan-exact --set gamma=0.01 --set eta=0.2 --lags 0:32 --json > "$tmp/k.json"
json_has kernel-json "$tmp/k.json" "d['family']=='jordan-exact' and len(d['lags'])==32 and d['params']['gamma']==0.01 and len(d['basis'])==4 and len(d['kernel'])==32"
"$cli" kernel --family pj-bias --set order=2 --lags 0:8 --json > "$tmp/pj.json"
json_has kernel-pj-columns "$tmp/pj.json" "len(d['basis']) == 2*3 + 1 + 2*3 and 'affine' in d['basis']"
expect_ok kernel-table "$cli" kernel --family rope --lags 0:4
"$cli" kernel --family alibi --lags 0:8 --csv "$tmp/k.csv" > /dev/null
[ "$(wc -l < "$tmp/k.csv")" -eq 9 ] && ok || fail "kernel --csv wrote $(wc -l < "$tmp/k.csv") lines"

# probe: the reference's toy study (fit on d < 1024, MSE in the window and out to 8x it)
"$cli" probe --json > "$tmp/p.json"
json_has probe-toy-study "$tmp/p.json" "d['target']=='mixed' and d['train_length']==1024 and d['eval_lengths']==[1024,2048,4096,8192] and d['channels']==16 and d['ridge']==1e-4"
json_has probe-both-mse "$tmp/p.json" "all(r['mse_in_window']==r['mse_by_length']['1024'] and r['mse_extrapolated']==r['mse_by_length']['8192'] for r in d['results'])"
json_has probe-best-is-jordan "$tmp/p.json" "d['results'][0]['family']=='jordan-exact' and d['results'][0]['mse_in_window'] < 1e-4"
json_has probe-sorted-at-8x "$tmp/p.json" "[r['mse_extrapolated'] for r in d['results']]==sorted(r['mse_extrapolated'] for r in d['results'])"
expect_ok probe-table "$cli" probe --target damped_mixed
"$cli" probe --target phase --families rope --json > "$tmp/p2.json"
json_has probe-rope-phase-exact "$tmp/p2.json" "d['results'][0]['mse_extrapolated'] < 1e-12"

# norms, attention, diagnose
"$cli" norms --family jordan-exact --set gamma=0.01 --max-pos 32768 --json > "$tmp/n.json"
json_has norms-float32 "$tmp/n.json" "d['float32']['ok'] is False and 0 < d['float32']['first_bad_position'] < 32768"
json_has norms-float64 "$tmp/n.json" "d['float64']['ok'] is True"
json_has norms-lightcone-bounded "$tmp/n.json" "all(r['log10_lc_q_ratio'] <= 0.30103 + 1e-9 and r['log10_lc_k_ratio'] <= 0.30103 + 1e-9 for r in d['rows']) and d['lightcone_chart']['norm_bound']==2"
"$cli" attention --family rope --T 64 --out "$tmp/a.csv" --json > "$tmp/a.json"
json_has attention-toeplitz "$tmp/a.json" "d['logit_toeplitz_deviation'] < 1e-9"
[ "$(wc -l < "$tmp/a.csv")" -eq 64 ] && ok || fail "attention CSV rows"
"$cli" attention --family jordan-stabilized-abs --T 64 --out "$tmp/b.csv" --json > "$tmp/b.json"
json_has attention-abs-not-toeplitz "$tmp/b.json" "d['logit_toeplitz_deviation'] > 1e-3"
"$cli" diagnose --json > "$tmp/d.json"
json_has diagnose-fj1 "$tmp/d.json" "max([r for r in d['rows'] if r['sector'] != 'affine'], key=lambda r: r['mass_share'])['sector']=='FJ' and max([r for r in d['rows'] if r['sector'] != 'affine'], key=lambda r: r['mass_share'])['order']==1 and [r['mass_share'] for r in d['rows'] if r['sector'] == 'affine'] == [None]"
# diagnose a sector target: the adaptive recovery (small, float64 so the numbers are stable)
"$cli" diagnose --target phase,first_jet --train-len 128 --eval-len 256 --steps 300 --restarts 1 \
  --float64 --json > "$tmp/da.json"
json_has diagnose-adaptive "$tmp/da.json" "[r['target'] for r in d['results']]==['phase','first_jet'] and all(len(r['functional_energy'])==4 and len(r['leave_one_order_out_delta_mse'])==4 for r in d['results']) and d['results'][0]['top_order']==0 and d['config']['train_len']==128"
expect_ok diagnose-adaptive-table "$cli" diagnose --target lc_core --train-len 64 --eval-len 128 --steps 20 --restarts 1
# the fixed kernel recovery: first_jet = (d/L) cos(omega d) lies in jordan_R1's span, so that
# basis fits it to float64 round-off at every length; 15 bases x 2 lengths x 8 targets rows
"$cli" diagnose --fixed-kernel --train-len 64 --eval-lengths 64,128 --omega-cycles 3 --float64 \
  --json > "$tmp/fk.json"
json_has diagnose-fixed-kernel "$tmp/fk.json" "len(d['rows'])==8*15*2 and d['final_eval_len']==128 and [r for r in d['rows'] if r['target']=='first_jet' and r['basis']=='jordan_R1' and r['eval_len']==128][0]['mse'] < 1e-20 and 'jordan_R1' in [b for b in d['best'] if b['target']=='first_jet'][0]['exact_fits']"
expect_ok diagnose-fixed-kernel-table "$cli" diagnose --fixed-kernel --train-len 64 --eval-lengths 64,128 --omega-cycles 3,5 --target phase
"$cli" diagnose --target mixed_raw > "$tmp/mixed.txt" 2>&1
if grep -q "ill-conditioned" "$tmp/mixed.txt"; then ok; else fail "diagnose mixed_raw: no ill-conditioning warning"; fi

# bad input
expect_error unknown-family "unknown family 'bogus'" "$cli" kernel --family bogus
expect_error unknown-param "unknown parameter 'zeta'" "$cli" kernel --family rope --set zeta=1
expect_error nan-param "gamma = nan is not finite" "$cli" kernel --family damped-rope --set gamma=nan
expect_error inf-param "not finite" "$cli" kernel --family damped-rope --set gamma=inf
expect_error L-zero "L = 0 is out of range" "$cli" kernel --family jordan-stabilized --set L=0
expect_error L-negative "L = -5 is out of range" "$cli" kernel --family pj-bias --set L=-5
expect_error head-dim "head_dim = 10 is not divisible by 4" "$cli" kernel --family jordan-exact --set head_dim=10
expect_error map-too-big "over the 2 GiB budget" "$cli" attention --family rope --T 200000 --out "$tmp/x.csv"
expect_error bad-set "is not NAME=VALUE" "$cli" kernel --family rope --set gamma
expect_error bad-number "is not a number" "$cli" probe --set L=abc
expect_error bad-lags "is not A:B" "$cli" kernel --family rope --lags 12
expect_error empty-lags "empty or negative" "$cli" kernel --family rope --lags 5:5
expect_error missing-dir "does not exist" "$cli" attention --family rope --T 8 --out /nonexistent/dir/a.csv
expect_error unknown-target "unknown target kernel" "$cli" probe --target nope
expect_error no-command "" "$cli"
# Training: a tiny run writes config, metrics and a checkpoint that eval (and Python) can read.
"$cli" train --task kernel-lm --family jordan-stabilized --steps 6 --batch 4 --train-length 24 \
  --eval-lengths 24,96 --eval-sequences 4 --eval-every 3 --out "$tmp/run" --json > "$tmp/t.json" 2> "$tmp/t.err"
json_has train-json "$tmp/t.json" "d['task']=='kernel-lm' and d['results'][0]['family']=='jordan-stabilized' and [e['length'] for e in d['results'][0]['eval']]==[24,96] and 0 <= d['results'][0]['eval'][0]['accuracy'] <= 1"
[ "$(wc -l < "$tmp/run/metrics.jsonl")" -eq 6 ] && ok || fail "metrics.jsonl has $(wc -l < "$tmp/run/metrics.jsonl") lines, expected 6"
grep -q "step 6/6" "$tmp/t.err" && ok || fail "no progress bar on stderr"
# The evaluation schedule (training_loop.h): every --eval-every steps and after the last step,
# so 5 steps with --eval-every 2 evaluate after steps 2, 4 and 5.
"$cli" train --task kernel-lm --family rope --steps 5 --batch 2 --train-length 16 --eval-lengths 16 \
  --eval-sequences 2 --eval-every 2 --d-model 16 --layers 1 --out "$tmp/sched" --json > /dev/null 2>&1
/usr/bin/python3 -c "import json; print([json.loads(l)['step'] for l in open('$tmp/sched/metrics.jsonl') if 'eval' in json.loads(l)])" > "$tmp/sched.txt" 2>&1
[ "$(cat "$tmp/sched.txt")" = "[2, 4, 5]" ] && ok || fail "train --eval-every 2 --steps 5 evaluated after steps $(cat "$tmp/sched.txt"), expected [2, 4, 5]"
"$cli" eval --checkpoint "$tmp/run/checkpoint.pt" --lengths 24,48 --json > "$tmp/e.json"
# What the tiny run learned per lag, next to the task's kernel (CSV and JSON).
"$cli" response --checkpoint "$tmp/run/checkpoint.pt" --length 48 --samples 2 --lags 10 \
  --csv "$tmp/resp.csv" --json > "$tmp/r.json"
json_has response-json "$tmp/r.json" "d['length']==48 and d['train_length']==24 and len(d['lags'])==10 and d['lags'][0]==1 and d['lags'][-1]==47 and len(d['response'])==10 and -1 <= d['cosine'] <= 1 and 0 <= d['implied_accuracy'] <= 1"
[ "$(wc -l < "$tmp/resp.csv")" -eq 11 ] && ok || fail "response CSV has $(wc -l < "$tmp/resp.csv") lines, expected 11"
expect_ok response-table "$cli" response --checkpoint "$tmp/run/checkpoint.pt" --length 48 --samples 1 --lags 5
expect_error response-bad-length "length 1 is outside" "$cli" response --checkpoint "$tmp/run/checkpoint.pt" --length 1
expect_error response-negative-length "must be a length >= 2" "$cli" response --checkpoint "$tmp/run/checkpoint.pt" --length -5
expect_error response-zero-length "must be a length >= 2" "$cli" response --checkpoint "$tmp/run/checkpoint.pt" --length 0
expect_error bad-seeds "is not a list of seeds" "$cli" compare --task kernel-lm --families rope --seeds 0,-1
expect_ok seed-zero "$cli" compare --task kernel-lm --families rope --steps 1 --batch 2 --train-length 8 \
  --eval-lengths 8 --eval-sequences 2 --seeds 0,1
expect_error min-train-length "field 'task.min_train_length' = 32 must be 0 (off) or at most train_length 24" \
  "$cli" train --task kernel-lm --family rope --steps 1 --train-length 24 --min-train-length 32
expect_error negative-min-train-length "min-train-length" \
  "$cli" train --task kernel-lm --family rope --steps 1 --min-train-length -3
expect_ok variable-train-length "$cli" train --task kernel-lm --family rope --steps 2 --batch 4 \
  --train-length 24 --min-train-length 8 --eval-lengths 24 --eval-sequences 4 --out "$tmp/var"
json_has eval-json "$tmp/e.json" "[e['length'] for e in d['results'][0]['eval']]==[24,48]"
if /usr/bin/python3 -c "import torch" 2>/dev/null; then
  /usr/bin/python3 -c "
import torch, json
d = torch.load('$tmp/run/checkpoint.pt')
assert d['format'] == 'poslab-checkpoint-1' and d['step'] == 6
assert json.loads(d['config'])['model']['family'] == 'jordan-stabilized'
assert 'embed.weight' in d['model'] and d['model']['embed.weight'].shape[1] == 64
" && ok || fail "python torch.load of the checkpoint"
else
  echo "note: python3-torch not installed; skipping the torch.load round trip"
fi
"$cli" compare --task indirect-indexing --families rope,pope --steps 2 --batch 4 --train-length 24 \
  --eval-lengths 24 --eval-sequences 4 --checkpoints "$tmp/ii" --json > "$tmp/c.json" 2> /dev/null
json_has compare-json "$tmp/c.json" "[r['family'] for r in d['results']]==['rope','pope'] and d['results'][0]['eval'][0]['accuracy'] is not None"
# Several jobs: the same numbers as one, in the same order; a negative count is refused.
for j in 1 2; do
  "$cli" compare --task kernel-lm --families rope,jordan-stabilized --seeds 0,1 --steps 3 --batch 4 \
    --train-length 24 --eval-lengths 24 --eval-sequences 4 --jobs $j --json 2> /dev/null |
    /usr/bin/python3 -c "import json,sys; d=json.load(sys.stdin); print([(r['family'], r['seed'], r['eval']) for r in d['results']])" > "$tmp/jobs$j.txt"
done
if [ -s "$tmp/jobs1.txt" ] && cmp -s "$tmp/jobs1.txt" "$tmp/jobs2.txt"; then ok; else fail "compare --jobs 2 differs from --jobs 1"; fi
expect_error negative-jobs "--jobs: '-1' must be a whole number in \\[0, " "$cli" compare --task kernel-lm --families rope --steps 1 --jobs -1
expect_error response-wrong-task "bits-then-QUERY" "$cli" response --checkpoint "$tmp/ii/rope-seed0.pt"
# PoPE frequency usage (MATH 4.6): per layer, one share per frequency c, summing to 1; refusals.
"$cli" pope-usage --checkpoint "$tmp/ii/pope-seed0.pt" --length 24 --sequences 3 --json > "$tmp/pu.json"
json_has pope-usage-json "$tmp/pu.json" "d['family']=='pope' and d['length']==24 and d['sequences']==3 and len(d['layers'])==2 and all(len(l['usage'])==d['head_dim']==len(d['theta']) and abs(sum(l['usage'])-1)<1e-9 and 1 <= l['effective_frequencies'] <= d['head_dim'] for l in d['layers'])"
expect_ok pope-usage-table "$cli" pope-usage --checkpoint "$tmp/ii/pope-seed0.pt" --sequences 2
# RoPE, the paper's comparison: one share per rotary pair (head_dim / 2 frequencies).
"$cli" pope-usage --checkpoint "$tmp/ii/rope-seed0.pt" --length 24 --sequences 3 --json > "$tmp/ru.json"
json_has pope-usage-rope "$tmp/ru.json" "d['family']=='rope' and all(2*len(l['usage'])==d['head_dim']==2*len(d['theta']) and abs(sum(l['usage'])-1)<1e-9 for l in d['layers'])"
expect_error pope-usage-other "checkpoint '$tmp/run/checkpoint.pt': frequency usage needs a PoPE or RoPE run; this run's family is jordan-stabilized" \
  "$cli" pope-usage --checkpoint "$tmp/run/checkpoint.pt"
expect_error pope-usage-missing "checkpoint '$tmp/none.pt' does not exist" "$cli" pope-usage --checkpoint "$tmp/none.pt"
expect_error pope-usage-sequences "--sequences: '0' must be a whole number in \[1, 4096\]" \
  "$cli" pope-usage --checkpoint "$tmp/ii/pope-seed0.pt" --sequences 0
expect_error pope-usage-length "--length: '-3' must be a whole number in" \
  "$cli" pope-usage --checkpoint "$tmp/ii/pope-seed0.pt" --length -3
expect_error pope-usage-length-task "length 100000 is outside what task indirect-indexing can generate" \
  "$cli" pope-usage --checkpoint "$tmp/ii/pope-seed0.pt" --length 100000
expect_error pope-usage-no-checkpoint "--checkpoint is required" "$cli" pope-usage
expect_error train-unknown-task "field 'task.id': unknown task 'nonsense'" "$cli" train --task nonsense --family rope --steps 1
expect_error train-bad-length "field 'run.eval_lengths\[0\]' = 100000: task indirect-indexing cannot generate" "$cli" train --task indirect-indexing --family rope --steps 1 --eval-lengths 100000 --out "$tmp/bad"
expect_error eval-missing "checkpoint '$tmp/none.pt' does not exist" "$cli" eval --checkpoint "$tmp/none.pt"
echo "garbage" > "$tmp/garbage.pt"
expect_error eval-garbage "not a PosLab checkpoint" "$cli" eval --checkpoint "$tmp/garbage.pt"
expect_error preset-unknown "unknown preset" "$cli" run --preset nonsense

# task-kernel: a task's K(d) as the papers define it (values from python3 on the reference formulas).
"$cli" task-kernel --task sector-teacher --kernel phase --length 192 --train-length 96 --json > "$tmp/tk.json"
json_has task-kernel-json "$tmp/tk.json" "d['lags']==list(range(1,192)) and len(d['kernel'])==191 and abs(d['kernel'][0]-0.44228869021900125)<1e-12 and abs(d['kernel'][149]+0.92387953251128296)<1e-12"
"$cli" task-kernel --task kernel-lm --kernel mixed_raw --length 1024 --head-dim 32 --json > "$tmp/tk2.json"
json_has task-kernel-lm "$tmp/tk2.json" "abs(d['kernel'][99]-0.047164281146799311)<1e-12"
"$cli" task-kernel --task sector-teacher --kernel affine --length 4 --task-set omega=1 > "$tmp/tk.txt"
[ "$(wc -l < "$tmp/tk.txt")" -eq 5 ] && grep -q "^3 *-0.3$" "$tmp/tk.txt" && ok || fail "task-kernel table: $(cat "$tmp/tk.txt")"
expect_error task-kernel-no-kernel "has no target or teacher kernel" "$cli" task-kernel --task kv-retrieval --kernel x --length 64
expect_error task-kernel-unknown "unknown sector teacher 'jet1'" "$cli" task-kernel --task sector-teacher --kernel jet1 --length 8
expect_error task-kernel-length "must be at least 2" "$cli" task-kernel --task kernel-lm --kernel mixed_raw --length 1
expect_error task-kernel-option "has no option 'no_such'" "$cli" task-kernel --task kernel-lm --kernel mixed_raw --length 8 --set no_such=1
# Experiment files (presets, train --config) are read strictly, by one reader: a misspelt key, a
# wrong type or a value out of range is refused naming the file and the key, before anything runs.
base_preset="$tmp/base-preset.json"
cat > "$base_preset" <<'JSON'
{"name": "p", "families": ["rope"], "seeds": [0],
 "config": {"task": {"id": "sector-teacher", "kernel": "phase", "train_length": 8},
            "model": {"d_model": 16, "heads": 2, "layers": 1}, "optim": {"batch": 2},
            "run": {"steps": 1, "eval_lengths": [8], "eval_sequences": 2, "eval_every": 0}}}
JSON
mutate() { mutate_json "$base_preset" "$@"; }  # mutate OUT PYTHON
bad_preset() {  # bad_preset NAME PATTERN PYTHON
  mutate "$tmp/bad-$1.json" "$3"
  expect_error "preset-$1" "$2" "$cli" run --preset "$tmp/bad-$1.json"
}
bad_config() {  # bad_config NAME PATTERN PYTHON: the base preset's config as a --config file
  mutate "$tmp/badc-$1.json" "$3; d = d['config']"
  expect_error "config-$1" "$2" "$cli" train --family rope --config "$tmp/badc-$1.json" --out "$tmp/badc"
}
bad_preset learning_rate "'$tmp/bad-learning_rate.json': field 'config.optim.learning_rate' is not a known field" \
  'd["config"]["optim"]["learning_rate"] = 0.1'
bad_preset dmodel "field 'config.model.dmodel' is not a known field" 'd["config"]["model"]["dmodel"] = 16'
bad_preset seed "field 'seed' is not a known field (known here: name, description" 'd["seed"] = 1'
bad_preset descripton "field 'descripton' is not a known field" 'd["descripton"] = "x"'
bad_preset kernal "field 'variants\[0\].kernal' is not a known field" 'd["variants"] = [{"kernal": "first_jet"}]'
bad_preset negative-seed "field 'seeds\[0\]' = -1 must not be negative" 'd["seeds"] = [-1]'
bad_preset no-seeds "field 'seeds' is empty" 'd["seeds"] = []'
bad_preset no-families "field 'families' is empty" 'd["families"] = []'
bad_preset true-number "field 'config.optim.lr' must be a number, not true" 'd["config"]["optim"]["lr"] = True'
bad_preset fraction "field 'config.run.steps' must be a whole number, not 3.7" 'd["config"]["run"]["steps"] = 3.7'
bad_preset train-length "field 'config.task.train_length' = 1e+09 is out of range (allowed \[2, 65536\])" \
  'd["config"]["task"]["train_length"] = 1e9'
bad_preset steps "field 'config.run.steps' = 9223372036854775807 is out of range (allowed \[0, 1000000\])" \
  'd["config"]["run"]["steps"] = 9223372036854775807'
bad_preset lr "field 'config.optim.lr' = 1e+308 is out of range" 'd["config"]["optim"]["lr"] = 1e308'
bad_preset batch "field 'config.optim.batch' = 1000000000 is out of range" 'd["config"]["optim"]["batch"] = 1000000000'
echo '[1, 2]' > "$tmp/array.json"
expect_error preset-array "preset file '$tmp/array.json' must hold a JSON object" "$cli" run --preset "$tmp/array.json"
{ cat "$base_preset"; echo ' x'; } > "$tmp/trailing.json"
expect_error preset-trailing "'$tmp/trailing.json': not valid JSON" "$cli" run --preset "$tmp/trailing.json"
bad_config learning_rate "--config '$tmp/badc-learning_rate.json': field 'optim.learning_rate' is not a known field" \
  'd["config"]["optim"]["learning_rate"] = 0.1'
bad_config step "field 'run.step' is not a known field" 'd["config"]["run"]["step"] = 5'
bad_config dmodel "field 'model.dmodel' is not a known field" 'd["config"]["model"]["dmodel"] = 16'
bad_config train_len "field 'task.train_len' is not a known field" 'd["config"]["task"]["train_len"] = 8'
bad_config lr "field 'optim.lr' = 1e+308 is out of range" 'd["config"]["optim"]["lr"] = 1e308'
bad_config batch "field 'optim.batch' = 1000000000 is out of range" 'd["config"]["optim"]["batch"] = 1000000000'
expect_error config-array "--config '$tmp/array.json' must hold a JSON object" "$cli" train --family rope --config "$tmp/array.json"
# The valid files train; a variant sets the teacher its runs are reported under.
mutate "$tmp/good-config.json" 'd = d["config"]'
expect_ok config-file "$cli" train --family rope --config "$tmp/good-config.json" --out "$tmp/goodc"
mutate "$tmp/variants.json" 'd["variants"] = [{"kernel": "first_jet"}, {"kernel": "affine"}]'
"$cli" run --preset "$tmp/variants.json" --json > "$tmp/v.json" 2> /dev/null
json_has preset-variants "$tmp/v.json" "[r['variant'] for r in d['results']] == ['first_jet', 'affine']"
# Options that used to be accepted silently (exit 0): each is refused with one line naming it.
tiny=(--task kernel-lm --steps 1 --batch 2 --train-length 8 --eval-lengths 8 --eval-sequences 2)
expect_error train-length-zero "--train-length: '0' must be a whole number in \[2, 65536\]" \
  "$cli" train --task kernel-lm --family rope --steps 1 --train-length 0 --out "$tmp/r0"
expect_error eval-every-negative "--eval-every: '-1'" \
  "$cli" train "${tiny[@]}" --family rope --eval-every -1 --out "$tmp/r1"
expect_error eval-sequences-zero "--eval-sequences: '0'" \
  "$cli" train --task kernel-lm --family rope --steps 1 --eval-sequences 0 --out "$tmp/r2"
expect_error eval-sequences-negative "--eval-sequences: '-5'" \
  "$cli" train --task kernel-lm --family rope --steps 1 --eval-sequences -5 --out "$tmp/r3"
expect_error pin-not-learned "cannot pin 'gamma': family rope does not learn it" \
  "$cli" train "${tiny[@]}" --family rope --pin gamma --out "$tmp/r4"
# Several families: a pin holds in each family that learns it, and one that none learns is refused.
expect_error compare-pin-none-learns "cannot pin 'eta': none of the families rope, alibi learns it" \
  timeout 20 "$cli" compare --task kernel-lm --families rope,alibi --pin eta --steps 1000
if "$cli" compare "${tiny[@]}" --families jordan-stabilized,rope --pin eta --out "$tmp/cpin" \
    > /dev/null 2> "$tmp/cpin.err"; then
  json_has compare-pin-jordan "$tmp/cpin/runs/001-jordan-stabilized-seed0.json" \
    "d['config']['model']['pinned'] == ['eta'] and 'eta' not in d['result']['position']"
  json_has compare-pin-rope "$tmp/cpin/runs/002-rope-seed0.json" "d['config']['model']['pinned'] == []"
else
  fail "compare-pin: $(tail -1 "$tmp/cpin.err")"
fi
expect_error text-without-text-task "--text is given but task kernel-lm takes no text" \
  "$cli" train "${tiny[@]}" --family rope --text "$tmp/t.json" --out "$tmp/r5"
expect_error eval-sequences-eval "--eval-sequences: '0'" \
  "$cli" eval --checkpoint "$tmp/run/checkpoint.pt" --eval-sequences 0
expect_error run-steps-zero "--steps: '0' must be a whole number in \[1, 1000000\]" \
  "$cli" run --preset jordan-kernel-lm --steps 0
expect_error run-steps-negative "--steps: '-1'" "$cli" run --preset jordan-kernel-lm --steps -1
expect_error run-eval-data-word "--eval-data: 'x' must be a whole number" \
  "$cli" run --preset jordan-kernel-lm --eval-data x
expect_error run-position-lr-zero "--position-lr: '0' must be a number in" \
  "$cli" run --preset jordan-kernel-lm --position-lr 0
expect_error run-device-word "--device: .*not in {auto,cpu,cuda}" \
  "$cli" run --preset jordan-kernel-lm --device gpu
# The paper-size retrieval preset is for a GPU: without CUDA it names run.device; on a CPU its
# evaluation is refused by the CPU budget, before any step.
expect_error run-gpu-preset-device "field 'config.run.device' = \"cuda\": this LibTorch build or machine has no CUDA" \
  "$cli" run --preset kv-retrieval-paper
expect_error run-gpu-preset-on-cpu "evaluation at length 1024 with 1280 sequences needs about .* over the budget of 2e+12 on a CPU" \
  timeout 20 "$cli" run --preset kv-retrieval-paper --device cpu
# Sector teachers report the final query's attention spread (at most ln 15 over 15 keys) and the
# teacher's; --eval-data lands in the run's config. Without --kernel the teacher is the PJ-RoPE
# reference's default target, recency_weak_jet.
"$cli" train --task sector-teacher --family pj-bias --steps 2 \
  --train-length 16 --eval-lengths 16,32 --eval-data 3 --out "$tmp/st" --json > "$tmp/st.json" 2>/dev/null
json_has sector-default-teacher "$tmp/st/config.json" "d['task']['kernel'] == 'recency_weak_jet'"
json_has sector-final-query "$tmp/st.json" \
  "0 < d['results'][0]['eval'][0]['final_query_entropy'] <= __import__('math').log(15) + 1e-9 and 1 <= d['results'][0]['eval'][1]['final_query_support'] <= 31 and d['results'][0]['teacher_entropy'] > 0"
json_has eval-data-config "$tmp/st/config.json" "d['run']['eval_data'] == 3"
# --recompute-activations trains (past the fused kernel's tile of 128) and lands in the config.
"$cli" train --task kernel-lm --family jordan-stabilized --steps 2 --train-length 140 \
  --batch 2 --eval-lengths 140 --eval-sequences 2 --recompute-activations --out "$tmp/rc" \
  --json > "$tmp/rc.json" 2>/dev/null
json_has recompute-config "$tmp/rc/config.json" "d['run']['recompute_activations'] is True"
json_has recompute-trains "$tmp/rc.json" "d['results'][0]['eval'][0]['loss'] > 0"
expect_error probe-no-families "--families is given an empty value" "$cli" probe --families ''
expect_error probe-comma-families "--families ',' names no family" "$cli" probe --families ','
expect_error compare-duplicate-family "--families lists 'rope' twice" \
  "$cli" compare "${tiny[@]}" --families rope,rope
expect_error compare-duplicate-seed "--seeds lists '1' twice" \
  "$cli" compare "${tiny[@]}" --families rope --seeds 1,1
expect_error seed-negative "--seed: '-1' must be a whole number from 0 to 18446744073709551615" \
  "$cli" train "${tiny[@]}" --family rope --seed -1 --out "$tmp/r6"
expect_error diagnose-gamma-nan "gamma = nan is not finite" "$cli" diagnose --set gamma=nan
expect_error diagnose-gamma-inf "gamma = inf is not finite" "$cli" diagnose --set gamma=inf
expect_error diagnose-gamma-negative "gamma = -3 is out of range" "$cli" diagnose --set gamma=-3
expect_error diagnose-steps-kernel "--steps applies to sector targets" "$cli" diagnose --target mixed_raw --steps 5
expect_error diagnose-set-sector "--set applies to kernel-LM targets" "$cli" diagnose --target phase --set gamma=1
expect_error diagnose-unknown "unknown target 'bogus'" "$cli" diagnose --target bogus
expect_error diagnose-restarts-zero "--restarts: '0'" "$cli" diagnose --target phase --restarts 0
expect_error diagnose-lr-zero "lr 0 is out of range" "$cli" diagnose --target phase --lr 0
expect_error diagnose-fixed-steps "--steps applies to the adaptive recovery" "$cli" diagnose --fixed-kernel --steps 5
expect_error diagnose-eval-lengths-adaptive "--eval-lengths applies to --fixed-kernel" "$cli" diagnose --target phase --eval-lengths 64,128
expect_error diagnose-cycles-list-adaptive "--omega-cycles takes one value here" "$cli" diagnose --target phase --omega-cycles 5,17
expect_error diagnose-fixed-kernel-lm "--fixed-kernel fits sector targets" "$cli" diagnose --fixed-kernel --target mixed_raw
expect_error diagnose-fixed-cycles-range "omega cycles 40 is out of range" "$cli" diagnose --fixed-kernel --train-len 64 --omega-cycles 40
expect_error diagnose-fixed-work "^poslab-cli: error: --eval-lengths 1000000,1000000,1000000,1000000 with --train-len 65536, 3 --omega-cycles, 8 targets and --max-order 3 needs about .* multiply-adds, over the budget of 2e.12" "$cli" diagnose --fixed-kernel --train-len 65536 --eval-lengths 1000000,1000000,1000000,1000000 --omega-cycles 5,17,61
expect_error probe-channels "channels = 40 is out of range" "$cli" probe --set channels=40
expect_error probe-order3-head-dim "probe of jordan-m3 (head_dim 64)" "$cli" probe --families jordan-m3
# Output that cannot be written (a full disk) is an error, not exit 0.
expect_full() {  # expect_full NAME CMD...: stdout on /dev/full gives exit 2 and a line saying so
  local name=$1; shift
  "$@" > /dev/full 2> "$tmp/err"
  local rc=$?
  if [ $rc -ne 2 ]; then fail "$name: exit $rc with stdout on /dev/full, expected 2"; return; fi
  grep -q "writing standard output failed" "$tmp/err" && ok || fail "$name: stderr '$(cat "$tmp/err")'"
}
expect_full kernel-full "$cli" kernel --family rope --lags 0:4
expect_full kernel-json-full "$cli" kernel --family rope --lags 0:4 --json
expect_full probe-full "$cli" probe --families rope

# Runaways are refused up front, naming the bound (timeout: a regression hangs instead of failing).
expect_error train-length-huge "--train-length: '1000000000' must be a whole number in \[2, 65536\]" \
  timeout 20 "$cli" train --task kernel-lm --family rope --train-length 1000000000 --out "$tmp/h1"
expect_error steps-huge "--steps: '9223372036854775807' must be a whole number in \[0, 1000000\]" \
  timeout 20 "$cli" train --task kernel-lm --family rope --steps 9223372036854775807 --out "$tmp/h2"
expect_error eval-length-budget "evaluation at length 1048576 with 64 sequences needs about" \
  timeout 20 "$cli" train --task kernel-lm --family rope --steps 1 --eval-lengths 1048576 --out "$tmp/h3"
[ ! -e "$tmp/h3/checkpoint.pt" ] && ok || fail "a refused evaluation length still trained"
expect_error eval-command-budget "over the budget" \
  timeout 20 "$cli" eval --checkpoint "$tmp/run/checkpoint.pt" --lengths 1048576
expect_error kernel-lags-budget "--lags 0:16777216 (16777216 lags) needs about .* over the budget of" \
  timeout 20 "$cli" kernel --family jordan-exact --lags 0:16777216
# The checkpoint is written before the final evaluation, which reports progress on stderr: a kill
# while it evaluates keeps the trained model.
"$cli" train --task kernel-lm --family rope --steps 2 --batch 2 --train-length 8 --d-model 16 \
  --heads 1 --layers 1 --eval-every 0 --eval-lengths 4096 --eval-sequences 256 --out "$tmp/kill" \
  > /dev/null 2> "$tmp/kill.err" &
pid=$!
for _ in $(seq 600); do grep -q "^evaluation" "$tmp/kill.err" 2>/dev/null && break; sleep 0.05; done
kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
grep -q "^evaluation .* sequences" "$tmp/kill.err" && ok || fail "no evaluation progress on stderr: $(cat "$tmp/kill.err")"
if [ -e "$tmp/kill/summary.json" ]; then
  echo "note: the evaluation ended before the kill; checkpoint order not exercised"
else
  expect_ok killed-during-eval "$cli" eval --checkpoint "$tmp/kill/checkpoint.pt" --lengths 8 --eval-sequences 2
fi

# An earlier run in --out is kept unless --force; a bad --checkpoints fails before training.
expect_error out-existing "--out $tmp/run already holds a run (config.json)" \
  "$cli" train "${tiny[@]}" --family rope --out "$tmp/run"
expect_ok out-force "$cli" train "${tiny[@]}" --family rope --out "$tmp/var" --force
"$cli" train --help | grep -q -- "--force" && ok || fail "train --help lacks --force"
echo "not a directory" > "$tmp/plain"
expect_error checkpoints-file "--checkpoints $tmp/plain exists and is not a directory" \
  timeout 20 "$cli" compare --task kernel-lm --steps 1000 --train-length 8 --families rope \
  --checkpoints "$tmp/plain"

# Messages name the file: special files and bad JSON are refused quickly (no hang, no abort).
mkfifo "$tmp/fifo"
expect_error checkpoint-fifo "$tmp/fifo" timeout 20 "$cli" eval --checkpoint "$tmp/fifo"
expect_error config-fifo "$tmp/fifo" timeout 20 "$cli" train --family rope --config "$tmp/fifo" --out "$tmp/f1"
expect_error preset-fifo "$tmp/fifo" timeout 20 "$cli" run --preset "$tmp/fifo"
expect_error checkpoint-dev-zero "/dev/zero" timeout 20 "$cli" eval --checkpoint /dev/zero
expect_error config-dev-zero "/dev/zero" timeout 20 "$cli" train --family rope --config /dev/zero --out "$tmp/f2"
mkdir -p "$tmp/adir"
expect_error checkpoint-dir "$tmp/adir" "$cli" eval --checkpoint "$tmp/adir"
expect_error preset-dir "$tmp/adir" "$cli" run --preset "$tmp/adir"
echo '{"families": ["damped-rope"], "config": {"model": {"family_params": {"gamma": 1e400}}}}' > "$tmp/huge.json"
expect_error preset-1e400 "$tmp/huge.json" "$cli" run --preset "$tmp/huge.json" --steps 1
expect_error unknown-command "unknown command 'bogus'.*train" "$cli" bogus

# kv-retrieval reports accuracy against key distance (the distance points below T - 2) in its eval.
"$cli" train --task kv-retrieval --family rope --steps 1 --batch 2 --train-length 100 \
  --eval-lengths 120 --eval-sequences 2 --out "$tmp/kvd" > "$tmp/kvd.txt" 2>&1
grep -q "acc@d=64" "$tmp/kvd.txt" && ok || fail "train's table has no accuracy against key distance"
tail -n 1 "$tmp/kvd/metrics.jsonl" > "$tmp/kvd-last.json"
json_has kv-accuracy-by-distance "$tmp/kvd-last.json" \
  "list(d['eval'][0]['accuracy_by_distance'].keys())==['64'] and 0<=d['eval'][0]['accuracy_by_distance']['64']<=1"

# A failed write keeps the previous file.
echo "previous" > "$tmp/keep.csv"
chmod 500 "$tmp" 2>/dev/null
if [ "$(id -u)" -ne 0 ]; then
  "$cli" attention --family rope --T 8 --out "$tmp/keep.csv" > /dev/null 2>&1
  [ "$(cat "$tmp/keep.csv")" = "previous" ] && ok || fail "a failed write replaced the previous file"
fi
chmod 700 "$tmp"

finish cli
