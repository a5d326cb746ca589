#!/usr/bin/env bash
# Issue #30: a sweep (`compare`, `run --preset`) killed in the middle of its runs continues each run
# from its last checkpoint in --out when the same command is given again, and ends with the numbers
# of an uninterrupted sweep, bit for bit. Killed at pseudo-random moments with SIGKILL (no chance
# to save: the periodic checkpoint counts) and SIGTERM / SIGINT (saves the step in flight, exits
# 143 / 130 with one line that names the command to continue).
set -u
source "$(dirname "$0")/cli_test_lib.sh"

sweep=(compare --task kernel-lm --families jordan-stabilized-abs,rope --seeds 3,4 --steps 600
  --heads 2 --layers 2 --d-model 32 --train-length 24 --batch 8 --eval-lengths 24,48
  --eval-sequences 8 --jobs 2 --checkpoint-every 37 --json)
export POSLAB_THREADS=2

"$cli" "${sweep[@]}" --out "$tmp/whole" > "$tmp/whole.json" 2> "$tmp/whole.err" \
  || fail "uninterrupted sweep: $(tail -n 3 "$tmp/whole.err")"
sweep_results "$tmp/whole" > "$tmp/whole.txt"
[ "$(wc -l < "$tmp/whole.txt")" -eq 4 ] && ok || fail "uninterrupted sweep: $(cat "$tmp/whole.txt")"

RANDOM=30  # the kill moments are pseudo-random but the same in every run of this test
signals=(KILL TERM KILL INT TERM KILL)
kills=0 terms=0 rc=1
# next: the signal to send next; late: seconds added after a TERM/INT landed before the sweep had
# installed its handler (a slow start on a loaded machine), so that the same signal is sent again,
# later, instead of being lost.
next=0 late=0
for attempt in $(seq 1 40); do
  "$cli" "${sweep[@]}" --out "$tmp/killed" > "$tmp/killed.json" 2> "$tmp/killed.err" &
  pid=$!
  sig=""
  if [ "$next" -lt "${#signals[@]}" ]; then
    sleep "$((1 + late + RANDOM % 2)).$((RANDOM % 10))"
    sig=${signals[$next]}
    kill -s "$sig" "$pid" 2> /dev/null
  fi
  wait "$pid"
  rc=$?
  [ "$rc" -eq 0 ] && break
  case "$rc" in
    137) kills=$((kills + 1)) next=$((next + 1)) ;;
    130 | 143)
      # A signal before the sweep installed its handler (start-up) ends the process as the
      # default would, without a message: it is sent again later. One during the sweep says what
      # was saved, in one line naming the command that continues it.
      if grep -q 'stopped by SIG' "$tmp/killed.err"; then
        terms=$((terms + 1)) next=$((next + 1))
        line=$(grep -c 'stopped by SIG' "$tmp/killed.err")
        grep -q "continue with: .*compare .*--out $tmp/killed" "$tmp/killed.err" && [ "$line" -eq 1 ] \
          && ok || fail "stop message: $(cat "$tmp/killed.err")"
      else
        late=$((late + 2))
      fi
      ;;
    *) fail "attempt $attempt: exit $rc: $(tail -n 2 "$tmp/killed.err")"; break ;;
  esac
done
[ "$rc" -eq 0 ] && ok || fail "the killed sweep never finished"
echo "killed $kills times with SIGKILL, stopped $terms times by SIGTERM/SIGINT"
[ "$terms" -ge 1 ] && ok || fail "no SIGTERM/SIGINT landed during training"
sweep_results "$tmp/killed" > "$tmp/killed.txt"
if diff "$tmp/whole.txt" "$tmp/killed.txt" > "$tmp/diff.txt"; then ok; else
  fail "killed and resumed sweep differs from the uninterrupted one: $(head -c 2000 "$tmp/diff.txt")"
fi
# The finished sweep leaves no run checkpoint and no temporary file behind.
left=$(find "$tmp/killed" -name '*.pt' -o -name '*.tmp*' | head -3)
[ -z "$left" ] && ok || fail "left behind: $left"
# The JSON printed by the last (resuming) invocation has every run.
/usr/bin/python3 -c "import json,sys; d=json.load(open('$tmp/killed.json')); sys.exit(len(d['results']) != 4)" \
  && ok || fail "resumed sweep's --json lacks runs: $(head -c 300 "$tmp/killed.json")"
finish "sweep resume"
