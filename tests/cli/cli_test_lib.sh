# Shared by the poslab-cli shell tests (test_cli.sh, test_bad_input.sh); sourced, not run.
# Sets cli (the binary, from POSLAB_CLI) and tmp (a scratch folder removed on exit), counts
# passes and failures, and checks refusals: exit code 2 and one stderr line.
cli="${POSLAB_CLI:?set POSLAB_CLI to the poslab-cli binary}"
tmp=$(mktemp -d)
# chmod first: tests make files unreadable or folders unwritable to provoke errors.
trap 'chmod -R u+rwx "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
failures=0
pass=0

ok() { pass=$((pass + 1)); }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# check_refused NAME GREP-OPTIONS PATTERN CMD...: CMD exits 2 within 60 s with one stderr line
# matching PATTERN under grep GREP-OPTIONS. Its stdout is left in $tmp/out, stderr in $tmp/err.
# Returns 1 (after counting the failure) when CMD was not refused that way.
check_refused() {
  local name=$1 grep_options=$2 pattern=$3; shift 3
  timeout 60 "$@" > "$tmp/out" 2> "$tmp/err"
  local rc=$?
  if [ $rc -ne 2 ]; then fail "$name: exit $rc, expected 2 ($(head -c 300 "$tmp/err"))"; return 1; fi
  if ! grep -q "$grep_options" -- "$pattern" "$tmp/err"; then
    fail "$name: stderr '$(cat "$tmp/err")' lacks '$pattern'"; return 1
  fi
  if [ "$(wc -l < "$tmp/err")" -ne 1 ]; then fail "$name: stderr is not one line: $(cat "$tmp/err")"; return 1; fi
  return 0
}

# expect_not NAME PATTERN: the last stderr does not match PATTERN (grep -E).
expect_not() {
  if grep -qE -- "$2" "$tmp/err"; then fail "$1: stderr '$(cat "$tmp/err")' has '$2'"; else ok; fi
}

# mutate_json BASE OUT PYTHON: a copy of the JSON file BASE with d edited by PYTHON.
mutate_json() {
  /usr/bin/python3 -c "import json; d=json.load(open('$1')); $3; json.dump(d, open('$2', 'w'))"
}

# finish LABEL: prints the count and exits non-zero on any failure.
finish() {
  echo "$1: $pass passed, $failures failed"
  [ "$failures" -eq 0 ]
  exit
}

# sweep_results DIR: the results of a sweep folder (its --out) without wall-clock fields, one line per run file.
sweep_results() {
  /usr/bin/python3 - "$1" << 'PY'
import json, os, sys
runs = os.path.join(sys.argv[1], "runs")
for name in sorted(os.listdir(runs)):
    doc = json.load(open(os.path.join(runs, name)))
    r = doc["result"]
    r.pop("seconds", None); r.pop("tokens_per_second", None)
    print(name, json.dumps(r, sort_keys=True))
PY
}
