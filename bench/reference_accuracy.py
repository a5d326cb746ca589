#!/usr/bin/python3
"""Configurations and the side-by-side table of bench/reference_accuracy.sh.

Both sides of every pair are derived here from one source, PosLab's preset of the reference
configuration (resources/presets/*-paper.json), so that a hyper-parameter cannot differ between
them by a typing slip.

  pj PRESET TARGET TEACHER SEED STEPS POSLAB_JSON
      Writes POSLAB_JSON, the TrainConfig of `poslab-cli train --family pj-bias --architecture
      pj-reference` for the sector teacher TARGET (attention or signed teacher) at seed SEED, and
      prints the matching arguments of experiments/synthetic_query_lm.py on one line.
  klm PRESET REFERENCE_YAML T STEPS EVAL_LENGTHS SEED POSLAB_JSON REFERENCE_OUT_YAML
      Writes the TrainConfig of `poslab-cli train --architecture jordan-reference` on kernel-lm at
      training length T, STEPS steps, evaluated at EVAL_LENGTHS (comma list) on the preset's
      sequences per length, and the reference's YAML config (configs/kernel_lm.yaml) at the same
      values (its position train_context = T, as PosLab's L follows the training length).
  table OUT
      Prints the side-by-side tables (markdown) of the runs finished under OUT: per metric the
      reference's and PosLab's value at each seed, the means, their difference and Welch's
      two-sample t-test of it (unequal variances; not paired, since the two sides draw different
      random data at the same seed, so seed i of one side has no partner on the other).
  phaseb REFERENCE_SUMMARY POSLAB_JSON...
      Prints the Phase B table (RESULTS amendment 11 item 3): per target, each side's mean gates
      over its seeds, each seed's largest gate and top order, and the two readings: the claim
      "the gates move to the teacher's sector" holds on a side when the expected sector (the
      reference's preferred_sector map) has the largest mean gate and the largest gate in every
      seed; the sides agree on a target when they read the same sector and top order in every
      seed they share. REFERENCE_SUMMARY is experiments/adaptive_spectrum_sweep.py's summary.json;
      each POSLAB_JSON is one seed's `poslab-cli diagnose --target all --json`.
"""

import csv
import glob
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "scripts")]
from results_tests import two_sided_p  # noqa: E402  Student's t, shared with RESULTS' own tests
from side_by_side_timing import write_kernel_lm_config  # noqa: E402

TEACHER_OPTION = {"attention": 1, "signed": 0}  # PosLab's sector-teacher option "teacher"


def load_preset(path):
    with open(path) as f:
        return json.load(f)


def write_json(path, doc):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
    os.replace(tmp, path)


def pj_config(preset_path, target, teacher, seed, steps, out):
    preset = load_preset(preset_path)
    cfg = json.loads(json.dumps(preset["config"]))
    cfg["task"]["kernel"] = target
    cfg["task"].setdefault("options", {})["teacher"] = TEACHER_OPTION[teacher]
    cfg["model"]["family_params"] = preset["family_params"]["pj-bias"]
    cfg["run"].update({"steps": steps, "seed": seed, "device": "cpu"})
    write_json(out, cfg)
    task, model, optim, run = cfg["task"], cfg["model"], cfg["optim"], cfg["run"]
    if run["eval_sequences"] % optim["batch"]:
        raise SystemExit("reference_accuracy: eval_sequences must be a multiple of the batch")
    args = ["--device", "cpu", "--target", target, "--teacher", teacher, "--seeds", str(seed),
            "--steps", str(steps), "--sectors", "full", "--max-order", "3",
            "--train-len", str(task["train_length"]),
            "--eval-lens", ",".join(str(n) for n in run["eval_lengths"]),
            "--eval-batches", str(run["eval_sequences"] // optim["batch"]),
            "--embed-dim", str(model["d_model"]), "--num-heads", str(model["heads"]),
            "--layers", str(model["layers"]), "--mlp-ratio", "2",
            "--batch-size", str(optim["batch"]), "--lr", str(optim["lr"]),
            "--weight-decay", "1e-4",
            "--init-affine-slope", str(preset["family_params"]["pj-bias"]["slope"])]
    print(" ".join(args))


def klm_config(preset_path, ref_yaml, T, steps, eval_lengths, seed, out, ref_out):
    preset = load_preset(preset_path)
    cfg = json.loads(json.dumps(preset["config"]))
    cfg["task"]["train_length"] = T
    cfg["run"].update({"steps": steps, "eval_lengths": eval_lengths, "seed": seed,
                       "device": "cpu"})
    write_json(out, cfg)
    with open(os.devnull, "w") as null:
        stdout, sys.stdout = sys.stdout, null
        try:
            shapes = write_kernel_lm_config(ref_yaml, ref_out, steps, seq_len=T,
                                            eval_lengths=eval_lengths,
                                            eval_batches=cfg["run"]["eval_sequences"])
        finally:
            sys.stdout = stdout
    m, o = cfg["model"], cfg["optim"]
    mismatch = [(k, a, b) for k, a, b in (("d_model", m["d_model"], shapes["d_model"]),
                                          ("heads", m["heads"], shapes["heads"]),
                                          ("layers", m["layers"], shapes["layers"]),
                                          ("batch", o["batch"], shapes["batch"]),
                                          ("lr", o["lr"], shapes["lr"])) if a != b]
    if mismatch:
        raise SystemExit(f"reference_accuracy: preset and {ref_yaml} differ: {mismatch}")


# --- Welch's t-test -------------------------------------------------------------------------


def welch(xs, ys):
    """(t, df, two-sided p) of mean(ys) - mean(xs), or None with fewer than 2 values a side."""
    n1, n2 = len(xs), len(ys)
    if n1 < 2 or n2 < 2:
        return None
    m1, m2 = sum(xs) / n1, sum(ys) / n2
    v1 = sum((x - m1) ** 2 for x in xs) / (n1 - 1)
    v2 = sum((y - m2) ** 2 for y in ys) / (n2 - 1)
    se2 = v1 / n1 + v2 / n2
    if se2 == 0.0:
        return (0.0, float("nan"), 1.0) if m1 == m2 else (math.inf, float("nan"), 0.0)
    t = (m2 - m1) / math.sqrt(se2)
    df = se2 ** 2 / ((v1 / n1) ** 2 / (n1 - 1) + (v2 / n2) ** 2 / (n2 - 1))
    return t, df, two_sided_p(t, df)


# --- Reading the runs -----------------------------------------------------------------------


def read_pj_reference(path):
    with open(path) as f:
        rows = json.load(f)["rows"]
    out = {}
    for row in rows:
        n = row["eval_len"]
        out[f"accuracy@{n}"] = row["accuracy"]
        out[f"loss@{n}"] = row["loss"]
        out[f"attention entropy@{n}"] = row["attention_entropy"]
        out[f"attention support@{n}"] = row["attention_effective_support"]
    row = rows[0]
    # A sector set without PJ-bias (none) or without a sector has no gate or mass columns (or
    # nulls): those metrics are left out, not read as zero.
    for sector in ("fj", "affine", "lc"):
        if row.get(f"gate_{sector}") is not None:
            out[f"gate {sector}"] = row[f"gate_{sector}"]
    for sector in ("fj", "lc"):
        for r in range(4):
            if row.get(f"{sector}_mass_r{r}") is not None:
                out[f"mass {sector} r{r}"] = row[f"{sector}_mass_r{r}"]
    return out


def read_poslab(path):
    with open(path) as f:
        result = json.load(f)["results"][0]
    out = {}
    for e in result["eval"]:
        n = e["length"]
        out[f"accuracy@{n}"] = e["accuracy"]
        out[f"loss@{n}"] = e["loss"]
        if "final_query_entropy" in e:
            out[f"attention entropy@{n}"] = e["final_query_entropy"]
            out[f"attention support@{n}"] = e["final_query_support"]
    pos = result.get("position", {})
    for name, key in (("fj", "gate_FJ"), ("affine", "gate_affine"), ("lc", "gate_LC")):
        if key in pos:  # per head, averaged over layers: the reference's mean over both
            out[f"gate {name}"] = sum(pos[key]) / len(pos[key])
    for sector in ("FJ", "LC"):
        for r in range(4):
            if f"mass_{sector}{r}" in pos:
                out[f"mass {sector.lower()} r{r}"] = pos[f"mass_{sector}{r}"][0]
    return out


def read_klm_reference(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    last = max(int(r["step"]) for r in rows)
    out = {}
    for r in rows:
        if int(r["step"]) == last:
            out[f"accuracy@{r['context']}"] = float(r["accuracy"])
            out[f"loss@{r['context']}"] = float(r["loss"])
    return out


# The sector each Phase B target's gates should move to: synthetic_query_lm.py's preferred_sector
# with the attention teacher (the diagnostic fits kernels, not signed teachers); the diagnostic
# calls the affine target "linear".
PHASE_B_SECTOR = {"phase": "fj", "linear": "affine", "first_jet": "fj", "second_jet": "fj",
                  "third_jet": "fj", "recency_weak_jet": "affine", "lc_core": "lc",
                  "lc_affine": "lc"}
SECTORS = ("fj", "affine", "lc")


def phase_b_reference_rows(path):
    """{seed: {target: (gates fj/affine/lc, top order)}} of the sweep's summary.json."""
    with open(path) as f:
        rows = json.load(f)["rows"]
    out = {}
    for row in rows:
        gates = tuple(float(row[f"gate_{s}"]) for s in SECTORS)
        out.setdefault(int(row["seed"]), {})[row["target"]] = (gates, int(row["top_order"]))
    return out


def phase_b_poslab_rows(paths):
    out = {}
    for path in paths:
        with open(path) as f:
            doc = json.load(f)
        seed = int(doc["config"]["seed"])
        if seed in out:
            raise SystemExit(f"reference_accuracy: {path}: seed {seed} is given twice")
        out[seed] = {r["target"]: (tuple(float(r["gates"][s]) for s in SECTORS),
                                   int(r["top_order"])) for r in doc["results"]}
    return out


def phase_b_side(per_seed, target):
    """Mean gates, per-seed (top sector, top order) and whether the claim holds, or None."""
    seeds = sorted(s for s in per_seed if target in per_seed[s])
    if not seeds:
        return None
    runs = [per_seed[s][target] for s in seeds]
    mean = [sum(g[i] for g, _ in runs) / len(runs) for i in range(3)]
    tops = {s: (SECTORS[max(range(3), key=g.__getitem__)], order)
            for s, (g, order) in zip(seeds, runs)}
    expected = PHASE_B_SECTOR[target]
    holds = (SECTORS[max(range(3), key=mean.__getitem__)] == expected and
             all(sector == expected for sector, _ in tops.values()))
    return mean, tops, holds


def phase_b(reference_summary, poslab_paths):
    ref = phase_b_reference_rows(reference_summary)
    pl = phase_b_poslab_rows(poslab_paths)
    targets = [t for t in PHASE_B_SECTOR if any(t in v for v in list(ref.values()) +
                                                 list(pl.values()))]
    print(f"reference seeds {','.join(map(str, sorted(ref)))}; PosLab seeds "
          f"{','.join(map(str, sorted(pl)))}\n")
    print("| target | expected | reference gates fj/a/lc (mean) | reference top per seed | "
          "PosLab gates fj/a/lc (mean) | PosLab top per seed | claim (ref / PosLab) | agree |")
    print("|---|---|---|---|---|---|---|---|")
    word = {True: "holds", False: "no", None: "-"}
    for target in targets:
        a, b = phase_b_side(ref, target), phase_b_side(pl, target)
        gates = lambda side: "/".join(f"{g:.3f}" for g in side[0]) if side else "-"
        tops = lambda side: ", ".join(f"s{s} {sec.upper() if sec != 'affine' else sec} r{o}"
                                      for s, (sec, o) in side[1].items()) if side else "-"
        shared = sorted(set(a[1]) & set(b[1])) if a and b else []
        agree = ("-" if not shared else
                 "yes" if all(a[1][s] == b[1][s] for s in shared) else "no")
        print(f"| {target} | {PHASE_B_SECTOR[target]} | {gates(a)} | {tops(a)} | {gates(b)} | "
              f"{tops(b)} | {word[a[2] if a else None]} / {word[b[2] if b else None]} | "
              f"{agree} |")


def metric_order(name):
    kind, _, length = name.partition("@")
    return (0 if length else 1, int(length) if length else 0, kind)


def table(out_dir):
    groups = {}  # (experiment, configuration) -> side -> seed -> metrics
    for done in sorted(glob.glob(os.path.join(out_dir, "*", "*", "s*", "*.done"))):
        side_file = os.path.basename(done)[:-len(".done")]
        run_dir = os.path.dirname(done)
        experiment, config = run_dir.split(os.sep)[-3:-1]
        seed = int(os.path.basename(run_dir)[1:])
        if side_file == "poslab":
            metrics = read_poslab(os.path.join(run_dir, "poslab.out"))
        elif experiment == "pj":
            metrics = read_pj_reference(os.path.join(run_dir, "reference", "summary.json"))
        else:
            metrics = read_klm_reference(os.path.join(run_dir, "reference",
                                                      "kernel_lm_eval.csv"))
        groups.setdefault((experiment, config), {}).setdefault(side_file, {})[seed] = metrics
    if not groups:
        print(f"no finished runs under {out_dir}")
        return
    for (experiment, config), sides in groups.items():
        ref, pl = sides.get("reference", {}), sides.get("poslab", {})
        seeds = sorted(set(ref) | set(pl))
        print(f"\n### {experiment} {config} (seeds {','.join(map(str, seeds))}; reference "
              f"{len(ref)}, PosLab {len(pl)} runs)\n")
        head = "| metric | " + " | ".join(f"ref s{s}" for s in seeds) + " | " + \
            " | ".join(f"PosLab s{s}" for s in seeds) + " | ref mean | PosLab mean | diff | " \
            "Welch t (df) | p |"
        print(head)
        print("|" + "---|" * (head.count("|") - 1))
        names = sorted({k for m in list(ref.values()) + list(pl.values()) for k in m},
                       key=metric_order)
        for name in names:
            xs = [ref[s][name] for s in seeds if s in ref and name in ref[s]]
            ys = [pl[s][name] for s in seeds if s in pl and name in pl[s]]
            cell = lambda d, s: f"{d[s][name]:.4f}" if s in d and name in d[s] else "-"
            mx = f"{sum(xs) / len(xs):.4f}" if xs else "-"
            my = f"{sum(ys) / len(ys):.4f}" if ys else "-"
            diff = f"{sum(ys) / len(ys) - sum(xs) / len(xs):+.4f}" if xs and ys else "-"
            w = welch(xs, ys)
            test = ("-", "-") if w is None else (
                f"{w[0]:+.2f} ({w[1]:.1f})", f"{w[2]:.3f}" + (" *" if w[2] < 0.05 else ""))
            print(f"| {name} | " + " | ".join(cell(ref, s) for s in seeds) + " | " +
                  " | ".join(cell(pl, s) for s in seeds) + f" | {mx} | {my} | {diff} | "
                  f"{test[0]} | {test[1]} |")
    print("\ndiff = PosLab mean - reference mean; p: Welch's two-sided t-test (* p < 0.05), not "
          "corrected for the number of metrics.")


def main():
    mode, rest = (sys.argv[1], sys.argv[2:]) if len(sys.argv) > 1 else ("", [])
    if mode == "pj" and len(rest) == 6:
        pj_config(rest[0], rest[1], rest[2], int(rest[3]), int(rest[4]), rest[5])
    elif mode == "klm" and len(rest) == 8:
        klm_config(rest[0], rest[1], int(rest[2]), int(rest[3]),
                   [int(n) for n in rest[4].split(",")], int(rest[5]), rest[6], rest[7])
    elif mode == "table" and len(rest) == 1:
        table(rest[0])
    elif mode == "phaseb" and len(rest) >= 2:
        phase_b(rest[0], rest[1:])
    else:
        raise SystemExit("usage: reference_accuracy.py pj|klm|table|phaseb ... "
                         "(see its docstring)")


if __name__ == "__main__":
    main()
