#!/usr/bin/env bash
# Issue 32's "Done means" from the command line, as a user walks through it: the ~30-line module
# of tests/ui/my_encoding.py (RoPE whose frequencies turn at a learned speed per head), written
# with the system's Python torch; its kernel at another speed (the formula, computed here); a
# compare run against rope and pope on indirect indexing; a run of its own stopped with its
# checkpoint; then, in another folder with the module's file deleted ("another machine"), the
# checkpoint evaluated and the run continued to its end, while the file itself is refused naming it.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/cli_test_lib.sh"
script="$(cd "$(dirname "${BASH_SOURCE[0]}")/../ui" && pwd)/my_encoding.py"

json_has() {  # json_has NAME FILE PYTHON-EXPR over d
  if /usr/bin/python3 -c "import json,math,sys; d=json.load(open('$2')); assert $3, 'assertion'" 2>"$tmp/pyerr"; then ok; else fail "$1: $(tail -1 "$tmp/pyerr")"; fi
}
run_ok() {  # run_ok NAME CMD...: exit 0, stdout in $tmp/out
  local name=$1; shift
  if timeout 600 "$@" > "$tmp/out" 2> "$tmp/err"; then ok; else fail "$name: exit $? $(head -c 400 "$tmp/err")"; fi
}

mkdir -p "$tmp/user" "$tmp/another-machine"
module="$tmp/user/my_encoding.pt"
run_ok write-module /usr/bin/python3 "$script" "$module"
fam="file:$module"
small=(--train-length 24 --batch 4 --d-model 16 --heads 2 --layers 1 --eval-lengths 24,30
       --eval-sequences 4 --eval-every 0)

# Its kernel at speed 2 (the slider's counterpart): K(d) = mean_c cos(2 θ_c d), θ_c = 10000^(−2c/D)
# over D/2 pairs; D is the head_dim the command reports.
run_ok kernel "$cli" kernel --family "$fam" --set speed=2 --lags 0:32 --json
cp "$tmp/out" "$tmp/k.json"
json_has kernel-formula "$tmp/k.json" "(lambda D: max(abs(k - sum(math.cos(2 * 10000 ** (-2 * c / D) * l) for c in range(D // 2)) / (D // 2)) for l, k in zip(d['lags'], d['kernel'])) < 1e-12)(int(d['params']['head_dim']))"
json_has kernel-moved "$tmp/k.json" "max(abs(k - 1) for k in d['kernel'][1:]) > 1e-3"

# Compare mode: it, rope and pope on indirect indexing, identical batches.
run_ok compare "$cli" compare --task indirect-indexing --families "$fam,rope,pope" --steps 4 \
  "${small[@]}" --checkpoints "$tmp/user/compare" --json
cp "$tmp/out" "$tmp/c.json"
json_has compare-three "$tmp/c.json" "[r['family'] for r in d['results']] == ['$fam', 'rope', 'pope'] and all(math.isfinite(r['eval'][0]['loss']) for r in d['results'])"
# At its default speed 1 the module is RoPE; its learned speed moved in the 4 steps.
json_has compare-speed-learned "$tmp/c.json" "max(abs(v - 1) for v in d['results'][0]['position']['speed']) > 1e-7"

# A run of its own, stopped after 3 of 6 steps with its checkpoint.
run_ok train "$cli" train --task indirect-indexing --family "$fam" --steps 6 --stop-after 3 \
  "${small[@]}" --out "$tmp/user/run" --json

# "Another machine": the run folder and the compare checkpoints elsewhere, the module gone.
mv "$tmp/user/run" "$tmp/user/compare" "$tmp/another-machine/"
rm "$module"
cd "$tmp/another-machine"
check_refused file-is-gone -F "$module" "$cli" kernel --family "$fam" && ok
run_ok eval "$cli" eval --checkpoint run/checkpoint.pt --lengths 24,30 --eval-sequences 4 --json
cp "$tmp/out" "$tmp/e.json"
json_has eval-without-file "$tmp/e.json" "len(d['results'][0]['eval']) == 2 and all(math.isfinite(e['loss']) for e in d['results'][0]['eval'])"
run_ok resume "$cli" train --resume --out run --json
/usr/bin/python3 -c "
import torch
d = torch.load('run/checkpoint.pt')
assert d['step'] == 6, d['step']" 2> "$tmp/pyerr" && ok || fail "resumed-to-the-end: $(tail -1 "$tmp/pyerr")"
compared=$(ls compare/*.pt | head -1)
[ -n "$compared" ] && ok || fail "compare wrote no checkpoint"
ls compare/ > "$tmp/ls"
grep -q "my_encoding\|file" "$tmp/ls" && ok || fail "no checkpoint of the loaded family among: $(cat "$tmp/ls")"
for c in compare/*.pt; do
  run_ok "eval-$(basename "$c")" "$cli" eval --checkpoint "$c" --lengths 24 --eval-sequences 4 --json
done

finish "own encoding from the command line"
