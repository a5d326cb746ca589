#!/usr/bin/env bash
# Issue #15: sweeps and data-parallel training on c10d, two processes on loopback (127.0.0.1).
#  - a sweep under `torchrun --redirects 2 --tee 2 --no_python --nproc_per_node 2` prints the same
#    JSON as one process (every field but the wall-clock "seconds");
#  - 10 steps of data-parallel `train` with 2 processes give the loss sequence of one process on
#    the same global batch, and a run stopped under 2 processes resumes under 1;
#  - killing one rank mid-sweep ends the other with one error line naming it within the timeout,
#    and rerunning completes the sweep, skipping the finished runs, with the one-process table;
#  - partial environments and a batch that does not split are refused (exit 2, one line).
# Exit 77 (ctest SKIP_RETURN_CODE) where torchrun is missing or cannot start.
set -uo pipefail
cli="${POSLAB_CLI:?set POSLAB_CLI to the poslab-cli binary}"
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2> /dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT
failures=0
pass=0
ok() { pass=$((pass + 1)); }
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# POSLAB_TORCHRUN (tests/CMakeLists.txt): the torchrun of the torch whose LibTorch poslab-cli links.
torchrun="${POSLAB_TORCHRUN-torchrun}"
if [ -z "$torchrun" ] || ! command -v "$torchrun" > /dev/null; then
  echo "SKIP: no torchrun of torch ${POSLAB_TORCH_VERSION:-?} (the LibTorch poslab-cli links):" \
    "Debian: apt-get install python3-torch; pip build: .venv-pip/bin/torchrun"
  exit 77
fi
if ! "$torchrun" --help > /dev/null 2>&1; then
  echo "SKIP: $torchrun does not start here: $("$torchrun" --help 2>&1 | tail -1)"
  exit 77
fi

# A TCP port nobody listens on now (the kernel's choice), for each launch.
free_port() {
  /usr/bin/python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"
}
# The results without their wall-clock seconds, keys sorted: what must not depend on the launch.
numbers() {
  /usr/bin/python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
for r in d['results']: r.pop('seconds')
d.pop('threads', None)  # each process's own intra-op threads (2 alone, 1 under a 2-process launch)
print(json.dumps(d, indent=1, sort_keys=True))" "$1"
}
# Two ranks started by hand (no torchrun, so that one can be killed alone): launch2 TAG ARGS...
# sets pid0/pid1; stdout and stderr in $tmp/TAG.{0,1}.{out,err}.
launch2() {
  local tag=$1 port
  shift
  port=$(free_port)
  for r in 0 1; do
    env RANK=$r WORLD_SIZE=2 LOCAL_RANK=$r LOCAL_WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 \
      MASTER_PORT=$port "$cli" "$@" > "$tmp/$tag.$r.out" 2> "$tmp/$tag.$r.err" &
    eval "pid$r=$!"
    pids+=($!)
  done
}
run_torchrun() {  # at most 5 minutes: a hang is a failure, not a stuck ctest
  timeout 300 "$torchrun" --redirects 2 --tee 2 --no_python --nproc_per_node 2 --master_addr 127.0.0.1 \
    --master_port "$(free_port)" "$cli" "$@"
}

sweep=(compare --task kernel-lm --families rope,jordan-stabilized,alibi --seeds 0,1 --steps 3
  --batch 4 --train-length 16 --eval-lengths 16,32 --eval-sequences 4)

# 1. The sweep's JSON: one process, then two under torchrun.
"$cli" "${sweep[@]}" --json > "$tmp/one.json" 2> "$tmp/one.err" || fail "one-process sweep: $(tail -1 "$tmp/one.err")"
if run_torchrun "${sweep[@]}" --json > "$tmp/two.json" 2> "$tmp/two.err"; then
  numbers "$tmp/one.json" > "$tmp/one.numbers"
  numbers "$tmp/two.json" > "$tmp/two.numbers"
  if [ -s "$tmp/one.numbers" ] && cmp -s "$tmp/one.numbers" "$tmp/two.numbers"; then ok; else
    fail "torchrun sweep JSON differs from one process: $(diff "$tmp/one.numbers" "$tmp/two.numbers" | head -5)"
  fi
  # Both ranks trained: each run's progress came from the rank it was dealt to (round-robin).
  if grep -q '^\[default0\]:\[1/6\]' "$tmp/two.err" && grep -q '^\[default1\]:\[2/6\]' "$tmp/two.err"; then ok; else
    fail "the runs were not dealt round-robin: $(grep -o '^\[default[01]\]:\[[0-9]/6\]' "$tmp/two.err" | sort -u | tr '\n' ' ')"
  fi
else
  fail "torchrun sweep failed: $(grep -v '^ ' "$tmp/two.err" | grep -i error | head -3)"
fi

# 2. Data-parallel training: the loss at every step of 10, one process against two (torchrun).
train=(train --task kernel-lm --family jordan-stabilized --steps 10 --batch 8 --train-length 16
  --eval-lengths 16 --eval-sequences 4 --eval-every 5)
losses() {  # the "loss" and "grad_norm" of each line of a metrics.jsonl, one pair per line
  /usr/bin/python3 -c "
import json, sys
for l in open(sys.argv[1]):
  d = json.loads(l)
  print(d['loss'], d['grad_norm'])" "$1"
}
# Tolerance: a rank sums its half of the batch's token losses and gradients in float32 and the
# halves are added after; one process sums all rows at once. The two orders differ by a few
# float32 roundings (relative 6e-8 each) per step, which the following steps carry forward:
# measured here at most 6e-8 relative on the loss and 1e-6 on the gradient norm (a norm of
# partly cancelling sums) over 10 steps. 1e-4 leaves room for other thread counts and still
# catches a wrong scaling: the gradient norm (before clipping) of a sum over ranks without the
# global 1/M is N times too large, even where Adam's normalised steps hide it in the loss.
close_losses() {  # close_losses NAME FILE_A FILE_B
  if /usr/bin/python3 - "$2" "$3" << 'EOF'; then ok; else fail "$1"; fi
import sys
a = [[float(v) for v in x.split()] for x in open(sys.argv[1])]
b = [[float(v) for v in x.split()] for x in open(sys.argv[2])]
assert len(a) == 10 and len(b) == 10, (len(a), len(b))
for k, name in enumerate(["loss", "grad_norm"]):
  worst = max(abs(x[k] - y[k]) / abs(x[k]) for x, y in zip(a, b))
  assert worst < 1e-4, "%s: largest relative difference %.3g: %s vs %s" % (name, worst, a, b)
EOF
}
"$cli" "${train[@]}" --out "$tmp/dp1" > /dev/null 2> "$tmp/dp1.err" || fail "one-process train: $(tail -1 "$tmp/dp1.err")"
losses "$tmp/dp1/metrics.jsonl" > "$tmp/dp1.losses"
if run_torchrun "${train[@]}" --out "$tmp/dp2" > /dev/null 2> "$tmp/dp2.err"; then
  losses "$tmp/dp2/metrics.jsonl" > "$tmp/dp2.losses"
  close_losses "2-process losses differ from 1 process" "$tmp/dp1.losses" "$tmp/dp2.losses"
  [ -s "$tmp/dp2/checkpoint.pt" ] && [ -s "$tmp/dp2/summary.json" ] && ok || fail "rank 0 wrote no checkpoint or summary"
else
  fail "torchrun train failed: $(grep -i error "$tmp/dp2.err" | head -3)"
fi
# Stopped after 5 steps under 2 processes, resumed under 1: the same 10 losses.
if run_torchrun "${train[@]}" --out "$tmp/dp3" --stop-after 5 > /dev/null 2> "$tmp/dp3.err" &&
  "$cli" "${train[@]}" --resume --out "$tmp/dp3" > /dev/null 2> "$tmp/dp3r.err"; then
  losses "$tmp/dp3/metrics.jsonl" > "$tmp/dp3.losses"
  close_losses "stopped under 2 and resumed under 1: losses differ" "$tmp/dp1.losses" "$tmp/dp3.losses"
else
  fail "stop/resume failed: $(grep -i error "$tmp/dp3.err" "$tmp/dp3r.err" | head -3)"
fi
# A batch that does not split over the processes: exit 2, one line.
launch2 odd train --task kernel-lm --family rope --steps 2 --batch 3 --train-length 16 --out "$tmp/odd"
wait "$pid0"
rc=$?
wait "$pid1"
if [ $rc -eq 2 ] && grep -q -- "--batch 3 is not a multiple of the 2 processes of the launch" "$tmp/odd.0.err" &&
  [ "$(wc -l < "$tmp/odd.0.err")" -eq 1 ]; then ok; else fail "odd batch: exit $rc, $(cat "$tmp/odd.0.err")"; fi

# 3. A rank killed mid-sweep: the other stops within the timeout, naming it; a rerun completes.
long=(compare --task kernel-lm --families rope,jordan-stabilized,alibi --seeds 0,1 --steps 40
  --batch 4 --train-length 16 --eval-lengths 16 --eval-sequences 4 --out "$tmp/sweep" --dist-timeout 5)
launch2 kill "${long[@]}"
for _ in $(seq 1 600); do
  [ -n "$(ls "$tmp/sweep/runs" 2> /dev/null)" ] && break
  sleep 0.1
done
kill -9 "$pid1"
start=$(date +%s)
wait "$pid0"
rc=$?
elapsed=$(($(date +%s) - start))
if [ $rc -eq 2 ] && tail -1 "$tmp/kill.0.err" | grep -q "rank 1 stopped responding: no heartbeat for 5 s"; then ok; else
  fail "killed rank 1: rank 0 exit $rc, last line '$(tail -1 "$tmp/kill.0.err")'"
fi
# 5 s without a heartbeat, plus rank 0 finishing the step in flight and a loaded machine's delay.
[ "$elapsed" -le 30 ] && ok || fail "rank 0 took ${elapsed} s to notice (timeout 5 s)"
finished=$(ls "$tmp/sweep/runs" | wc -l)
[ "$finished" -ge 1 ] && [ "$finished" -lt 6 ] && ok || fail "$finished runs on disk after the kill"
launch2 rerun "${long[@]}"
wait "$pid0"
rc0=$?
wait "$pid1"
rc1=$?
[ $rc0 -eq 0 ] && [ $rc1 -eq 0 ] && ok || fail "rerun: exits $rc0 $rc1: $(tail -1 "$tmp/rerun.0.err") $(tail -1 "$tmp/rerun.1.err")"
grep -q "^$finished of 6 runs already in $tmp/sweep/runs: skipped" "$tmp/rerun.0.err" && ok ||
  fail "rerun did not skip the $finished finished runs: $(head -1 "$tmp/rerun.0.err")"
[ "$(ls "$tmp/sweep/runs" | wc -l)" -eq 6 ] && ok || fail "the rerun left $(ls "$tmp/sweep/runs" | wc -l) run files"
[ ! -s "$tmp/rerun.1.out" ] && ok || fail "rank 1 printed on stdout"
# The table of the resumed sweep is the one-process table, byte for byte.
"$cli" "${long[@]:0:17}" > "$tmp/long-one.txt" 2> /dev/null
if [ -s "$tmp/long-one.txt" ] && cmp -s "$tmp/long-one.txt" "$tmp/rerun.0.out"; then ok; else
  fail "resumed table differs: $(diff "$tmp/long-one.txt" "$tmp/rerun.0.out" | head -4)"
fi

# 4. Environments that are not a launch: exit 2 with one line naming the variable.
expect_env_error() {  # NAME PATTERN VAR=VALUE...
  local name=$1 pattern=$2
  shift 2
  env "$@" "$cli" compare --task kernel-lm --families rope --steps 1 --dist-timeout 2 \
    > /dev/null 2> "$tmp/env.err"
  local rc=$?
  if [ $rc -eq 2 ] && grep -q -- "$pattern" "$tmp/env.err" && [ "$(wc -l < "$tmp/env.err")" -eq 1 ]; then ok; else
    fail "$name: exit $rc, '$(cat "$tmp/env.err")'"
  fi
}
expect_env_error rank-without-world "WORLD_SIZE is not set" RANK=0
expect_env_error world-not-number "WORLD_SIZE='two' is not a whole number" RANK=0 WORLD_SIZE=two
expect_env_error slurm-no-nodes "SLURM_JOB_NODELIST is not set" SLURM_PROCID=0 SLURM_NTASKS=2
port=$(free_port)
start=$(date +%s)
expect_env_error nobody-joins "rank(s) 1 of 2 did not join within 2 s" RANK=0 WORLD_SIZE=2 \
  MASTER_ADDR=127.0.0.1 MASTER_PORT=$port
[ $(($(date +%s) - start)) -le 20 ] && ok || fail "the join waited past its timeout"

echo "distributed: $pass passed, $failures failed"
[ $failures -eq 0 ]
