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
  results_tests.py gates RESULT.json [--teacher attention|signed] [--kernel NAME] [--old-rule]
      Sector teachers: per teacher (and sector set, and attention lambda, when the variants set
      them; the teacher is each variant's first value, or NAME with --kernel for runs whose
      variants do not set the kernel), the gates (mean over heads and layers, then over seeds),
      the sector with the largest gate and whether it is the sector the PJ reference expects
      (synthetic_query_lm.py: preferred_sector: LC for lc_core and lc_affine, affine for affine
      and for recency_weak_jet under the attention teacher, FJ for the rest), per seed and in the
      mean, with the margin (expected gate minus the largest other gate; recovered only when
      > 0, so a tie is not); the accuracy at each evaluation length, the largest FJ and LC order
      mass and the final-query attention entropy and support against the teacher's. --teacher
      says which teacher the runs used (it changes recency_weak_jet's sector; default attention).
      --old-rule scores by the rule of the protocol before amendment 6 (a teacher is recovered
      when its top gate is one of its sectors, lc_affine counting LC or affine), for comparison.
"""
import json
import math
import statistics
import sys

SECTOR_SETS = ("none", "affine", "fj", "fj_affine", "lc_affine", "full", "grape_m_rope",
               "grape_a_alibi", "grape_ma_rope_alibi")


def preferred_sector(target, teacher):
    """The PJ reference's preferred_sector (synthetic_query_lm.py), in PosLab's gate names."""
    if target in ("lc_core", "lc_affine"):
        return "LC"
    if target == "affine":
        return "affine"
    if target == "recency_weak_jet" and teacher == "attention":
        return "affine"
    return "FJ"


# The rule before amendment 6: the sectors that carry each teacher (sectorOfTeacher).
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


def split_variant(variant, kernel=None):
    """(teacher, sector set, lambda) of a run from its variant string, e.g. "first_jet,full".

    A variant's values are joined in the order of their keys (experiment_plan.h): "kernel", then
    "options.*" (the attention lambda), then "sectors". Without `kernel` the first value is the
    teacher (every sector-teacher preset names it in each variant); with `kernel` (runs whose
    variants leave the teacher to the base configuration) no value is. The names "affine" and
    "lc_affine" are both teachers and sector sets, so position, not the name, decides.
    """
    parts = [p for p in (variant or "").split(",") if p]
    teacher = kernel
    if kernel is None:
        if not parts or parts[0] not in TEACHER_SECTORS:
            raise ValueError(f"variant '{variant}' names no teacher first: give --kernel NAME")
        teacher, parts = parts[0], parts[1:]
    sectors = parts.pop() if parts and parts[-1] in SECTOR_SETS else ""
    return teacher, sectors, ",".join(parts)


def mean_or_none(values):
    values = [v for v in values if v is not None]
    return statistics.mean(values) if values else None


GATE_NAMES = ("FJ", "affine", "LC")


def margin(gates_of, want):
    """The best wanted sector's gate minus the largest other gate: > 0 when recovered."""
    return max(gates_of[s] for s in want) - max(gates_of[s] for s in gates_of if s not in want)


def score_group(per_seed, want):
    """Recovery of one group of runs from their gates (one {"FJ", "affine", "LC"} dict per seed).

    A run or the mean is recovered when its margin is > 0: a tie between the expected sector and
    another is not a recovery (whichever max() meets first would otherwise decide it).
    Returns the mean gates, the top sector of the mean (None on a tie at the top), the mean's
    margin and recovery, the number of recovered seeds and each seed's margin.
    """
    mean = {s: statistics.mean(g[s] for g in per_seed) for s in GATE_NAMES}
    best = max(mean.values())
    leaders = [s for s in GATE_NAMES if mean[s] == best]
    seed_margins = [margin(g, want) for g in per_seed]
    return {"mean": mean, "top": leaders[0] if len(leaders) == 1 else None,
            "margin": margin(mean, want), "recovered": margin(mean, want) > 0,
            "seeds_recovered": sum(m > 0 for m in seed_margins), "seed_margins": seed_margins}


def expected_sectors(teacher, teacher_kind, old_rule):
    if old_rule:
        return TEACHER_SECTORS.get(teacher, set())
    return {preferred_sector(teacher, teacher_kind)}


def top_order(pj, sector):
    """The order r with the largest mean mass_<sector>r over runs, "-" when none is positive."""
    keys = [k for k in pj[0]["position"] if k.startswith("mass_" + sector) and
            k[len("mass_" + sector):].isdigit()]
    if not keys:
        return "-"
    means = {int(k[len("mass_" + sector):]): statistics.mean(
        statistics.mean(r["position"][k]) for r in pj) for k in keys}
    if max(means.values()) <= 0:
        return "-"
    best = max(means, key=means.get)
    return f"r{best} ({means[best]:.3f})"


def gates(path, teacher_kind="attention", old_rule=False, kernel=None):
    runs = json.load(open(path))["results"]
    groups = {}
    for r in runs:
        groups.setdefault(r.get("variant", ""), []).append(r)
    lengths = sorted({e["length"] for r in runs for e in r["eval"]})
    print("| teacher | sectors | lambda | seeds | " + " | ".join(f"acc @ {L}" for L in lengths) +
          " | gate FJ | gate affine | gate LC | top | expected | recovered (mean) | margin | "
          "recovered seeds | seed margins | top FJ order | top LC order | H | support | "
          "teacher H | teacher support |")
    print("|" + "---|" * (20 + len(lengths) - 1))
    recovered_total, scored = 0, 0
    for variant, rs in groups.items():
        teacher, sectors, lam = split_variant(variant, kernel)
        accs = []
        for L in lengths:
            vals = [metric_at(r, L, "accuracy") for r in rs]
            vals = [v for v in vals if v is not None]
            accs.append(f"{statistics.mean(vals):.3f} ± {statistics.stdev(vals):.3f}"
                        if len(vals) > 1 else f"{vals[0]:.3f}" if vals else "-")
        first = [e for r in rs for e in r["eval"] if e["length"] == lengths[0]]
        h = mean_or_none([e.get("final_query_entropy") for e in first])
        sup = mean_or_none([e.get("final_query_support") for e in first])
        th = mean_or_none([r.get("teacher_entropy") for r in rs])
        ts = mean_or_none([r.get("teacher_support") for r in rs])
        spread = " | ".join("-" if v is None else f"{v:.2f}" for v in (h, sup, th, ts))
        pj = [r for r in rs if "gate_FJ" in r.get("position", {})]
        if not pj:
            print(f"| {teacher} | {sectors or '-'} | {lam or '-'} | {len(rs)} | " +
                  " | ".join(accs) + " | - | - | - | - | - | - | - | - | - | - | - | " +
                  spread + " |")
            continue
        per_seed = [{s: statistics.mean(r["position"]["gate_" + s]) for s in GATE_NAMES}
                    for r in pj]
        want = expected_sectors(teacher, teacher_kind, old_rule)
        sc = score_group(per_seed, want)
        recovered_total += sc["recovered"]
        scored += 1
        seed_margins = ", ".join(f"{r['seed']}: {m:+.3f}" for r, m in zip(pj, sc["seed_margins"]))
        mean = sc["mean"]
        print(f"| {teacher} | {sectors or '-'} | {lam or '-'} | {len(pj)} | " + " | ".join(accs) +
              f" | {mean['FJ']:.3f} | {mean['affine']:.3f} | {mean['LC']:.3f} | "
              f"{sc['top'] or 'tie'} | {'/'.join(sorted(want))} | "
              f"{'yes' if sc['recovered'] else 'no'} | {sc['margin']:+.3f} | "
              f"{sc['seeds_recovered']}/{len(pj)} | {seed_margins} | {top_order(pj, 'FJ')} | "
              f"{top_order(pj, 'LC')} | {spread} |")
    rule = "the rule before amendment 6" if old_rule else "the reference's preferred_sector"
    print(f"\nrecovered in the mean ({rule}): {recovered_total} of {scored} PJ-bias groups")


def main(argv):
    if len(argv) >= 2 and argv[1] == "paired" and len(argv) in (8, 9):
        direction = argv[7]
        metric_ok = argv[6] in ("accuracy", "loss") or (
            argv[6].startswith("distance-") and argv[6][len("distance-"):].isdigit())
        if direction not in ("greater", "less") or not metric_ok:
            sys.exit(__doc__)
        paired(argv[2], argv[3], argv[4], int(argv[5]), argv[6], direction,
               argv[8] if len(argv) == 9 else None)
    elif len(argv) >= 3 and argv[1] == "gates":
        rest = argv[3:]
        old_rule = "--old-rule" in rest
        rest = [a for a in rest if a != "--old-rule"]
        teacher, kernel = "attention", None
        while rest:
            if rest[0] == "--teacher" and len(rest) >= 2 and rest[1] in ("attention", "signed"):
                teacher = rest[1]
            elif rest[0] == "--kernel" and len(rest) >= 2 and rest[1] in TEACHER_SECTORS:
                kernel = rest[1]
            else:
                print(__doc__, file=sys.stderr)
                sys.exit(2)
            rest = rest[2:]
        try:
            gates(argv[2], teacher, old_rule, kernel)
        except ValueError as e:
            print(f"results_tests.py: {argv[2]}: {e}", file=sys.stderr)
            sys.exit(2)
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main(sys.argv)
