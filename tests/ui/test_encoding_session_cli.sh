#!/usr/bin/env bash
# Issue 32: a session that used a family loaded from a TorchScript file reopens in a new process
# after the file is gone when it was saved with trained models (their checkpoints keep the
# module), and is refused naming the file when it was not. SESSION is the session with trained
# models that ui.test_load_encoding left in its screenshot folder; the module it names lived in
# that test's temporary folder, which no longer exists.
set -euo pipefail
gui=${POSLAB_GUI:?set POSLAB_GUI to the poslab executable}
session=${1:?give the session file}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME="$tmp/config"

module=$(/usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['family_files'][0]['family'][5:])" "$session")
[ ! -e "$module" ] || { echo "the session's module $module still exists: the check could not fail"; exit 1; }

# With trained models: opens, and its tab renders.
timeout 300 "$gui" --session "$session" --screenshot "$tmp/fresh.png" >"$tmp/out" 2>"$tmp/err" ||
  { echo "poslab --session failed:"; cat "$tmp/err"; exit 1; }
[ -s "$tmp/fresh.png" ] || { echo "no screenshot written"; exit 1; }

# The same session without its trained models: refused (exit 2), naming the missing file.
/usr/bin/python3 -c "
import json, sys
d = json.load(open(sys.argv[1])); d.pop('trained_models')
json.dump(d, open(sys.argv[2], 'w'))" "$session" "$tmp/plain.poslab"
set +e
timeout 120 "$gui" --session "$tmp/plain.poslab" --screenshot "$tmp/x.png" >"$tmp/out" 2>"$tmp/err"
rc=$?
set -e
[ "$rc" -eq 2 ] || { echo "exit $rc (not 2) for the session without trained models"; cat "$tmp/err"; exit 1; }
grep -qF "$module" "$tmp/err" && grep -qF "does not exist" "$tmp/err" ||
  { echo "stderr lacks the missing module:"; cat "$tmp/err"; exit 1; }
echo "ui.encoding_session_cli: ok"
