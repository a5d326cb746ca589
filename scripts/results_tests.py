#!/usr/bin/env python3
"""The comparison tests of docs/RESULTS.md's protocol, on the JSON of `poslab-cli run --json`.

Usage:
  results_tests.py paired RESULT.json FAMILY_A FAMILY_B LENGTH METRIC DIRECTION [RESULT_B.json]
      Pairs the runs of FAMILY_A and FAMILY_B by seed (and teacher, if any), takes the per-seed
      difference A - B of METRIC (accuracy, loss, or distance-D: kv-retrieval's accuracy with the
      stored key D tokens back) at evaluation length LENGTH, and prints the
      differences, their mean and standard error, Student's t with n - 1 degrees of freedom and
      the two-sided p value. DIRECTION is "greater" (the paper has A above B) or "less" (below).
      Verdict: "reproduces" when the mean difference has the paper's sign and p < 0.05,
      "tendency" when it has the sign but p >= 0.05, "does not reproduce" otherwise.
      With RESULT_B.json, FAMILY_B's runs come from that file (a control preset trained on the
      same seeds' batches, e.g. byte-lm-eta0-control beside byte-lm); FAMILY_A's from RESULT.json.
  results_tests.py gates RESULT.json
      Sector teachers: per teacher, the gates (mean over heads and layers, then over seeds), the
      sector with the largest gate, and whether it is one of the teacher's sectors ("recovered"),
      per seed and in the mean; the final-query attention entropy against the teacher's.
"""
import json
import math
import statistics
import sys

# The sectors that carry each reference teacher (core/tasks/sector_teacher.cpp, sectorOfTeacher).
TEACHER_SECTORS = {
    "phase": {"FJ"}, "first_jet": {"FJ"}, "second_jet": {"FJ"}, "third_jet": {"FJ"},
    "affine": {"affine"}, "recency_weak_jet": {"affine"},
    "lc_core": {"LC"}, "lc_affine": {"LC", "affine"},
}


def betacf(a, b, x):
    """Continued fraction of the regularised incomplete beta function (Lentz's method)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1, a - 1
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def regularized_beta(a, b, x):
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) +
                     a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * betacf(a, b, x) / a
    return 1.0 - front * betacf(b, a, 1 - x) / b


def two_sided_p(t, dof):
    """P(|T| >= |t|) for Student's t with dof degrees of freedom."""
    if math.isinf(t):
        return 0.0
    return regularized_beta(dof / 2, 0.5, dof / (dof + t * t))


def metric_at(run, length, metric):
    for e in run["eval"]:
        if e["length"] == length:
            if metric.startswith("distance-"):
                return e.get("accuracy_by_distance", {}).get(metric[len("distance-"):])
            return e[metric]
    return None


def runs_by_key(path):
    return {(r.get("variant", ""), r["seed"], r["family"]): r
            for r in json.load(open(path))["results"]}


def paired(path, fam_a, fam_b, length, metric, direction, path_b=None):
    by_key = runs_by_key(path)
    by_key_b = runs_by_key(path_b) if path_b else by_key
    diffs, labels = [], []
    for (variant, seed, family), r in sorted(by_key.items()):
        if family != fam_a or (variant, seed, fam_b) not in by_key_b:
            continue
        a = metric_at(r, length, metric)
        b = metric_at(by_key_b[(variant, seed, fam_b)], length, metric)
        if a is None or b is None:
            continue
        diffs.append(a - b)
        labels.append(f"{variant + ' ' if variant else ''}seed {seed}")
    n = len(diffs)
    b_source = f" (from {path_b})" if path_b else ""
    print(f"{fam_a} - {fam_b}{b_source}, {metric} @ {length}, paper: {direction}")
    for label, d in zip(labels, diffs):
        print(f"  {label}: {d:+.4f}")
    if n < 2:
        print("  fewer than two pairs: no test")
        return
    mean = statistics.mean(diffs)
    se = statistics.stdev(diffs) / math.sqrt(n)
    t = mean / se if se > 0 else math.copysign(math.inf, mean) if mean else 0.0
    p = two_sided_p(t, n - 1)
    sign_ok = mean > 0 if direction == "greater" else mean < 0
    verdict = "reproduces" if sign_ok and p < 0.05 else "tendency" if sign_ok else \
        "does not reproduce"
    print(f"  mean {mean:+.4f} ± {se:.4f} (SE), t = {t:.2f}, {n - 1} dof, p = {p:.3g}: {verdict}")


def gates(path):
    runs = json.load(open(path))["results"]
    teachers = []
    for r in runs:
        if r.get("variant") not in teachers:
            teachers.append(r.get("variant"))
    print("| teacher | seeds | gate FJ | gate affine | gate LC | top sector | recovered (mean) | "
          "recovered seeds | final-query H | teacher H |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    recovered_total = 0
    for teacher in teachers:
        rs = [r for r in runs if r.get("variant") == teacher and "gate_FJ" in r.get("position", {})]
        if not rs:
            continue
        per_seed = []
        for r in rs:
            g = {s: statistics.mean(r["position"]["gate_" + s]) for s in ("FJ", "affine", "LC")}
            per_seed.append(g)
        mean = {s: statistics.mean(g[s] for g in per_seed) for s in ("FJ", "affine", "LC")}
        top = max(mean, key=mean.get)
        want = TEACHER_SECTORS.get(teacher, set())
        ok = top in want
        recovered_total += ok
        seeds_ok = sum(max(g, key=g.get) in want for g in per_seed)
        h = [e.get("final_query_entropy") for r in rs for e in r["eval"]
             if e["length"] == r["eval"][0]["length"] and e.get("final_query_entropy") is not None]
        th = [r["teacher_entropy"] for r in rs if r.get("teacher_entropy") is not None]
        print(f"| {teacher} | {len(rs)} | {mean['FJ']:.3f} | {mean['affine']:.3f} | "
              f"{mean['LC']:.3f} | {top} | {'yes' if ok else 'no'} | {seeds_ok}/{len(rs)} | "
              f"{statistics.mean(h):.2f} | {statistics.mean(th):.2f} |" if h and th else
              f"| {teacher} | {len(rs)} | {mean['FJ']:.3f} | {mean['affine']:.3f} | "
              f"{mean['LC']:.3f} | {top} | {'yes' if ok else 'no'} | {seeds_ok}/{len(rs)} | - | - |")
    print(f"\nrecovered in the mean: {recovered_total} of {len(teachers)} teachers")


def main(argv):
    if len(argv) >= 2 and argv[1] == "paired" and len(argv) in (8, 9):
        direction = argv[7]
        metric_ok = argv[6] in ("accuracy", "loss") or (
            argv[6].startswith("distance-") and argv[6][len("distance-"):].isdigit())
        if direction not in ("greater", "less") or not metric_ok:
            sys.exit(__doc__)
        paired(argv[2], argv[3], argv[4], int(argv[5]), argv[6], direction,
               argv[8] if len(argv) == 9 else None)
    elif len(argv) == 3 and argv[1] == "gates":
        gates(argv[2])
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main(sys.argv)
