#!/usr/bin/env bash
# Issue 34's second probe through poslab-cli: about 400 other hostile values and commands than the
# issue's own (those are in test_bad_input.sh). What it found, each now refused within 10 s in one
# line naming the option (or, for the last, cleaned up):
#  --jobs past 4 per core (a SIGINT went unanswered for minutes at --jobs 1000); text and CSV
#  tables priced by their formatting (2 million lags printed for 30 s inside the budget); probe's
#  families checked before any fit, and L named as given; empty or overflowing length lists;
#  task-kernel --head-dim odd or huge; POSLAB_ATTENTION misspelt; repeated diagnose targets;
#  OMP_NUM_THREADS values libgomp complained about before main (one line now, ours); JSON nested
#  200,000 deep (a crash, exit 139); a NaN field, a negative lag range and response at T = 2 named
#  as given; and a CSV's temporary removed at SIGINT.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/cli_test_lib.sh"

refused10() {  # refused10 NAME PATTERN CMD...: exit 2 within 10 s, one stderr line (grep -E)
  local name=$1 pattern=$2; shift 2
  check_refused "$name" -E "$pattern" timeout 10 "$@" && ok
}
expect_error() {  # expect_error NAME PATTERN CMD...: the same within check_refused's 60 s
  local name=$1 pattern=$2; shift 2
  check_refused "$name" -E "$pattern" "$@" && ok
}

# A tiny kernel-lm run (about 3,400 parameters): the checkpoint of the eval and response cases.
small=(--task kernel-lm --family rope --batch 2 --train-length 8 --d-model 16 --heads 2 --layers 1
  --eval-sequences 2 --eval-lengths 8)
timeout 120 "$cli" train "${small[@]}" --steps 1 --out "$tmp/small" > /dev/null 2>&1 ||
  fail "the small run did not train"
ck="$tmp/small/checkpoint.pt"

refused10 jobs-huge "--jobs: '1000' must be a whole number in \[0, " \
  "$cli" run --preset jordan-kernel-lm --jobs 1000
refused10 compare-jobs-huge "--jobs: '100000' must be a whole number in \[0, " \
  "$cli" compare "${small[@]}" --families rope,alibi --steps 1 --jobs 100000
refused10 kernel-text-table "--lags 0:2000000 \(2000000 lags\) needs about .* over the budget" \
  "$cli" kernel --family rope --lags 0:2000000
refused10 kernel-csv "--lags 0:3000000 \(3000000 lags\) needs about .* over the budget" \
  "$cli" kernel --family rope --lags 0:3000000 --csv "$tmp/kc.csv" --json
refused10 attention-csv "--T 7000 \(a CSV of T x T numbers\) needs about .* over the budget" \
  "$cli" attention --family rope --T 7000 --out "$tmp/att.csv"
refused10 probe-families-all "probe of jordan-m3 \(head_dim 64\): " \
  "$cli" probe --families all --set L=15000
refused10 probe-L-as-given "L = 10000001 is out of range for the probe" \
  "$cli" probe --families rope --set L=10000001
refused10 eval-lengths-empty-item "--lengths ',,' is not a list of positive integers" \
  "$cli" eval --checkpoint "$ck" --lengths ,,
refused10 eval-lengths-overflow "--lengths '99999999999999999999' is not a list of positive integers" \
  "$cli" eval --checkpoint "$ck" --lengths 99999999999999999999
refused10 task-kernel-head-dim-odd "--head-dim: '7' must be even" \
  "$cli" task-kernel --task kernel-lm --length 64 --head-dim 7
refused10 task-kernel-head-dim-huge "--head-dim: '9223372036854775807' must be a whole number in \[2, 1024\]" \
  "$cli" task-kernel --task kernel-lm --length 64 --head-dim 9223372036854775807
refused10 attention-variable "POSLAB_ATTENTION = 'bogus' is not an attention path" \
  env POSLAB_ATTENTION=bogus "$cli" train "${small[@]}" --steps 1 --out "$tmp/att-var"
refused10 diagnose-target-repeated "--target lists 'phase' twice" \
  "$cli" diagnose --target phase,phase
for value in 0 -3 0x2 abc ""; do  # libgomp's own complaint came first (two more lines)
  refused10 "omp-threads-'$value'" "^poslab-cli: error: OMP_NUM_THREADS = '$value' is not a whole number" \
    env -u POSLAB_THREADS OMP_NUM_THREADS="$value" "$cli" families --ids
done
env -u POSLAB_THREADS POSLAB_THREADS=1 OMP_NUM_THREADS=abc "$cli" families --ids > /dev/null 2> "$tmp/err" &&
  [ ! -s "$tmp/err" ] && ok || fail "POSLAB_THREADS=1 with OMP_NUM_THREADS=abc: $(head -c 300 "$tmp/err")"
python3 -c "print('{\"format\": \"poslab-lesson-1\", \"title\": \"deep\", \"steps\": [{\"title\": \"x\", \"text\": \"x\", \"action\": \"x\", \"state\": {\"tab\": ' + '[' * 200000 + ']' * 200000 + '}}]}')" > "$tmp/deep.json"
refused10 lesson-nested-deep "lesson file '.*deep.json': nested deeper than 64 arrays and objects at line 1" \
  "$cli" lesson "$tmp/deep.json"
expect_error kernel-negative-range "lag range -5:10 is empty or negative" \
  "$cli" kernel --family rope --lags -5:10
refused10 train-set-nan "field 'model.family_params.base' = nan is not a finite number \(give a number\)" \
  "$cli" train "${small[@]}" --steps 1 --set base=nan --out "$tmp/nan-run"
"$cli" response --checkpoint "$ck" --length 2 > "$tmp/resp2.txt" 2> /dev/null &&
  ! grep -q "beyond" "$tmp/resp2.txt" && grep -q "within the training length" "$tmp/resp2.txt" && ok ||
  fail "response --length 2: $(cat "$tmp/resp2.txt")"
# SIGINT while a CSV is written: the file is not left half-written and its temporary is removed.
"$cli" --budget 100 kernel --family rope --lags 0:3000000 --csv "$tmp/sig.csv" > /dev/null 2>&1 &
pid=$!
for _ in $(seq 1 120); do  # until the temporary exists (the table is computed first)
  ls -a "$tmp" | grep -q "^\.sig\.csv\.tmp-" && break
  sleep 0.5
done
ls -a "$tmp" | grep -q "^\.sig\.csv\.tmp-" && ok || fail "kernel --csv wrote no temporary within 60 s"
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] && ok || fail "kernel --csv at SIGINT: exit $rc"
ls -a "$tmp" | grep -q "sig\.csv" && fail "SIGINT left $(ls -a "$tmp" | grep sig.csv)" || ok

# An option given an empty value is refused, not read as "not given" (which ran the preset's own).
for args in "run --preset pope-indirect-indexing --seeds" "run --preset pope-indirect-indexing --families" \
  "compare --families rope,alibi --task indirect-indexing --seeds" "kernel --family rope --lags 0:3 --csv" "lesson"; do
  name=${args##* }
  refused10 "empty-${args%% *}-$name" "^poslab-cli: error: $name is given an empty value" "$cli" $args ""
done
# `--seeds=`: CLI11's own line, also one line and exit 2.
refused10 empty-equals "^poslab-cli: error: --seeds: 1 required TEXT missing" \
  "$cli" run --preset pope-indirect-indexing --seeds=
refused10 norms-max-pos-overflow "--max-pos: '99999999999999999999' must be a whole number in \[1, 10000000\]" \
  "$cli" norms --family rope --max-pos 99999999999999999999

finish "cli bad values"
