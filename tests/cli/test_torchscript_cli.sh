#!/usr/bin/env bash
# Issue #32: a family written in PyTorch, `--family file:PATH.pt`, in every command that takes a
# family; hostile files refused with exit code 2 and one line; a checkpoint that reopens without
# the original file. POSLAB_TS_DIR holds the modules (tests/torchscript/write_modules.py).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/cli_test_lib.sh"
dir="${POSLAB_TS_DIR:?set POSLAB_TS_DIR to the written modules}"
examples="$(dirname "${BASH_SOURCE[0]}")/../../resources/encodings"

json_has() {  # json_has NAME FILE PYTHON-EXPR over d
  if /usr/bin/python3 -c "import json,sys; d=json.load(open('$2')); assert $3, 'assertion'" 2>"$tmp/pyerr"; then ok; else fail "$1: $(tail -1 "$tmp/pyerr")"; fi
}
run_ok() {  # run_ok NAME CMD...: exit 0
  local name=$1; shift
  if timeout 300 "$@" > "$tmp/out" 2> "$tmp/err"; then ok; else fail "$name: exit $? $(head -c 400 "$tmp/err")"; fi
}

rope="file:$dir/rope.pt"

# The explorer's commands: kernel, attention, norms, probe.
"$cli" kernel --family "$rope" --lags 0:16 --json > "$tmp/k.json" 2> "$tmp/err"
"$cli" kernel --family rope --lags 0:16 --json > "$tmp/k0.json"
json_has kernel-equals-rope "$tmp/k.json" "max(abs(a-b) for a,b in zip(d['kernel'], json.load(open('$tmp/k0.json'))['kernel'])) < 1e-12"
"$cli" attention --family "$rope" --T 32 --out "$tmp/a.csv" --json > "$tmp/a.json" 2> "$tmp/err"
json_has attention-toeplitz "$tmp/a.json" "d['logit_toeplitz_deviation'] < 1e-9"
run_ok norms "$cli" norms --family "file:$dir/damped.pt" --set gamma=0.01 --max-pos 4096 --json
run_ok probe "$cli" probe --target phase --families "rope,$rope" --json

# Settings: --set is checked against the metadata's ranges; heads/head_dim are PosLab's.
check_refused set-out-of-range -i "gamma" "$cli" kernel --family "file:$dir/damped.pt" --set gamma=99 && ok
check_refused no-kernel -i "kernel view is not available" "$cli" kernel --family "file:$dir/linear_bias.pt" && ok

# Hostile files: exit 2, one line naming the file and the method.
check_refused not-torchscript -i "not a TorchScript module" "$cli" kernel --family "file:$dir/not_torchscript.pt" && ok
check_refused missing-file -i "missing.pt" "$cli" attention --family "file:$dir/missing.pt" --out "$tmp/x.csv" && ok
check_refused wrong-signature -i "scores: wrong signature" "$cli" norms --family "file:$dir/bad_signature.pt" && ok
check_refused wrong-shape -i "scores: returned shape" "$cli" attention --family "file:$dir/bad_shape.pt" --out "$tmp/x.csv" && ok
check_refused nan -i "NaN" "$cli" kernel --family "file:$dir/bad_nan.pt" && ok
check_refused non-causal -i "depends on more than its own query and key" "$cli" attention --family "file:$dir/bad_noncausal.pt" --out "$tmp/x.csv" && ok
check_refused huge -i "factorize" "$cli" norms --family "file:$dir/bad_huge.pt" && ok
check_refused raises -i "scores: raised" "$cli" kernel --family "file:$dir/bad_raises.pt" && ok
check_refused false-relative -i "relative" "$cli" kernel --family "file:$dir/bad_relative.pt" && ok
check_refused train-bad -i "bad_nan.pt" "$cli" train --task kernel-lm --family "file:$dir/bad_nan.pt" --steps 2 --out "$tmp/never" && ok
check_refused compare-bad -i "bad_raises.pt" "$cli" compare --task kernel-lm --families "rope,file:$dir/bad_raises.pt" --steps 2 && ok

# Training, compare, checkpoint: the run reopens with the module's copy inside the checkpoint.
cp "$dir/damped.pt" "$tmp/mine.pt"
run_ok train "$cli" train --task kernel-lm --family "file:$tmp/mine.pt" --steps 3 --batch 2 --train-length 16 \
  --d-model 16 --heads 2 --layers 1 --eval-lengths 16,32 --eval-sequences 2 --out "$tmp/run" --json
cp "$tmp/out" "$tmp/t.json"
json_has train-json "$tmp/t.json" "d['results'][0]['family'].endswith('mine.pt') and len(d['results'][0]['eval']) == 2"
rm "$tmp/mine.pt"
run_ok eval-without-file "$cli" eval --checkpoint "$tmp/run/checkpoint.pt" --lengths 16 --eval-sequences 2 --json
run_ok compare "$cli" compare --task kernel-lm --families "rope,$rope" --steps 2 --batch 2 --train-length 16 \
  --d-model 16 --heads 2 --layers 1 --eval-lengths 16 --eval-sequences 2 --out "$tmp/cmp" --json

# `run` with a preset (the experiment format) that puts a loaded family beside rope and pope on
# indirect indexing, its family_params included; --families picks it alone.
cp "$dir/damped.pt" "$tmp/preset-mine.pt"
mine="file:$tmp/preset-mine.pt"
cat > "$tmp/mine-preset.json" <<EOF
{"name": "mine-vs-rope-pope", "description": "a loaded family beside rope and pope",
 "architecture": "poslab", "families": ["$mine", "rope", "pope"], "seeds": [0],
 "family_params": {"$mine": {"gamma": 0.02}},
 "config": {"task": {"id": "indirect-indexing", "options": {"alphabet": 16, "max_offset": 1},
                     "train_length": 12},
            "model": {"d_model": 16, "heads": 2, "layers": 1}, "optim": {"batch": 4},
            "run": {"steps": 2, "eval_lengths": [12], "eval_sequences": 4, "eval_every": 0}}}
EOF
run_ok run-preset "$cli" run --preset "$tmp/mine-preset.json" --json
cp "$tmp/out" "$tmp/r.json"
json_has run-preset-json "$tmp/r.json" "[r['family'] for r in d['results']] == ['$mine', 'rope', 'pope'] and abs(d['results'][0]['position']['gamma'][0] - 0.02) < 0.01"
run_ok run-preset-subset "$cli" run --preset "$tmp/mine-preset.json" --families "$mine" --json
cp "$tmp/out" "$tmp/rs.json"
json_has run-preset-subset-json "$tmp/rs.json" "[r['family'] for r in d['results']] == ['$mine']"

# Pins: the loaded family's learned parameter declares its pin, which holds it; a pin it does
# not learn is refused, naming what it learns.
run_ok pin "$cli" train --task kernel-lm --family "$mine" --set gamma=0.02 --pin gamma --steps 3 \
  --batch 2 --train-length 16 --d-model 16 --heads 2 --layers 1 --eval-lengths 16 \
  --eval-sequences 2 --position-lr 100 --json
cp "$tmp/out" "$tmp/pin.json"
json_has pin-held "$tmp/pin.json" "d['results'][0]['position']['gamma'] == [0.02, 0.02]"
check_refused pin-not-learned -i "it learns gamma" "$cli" train --task kernel-lm --family "$mine" --pin eta --steps 2 && ok

# The two documented examples load and train.
for ex in rope_decay alibi_scaled; do
  /usr/bin/python3 "$examples/$ex.py" "$tmp/$ex.pt" > /dev/null 2>&1 || fail "$ex.py did not write its module"
  run_ok "example-$ex" "$cli" train --task kernel-lm --family "file:$tmp/$ex.pt" --steps 2 --batch 2 \
    --train-length 16 --d-model 16 --heads 2 --layers 1 --eval-lengths 16 --eval-sequences 2 --out "$tmp/ex-$ex"
done

finish "cli.torchscript"
