#!/usr/bin/env bash
# `poslab --session` and `poslab --preset` as a user runs them: a session that cannot be read
# exits 2 with a message naming the file and the field (GUI and --screenshot alike, no window);
# a good session renders its tab; a tiny preset runs to the end and renders the training view.
set -euo pipefail
gui=${POSLAB_GUI:?set POSLAB_GUI to the poslab executable}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME="$tmp/config"  # recent files of this test stay here

expect_error() {  # expect_error PATTERN ARGS...: exit 2 and PATTERN on stderr
  local pattern=$1; shift
  set +e
  timeout 120 "$gui" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  set -e
  [ "$rc" -eq 2 ] || { echo "exit $rc (not 2) for $*"; cat "$tmp/err"; exit 1; }
  grep -qF -- "$pattern" "$tmp/err" || { echo "stderr for $* lacks '$pattern':"; cat "$tmp/err"; exit 1; }
}
check_png() {  # check_png FILE MINBYTES
  [ -f "$1" ] || { echo "no PNG $1 written"; exit 1; }
  [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || { echo "$1 is not a PNG"; exit 1; }
  local size; size=$(stat -c %s "$1")
  [ "$size" -gt "$2" ] || { echo "$1 is only $size bytes"; exit 1; }
}

printf '{ "format": "poslab-session-1", "tab": kernel }\n' >"$tmp/bad.poslab"
expect_error "$tmp/bad.poslab: not valid JSON at line 1" --screenshot "$tmp/x.png" --session "$tmp/bad.poslab"
expect_error "$tmp/bad.poslab: not valid JSON" --session "$tmp/bad.poslab"   # GUI: no window
expect_error "does not exist" --screenshot "$tmp/x.png" --session "$tmp/none.poslab"
expect_error "does not exist" --session "$tmp/none.poslab"
expect_error "does not exist" --session="$tmp/none.poslab"
# Special files and numbers no double holds are refused at once, naming the file (issue #17).
mkfifo "$tmp/fifo.poslab"
expect_error "$tmp/fifo.poslab" --session "$tmp/fifo.poslab"
expect_error "$tmp/fifo.poslab" --screenshot "$tmp/x.png" --session "$tmp/fifo.poslab"
expect_error "/dev/zero" --session /dev/zero
mkdir "$tmp/dir.poslab"
expect_error "$tmp/dir.poslab" --session "$tmp/dir.poslab"
printf '{"format": "poslab-session-1", "tab": "kernel", "explorer": {"family": "damped-rope", "values": {"gamma": 1e400}}}\n' >"$tmp/huge.poslab"
expect_error "$tmp/huge.poslab" --session "$tmp/huge.poslab"

# A hand-written session: only the required fields plus a few settings.
cat >"$tmp/good.poslab" <<'JSON'
{
  "format": "poslab-session-1",
  "tab": "attention",
  "explorer": {"family": "alibi", "values": {"heads": 8}},
  "views": {"attention": {"T": 64, "head": 3}},
  "training": {"families": ["rope"], "config": {"task": {"id": "kernel-lm"}}}
}
JSON
sed 's/"heads": 8/"heads": 0/' "$tmp/good.poslab" >"$tmp/range.poslab"
expect_error "field 'explorer.values.heads' = 0 is outside" --screenshot "$tmp/x.png" --session "$tmp/range.poslab"
sed 's/"rope"/"ropee"/' "$tmp/good.poslab" >"$tmp/fam.poslab"
expect_error "unknown family 'ropee'" --session "$tmp/fam.poslab"
sed 's/poslab-session-1/poslab-session-9/' "$tmp/good.poslab" >"$tmp/fmt.poslab"
expect_error "field 'format'" --session "$tmp/fmt.poslab"
# Trained models are files next to the session: one that is missing is named (relative to it).
sed 's/"config": {"task": {"id": "kernel-lm"}}}/&,\n  "trained_models": [{"family": "rope", "file": "m.poslab.d\/run0-rope.pt", "step": 3}]/' \
  "$tmp/good.poslab" >"$tmp/m.poslab"
expect_error "checkpoint '$tmp/m.poslab.d/run0-rope.pt' does not exist" --screenshot "$tmp/x.png" --session "$tmp/m.poslab"
[ ! -e "$tmp/x.png" ] || { echo "a failed request wrote a file"; exit 1; }

timeout 120 "$gui" --screenshot "$tmp/session.png" --session "$tmp/good.poslab" >/dev/null
check_png "$tmp/session.png" 20000

# A preset file of our own, ~5 steps of a tiny model, two families side by side.
cat >"$tmp/tiny.json" <<'JSON'
{
  "name": "tiny", "description": "five steps", "families": ["pope", "rope"], "seeds": [3, 4],
  "config": {
    "task": {"id": "indirect-indexing", "options": {"alphabet": 16, "max_offset": 1}, "train_length": 12},
    "model": {"d_model": 16, "heads": 2, "layers": 1},
    "optim": {"batch": 4, "warmup": 1},
    "run": {"steps": 5, "eval_lengths": [12, 16], "eval_sequences": 4, "eval_every": 0}
  }
}
JSON
timeout 120 "$gui" --screenshot "$tmp/preset.png" --preset "$tmp/tiny.json" >"$tmp/out"
grep -q "wrote $tmp/preset.png" "$tmp/out" || { echo "no 'wrote' line"; cat "$tmp/out"; exit 1; }
check_png "$tmp/preset.png" 20000
# A setup the task refuses fails at once (not after the timeout), when the preset is read,
# naming the file and the field (issue 17 s3: checked at load, not at Play).
sed 's/\[12, 16\]/[12, 99]/' "$tmp/tiny.json" >"$tmp/toolong.json"
expect_error "preset file '$tmp/toolong.json': field 'config.run.eval_lengths[1]' = 99: task indirect-indexing cannot generate" \
  --screenshot "$tmp/x.png" --preset "$tmp/toolong.json"
# A misspelt key is refused as the CLI refuses it, naming the file and the key.
sed 's/"batch"/"batchsize"/' "$tmp/tiny.json" >"$tmp/typo.json"
expect_error "preset file '$tmp/typo.json': field 'config.optim.batchsize' is not a known field" \
  --screenshot "$tmp/x.png" --preset "$tmp/typo.json"
expect_error "field 'config.optim.batchsize' is not a known field" --preset "$tmp/typo.json"
expect_error "unknown preset 'no-such-preset'" --screenshot "$tmp/x.png" --preset no-such-preset
expect_error "unknown preset 'no-such-preset'" --preset no-such-preset
"$gui" --help | grep -q -- "--session" || { echo "--help lacks --session"; exit 1; }
echo "session and preset command-line tests passed"
