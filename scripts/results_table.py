#!/usr/bin/env python3
"""Turns the JSON of `poslab-cli run --preset NAME --json` into Markdown tables for docs/RESULTS.md.

Usage: results_table.py PRESET.json
Prints, per (variant, family), the mean and sample standard deviation over seeds of the accuracy
(or loss, for tasks without accuracy) at every evaluation length; for PJ-bias runs also the mean
learned gates and the sector that carries the most gate weight; for kv-retrieval a second table of
the accuracy against the stored key's distance.
"""
import json
import statistics
import sys
from collections import OrderedDict


def fmt(values):
    if not values:
        return "diverged"
    mean = statistics.mean(values)
    if len(values) > 1:
        return f"{mean:.3f} ± {statistics.stdev(values):.3f}"
    return f"{mean:.3f}"


def main(path):
    doc = json.load(open(path))
    runs = doc["results"]
    metric = "accuracy" if any(e["accuracy"] is not None for r in runs for e in r["eval"]) else "loss"
    lengths = sorted({e["length"] for r in runs for e in r["eval"]})
    groups = OrderedDict()
    for r in runs:
        groups.setdefault((r.get("variant", ""), r["family"]), []).append(r)
    has_variant = any(v for v, _ in groups)
    head = (["teacher"] if has_variant else []) + ["family", "seeds"] + [f"{metric} @ {L}" for L in lengths]
    pj = any("gate_FJ" in r.get("position", {}) for r in runs)
    if pj:
        head += ["gate FJ", "gate affine", "gate LC", "top sector"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for (variant, family), rs in groups.items():
        row = ([variant] if has_variant else []) + [family, str(len(rs))]
        for L in lengths:
            row.append(fmt([e[metric] for r in rs for e in r["eval"] if e["length"] == L]))
        if pj:
            gates = {}
            for name in ("gate_FJ", "gate_affine", "gate_LC"):
                vals = [statistics.mean(r["position"][name]) for r in rs if name in r.get("position", {})]
                gates[name] = statistics.mean(vals) if vals else float("nan")
            row += [f"{gates['gate_FJ']:.2f}", f"{gates['gate_affine']:.2f}", f"{gates['gate_LC']:.2f}",
                    max(gates, key=gates.get).replace("gate_", "")]
        print("| " + " | ".join(row) + " |")
    distance_table(groups, lengths)


def distance_table(groups, lengths):
    """kv-retrieval: accuracy against the stored key's distance, per family, length and distance."""
    columns = sorted({(e["length"], int(d)) for rs in groups.values() for r in rs
                      for e in r["eval"] for d in e.get("accuracy_by_distance", {})})
    if not columns:
        return
    print()
    head = ["family", "seeds"] + [f"acc @ {L}, d = {d}" for L, d in columns]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for (variant, family), rs in groups.items():
        row = [family + (f" ({variant})" if variant else ""), str(len(rs))]
        for L, d in columns:
            row.append(fmt([e["accuracy_by_distance"][str(d)] for r in rs for e in r["eval"]
                            if e["length"] == L and str(d) in e.get("accuracy_by_distance", {})]))
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main(sys.argv[1])
