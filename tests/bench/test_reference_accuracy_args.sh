#!/usr/bin/env bash
# bench/reference_accuracy.sh and bench/reference_side_by_side.sh refuse bad arguments before
# running anything: exit status 2, nothing on stdout, one line on stderr naming the option or
# directory; a reference checkout inside the repository is refused. Plus the Welch test of
# bench/reference_accuracy.py against a closed form. The full runs are not CI tests (minutes to
# hours): this never starts a training run.
set -uo pipefail

src="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failures=0

# A copy of the scripts in a scratch "repository", with fake checkouts inside and outside it.
mkdir -p "$tmp/repo/bench" "$tmp/repo/scripts" "$tmp/repo/refs/pj/experiments" "$tmp/outside/pj/experiments" \
  "$tmp/outside/jr/scripts" "$tmp/outside/jr/configs" "$tmp/repo/refs/jr/scripts" \
  "$tmp/repo/refs/jr/configs"
cp "$src"/bench/reference_{accuracy.sh,accuracy.py,common.sh,side_by_side.sh} \
  "$src/bench/side_by_side_timing.py" "$tmp/repo/bench/"
cp "$src/scripts/results_tests.py" "$tmp/repo/scripts/"
for d in "$tmp/repo/refs/pj" "$tmp/outside/pj"; do touch "$d/experiments/synthetic_query_lm.py"; done
for d in "$tmp/repo/refs/jr" "$tmp/outside/jr"; do
  touch "$d/scripts/run_kernel_lm.py" "$d/configs/kernel_lm.yaml"
done

# refused NAME EXPECTED_WORD SCRIPT ARGS...: status 2, empty stdout, one stderr line with WORD.
refused() {
  local name="$1" word="$2" script="$tmp/repo/bench/$3" rc
  shift 3
  bash "$script" "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  if [[ $rc -ne 2 || -s "$tmp/out" || $(wc -l <"$tmp/err") -ne 1 ]] ||
     ! grep -qF -- "$word" "$tmp/err"; then
    echo "FAIL $name: status $rc, stdout $(wc -c <"$tmp/out") bytes, stderr:"
    cat "$tmp/err"
    failures=$((failures + 1))
  else
    echo "ok   $name: $(cat "$tmp/err")"
  fi
}

A=reference_accuracy.sh
P="$tmp/outside/pj" J="$tmp/outside/jr"
refused no-checkout --poincare $A
refused unknown-option --bogus $A --poincare "$P" --bogus
refused missing-value --poincare $A --poincare
refused empty-value --jordan $A --jordan ""
refused not-a-directory --poincare $A --poincare "$tmp/none"
refused no-script --jordan $A --jordan "$tmp/outside"
refused poincare-inside-repo "inside this repository" $A --poincare "$tmp/repo/refs/pj"
refused jordan-inside-repo "inside this repository" $A --jordan "$tmp/repo/refs/jr"
refused seeds-not-integers --seeds $A --poincare "$P" --seeds 0,x
refused seeds-empty-item --seeds $A --poincare "$P" --seeds 0,,1
refused teacher-unknown --teachers $A --poincare "$P" --teachers attention,softmax
refused target-unknown --targets $A --poincare "$P" --targets phase,fourth_jet
refused method-unknown --kernel-lm-methods $A --jordan "$J" --kernel-lm-methods rope,jordan
refused jobs-zero --jobs $A --poincare "$P" --jobs 0
refused pj-steps-negative --pj-steps $A --poincare "$P" --pj-steps -3
refused length-too-small --kernel-lm-length $A --jordan "$J" --kernel-lm-length 4
refused side-unknown --side $A --poincare "$P" --side python
refused out-not-creatable --out $A --poincare "$P" --out /proc/none/x
S=reference_side_by_side.sh
refused timing-inside-repo "inside this repository" $S --poincare "$tmp/repo/refs/pj"
refused timing-steps --steps $S --steps 1

# --table-only on an empty directory runs nothing and says so.
if out="$(bash "$tmp/repo/bench/$A" --table-only --out "$tmp/empty")" &&
   [[ "$out" == "no finished runs under "* ]]; then
  echo "ok   table-only-empty"
else
  echo "FAIL table-only-empty: $out"
  failures=$((failures + 1))
fi

# Welch's test against closed forms: n = 2 a side with equal variances gives df = 2, where the
# two-sided p of Student's t is 1 - |t| / sqrt(t^2 + 2); n = 4 and 2 with variances 1 and 8 give
# se^2 = 1/4 + 4, df = se^4 / ((1/4)^2/3 + 4^2/1).
if /usr/bin/python3 - "$tmp/repo/bench" <<'PY'; then echo "ok   welch"; else echo "FAIL welch"; failures=$((failures + 1)); fi
import math, sys
sys.path.insert(0, sys.argv[1])
from reference_accuracy import welch
t, df, p = welch([0.0, 2.0], [3.0, 5.0])
T = 3.0 / math.sqrt(2.0)
assert abs(t - T) < 1e-12 and abs(df - 2.0) < 1e-12, (t, df)
assert abs(p - (1.0 - T / math.sqrt(T * T + 2.0))) < 1e-10, p
xs = [1.0 - math.sqrt(1.5), 1.0, 1.0, 1.0 + math.sqrt(1.5)]  # mean 1, sample variance 1
ys = [10.0, 14.0]  # mean 12, sample variance 8
t, df, p = welch(xs, ys)
se2 = 1.0 / 4.0 + 8.0 / 2.0
assert abs(t - 11.0 / math.sqrt(se2)) < 1e-12, t
assert abs(df - se2 ** 2 / ((1.0 / 4.0) ** 2 / 3.0 + 4.0 ** 2)) < 1e-12, df
assert welch([1.0], [2.0, 3.0]) is None
assert welch([1.0, 1.0], [1.0, 1.0])[2] == 1.0
PY

# phaseb on hand-made inputs: two seeds a side, two targets. Expected by hand: first_jet's
# reference mean gates (0.8 + 0.4) / 2 = 0.600, (0.1 + 0.5) / 2 = 0.300, 0.100 lead with FJ, but
# seed 1's largest gate is affine, so the claim does not hold there; PosLab's FJ leads in both
# seeds (mean 0.800/0.125/0.075): holds; seed 1 differs between the sides: not agreed. lc_core: LC
# leads everywhere with order 0 on both sides: holds / holds, agreed. A seed given twice is refused.
if /usr/bin/python3 - "$tmp/repo/bench" "$tmp" <<'PY'; then echo "ok   phaseb"; else echo "FAIL phaseb"; failures=$((failures + 1)); fi
import contextlib, io, json, os, sys
sys.path.insert(0, sys.argv[1])
from reference_accuracy import phase_b
tmp = sys.argv[2]
def ref_row(seed, target, g, top):
    return {"seed": seed, "target": target, "gate_fj": g[0], "gate_affine": g[1], "gate_lc": g[2],
            "top_order": top}
with open(os.path.join(tmp, "summary.json"), "w") as f:
    json.dump({"rows": [ref_row(0, "first_jet", (0.8, 0.1, 0.1), 1),
                        ref_row(0, "lc_core", (0.1, 0.1, 0.8), 0),
                        ref_row(1, "first_jet", (0.4, 0.5, 0.1), 1),
                        ref_row(1, "lc_core", (0.2, 0.1, 0.7), 0)]}, f)
def poslab(seed, rows):
    path = os.path.join(tmp, f"p{seed}.json")
    with open(path, "w") as f:
        json.dump({"config": {"seed": seed}, "results": [
            {"target": t, "gates": {"fj": g[0], "affine": g[1], "lc": g[2]}, "top_order": o}
            for t, g, o in rows]}, f)
    return path
p0 = poslab(0, [("first_jet", (0.7, 0.2, 0.1), 1), ("lc_core", (0.1, 0.2, 0.7), 0)])
p1 = poslab(1, [("first_jet", (0.9, 0.05, 0.05), 1), ("lc_core", (0.1, 0.1, 0.8), 0)])
buf = io.StringIO()
with contextlib.redirect_stdout(buf):
    phase_b(os.path.join(tmp, "summary.json"), [p0, p1])
lines = {l.split("|")[1].strip(): [c.strip() for c in l.split("|")[1:-1]]
         for l in buf.getvalue().splitlines() if l.startswith("| first_jet") or l.startswith("| lc_core")}
fj, lc = lines["first_jet"], lines["lc_core"]
assert fj[1] == "fj" and fj[2] == "0.600/0.300/0.100" and fj[3] == "s0 FJ r1, s1 affine r1", fj
assert fj[4] == "0.800/0.125/0.075" and fj[6] == "no / holds" and fj[7] == "no", fj
assert lc[1] == "lc" and lc[2] == "0.150/0.100/0.750" and lc[6] == "holds / holds", lc
assert lc[7] == "yes", lc
try:
    phase_b(os.path.join(tmp, "summary.json"), [p0, p0])
    raise AssertionError("a seed given twice was accepted")
except SystemExit as e:
    assert "seed 0 is given twice" in str(e), e
PY

# A reference run without PJ-bias (sector set none) has null gates and no mass columns: its
# metrics are accuracy and loss only, nothing read as zero.
if /usr/bin/python3 - "$tmp/repo/bench" "$tmp" <<'PY'; then echo "ok   pj-none"; else echo "FAIL pj-none"; failures=$((failures + 1)); fi
import json, os, sys
sys.path.insert(0, sys.argv[1])
from reference_accuracy import read_pj_reference
path = os.path.join(sys.argv[2], "none.json")
with open(path, "w") as f:
    json.dump({"rows": [{"eval_len": 96, "accuracy": 0.8, "loss": 0.4, "attention_entropy": 3.0,
                         "attention_effective_support": 20.0, "gate_fj": None,
                         "gate_affine": None, "gate_lc": None}]}, f)
m = read_pj_reference(path)
assert sorted(m) == ["accuracy@96", "attention entropy@96", "attention support@96", "loss@96"], m
PY

[[ $failures -eq 0 ]] || { echo "$failures case(s) failed"; exit 1; }
echo "all cases passed"
