#!/usr/bin/env python3
"""scripts/results_tests.py gates: recovery by the PJ reference's preferred_sector, on hand-written
gates whose expected scores are worked out by hand below (binary fractions, so means and margins
are exact and a tie is a tie).

Run by CTest (scripts.results_tests); by hand: python3 tests/scripts/test_results_tests.py
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(REPO, "scripts", "results_tests.py")
sys.path.insert(0, os.path.join(REPO, "scripts"))
import results_tests as rt  # noqa: E402


def g(fj, affine, lc):
    return {"FJ": fj, "affine": affine, "LC": lc}


class PreferredSector(unittest.TestCase):
    def test_the_reference_map(self):
        # synthetic_query_lm.py preferred_sector, target by target.
        self.assertEqual(rt.preferred_sector("lc_core", "signed"), "LC")
        self.assertEqual(rt.preferred_sector("lc_affine", "attention"), "LC")
        self.assertEqual(rt.preferred_sector("affine", "signed"), "affine")
        self.assertEqual(rt.preferred_sector("recency_weak_jet", "attention"), "affine")
        self.assertEqual(rt.preferred_sector("recency_weak_jet", "signed"), "FJ")
        for jet in ("phase", "first_jet", "second_jet", "third_jet"):
            self.assertEqual(rt.preferred_sector(jet, "attention"), "FJ")


class ScoreGroup(unittest.TestCase):
    def test_a_recovered_target_with_one_seed_against_it(self):
        # first_jet, expected FJ. Means: FJ (0.5 + 0.375) / 2 = 0.4375, affine 0.375,
        # LC 0.1875; margin 0.4375 - 0.375 = 0.0625. Seed 0: 0.5 - 0.25 = +0.25; seed 1:
        # 0.375 - 0.5 = -0.125.
        sc = rt.score_group([g(0.5, 0.25, 0.25), g(0.375, 0.5, 0.125)], {"FJ"})
        self.assertEqual(sc["top"], "FJ")
        self.assertTrue(sc["recovered"])
        self.assertEqual(sc["margin"], 0.0625)
        self.assertEqual(sc["seeds_recovered"], 1)
        self.assertEqual(sc["seed_margins"], [0.25, -0.125])

    def test_a_margin_tie_is_not_recovered_whichever_sector_is_expected(self):
        # FJ and affine tie at 0.375 in the mean (seeds 0.5/0.25 and 0.25/0.5): margin 0 for
        # either expectation, no top sector; each seed leads by 0.25 one way or the other.
        seeds = [g(0.5, 0.25, 0.25), g(0.25, 0.5, 0.25)]
        for want, margins in (({"FJ"}, [0.25, -0.25]), ({"affine"}, [-0.25, 0.25])):
            sc = rt.score_group(seeds, want)
            self.assertIsNone(sc["top"])
            self.assertEqual(sc["margin"], 0.0)
            self.assertFalse(sc["recovered"], want)
            self.assertEqual(sc["seed_margins"], margins)
            self.assertEqual(sc["seeds_recovered"], 1)

    def test_lc_affine_led_by_affine_is_not_recovered_by_the_reference_map(self):
        # lc_affine with affine 0.5 > LC 0.375 > FJ 0.125: the reference expects LC (margin
        # 0.375 - 0.5 = -0.125); the old rule took LC or affine (margin 0.5 - 0.125 = +0.375).
        seeds = [g(0.125, 0.5, 0.375)]
        new = rt.score_group(seeds, rt.expected_sectors("lc_affine", "attention", False))
        old = rt.score_group(seeds, rt.expected_sectors("lc_affine", "attention", True))
        self.assertEqual((new["recovered"], new["margin"]), (False, -0.125))
        self.assertEqual((old["recovered"], old["margin"]), (True, 0.375))
        # LC ahead of affine: recovered by the reference's map, margin 0.5 - 0.375.
        lc = rt.score_group([g(0.125, 0.375, 0.5)], {"LC"})
        self.assertEqual((lc["top"], lc["recovered"], lc["margin"]), ("LC", True, 0.125))


class SplitVariant(unittest.TestCase):
    def test_position_decides_between_the_teacher_and_the_sector_set(self):
        self.assertEqual(rt.split_variant("affine,none"), ("affine", "none", ""))
        self.assertEqual(rt.split_variant("affine,affine"), ("affine", "affine", ""))
        self.assertEqual(rt.split_variant("lc_affine"), ("lc_affine", "", ""))
        self.assertEqual(rt.split_variant("lc_core,lc_affine"), ("lc_core", "lc_affine", ""))
        self.assertEqual(rt.split_variant("recency_weak_jet,8,fj_affine"),
                         ("recency_weak_jet", "fj_affine", "8"))
        self.assertEqual(rt.split_variant("affine", kernel="lc_affine"),
                         ("lc_affine", "affine", ""))
        self.assertEqual(rt.split_variant("", kernel="phase"), ("phase", "", ""))

    def test_a_variant_without_a_teacher_needs_the_kernel(self):
        with self.assertRaises(ValueError):
            rt.split_variant("full")


def run(variant, seed, fj, affine, lc, acc):
    # Two heads per gate: the script averages them (the two-head means are the g() values).
    return {"family": "pj-bias", "seed": seed, "variant": variant,
            "position": {"gate_FJ": [fj * 2, 0.0], "gate_affine": [affine, affine],
                         "gate_LC": [lc, lc], "mass_FJ1": [0.25, 0.25], "mass_FJ2": [0.5, 0.5]},
            "eval": [{"length": 96, "loss": 0.5, "accuracy": acc}]}


class GatesCommand(unittest.TestCase):
    def gates(self, runs, *args):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump({"task": "sector-teacher", "results": runs}, f)
        try:
            return subprocess.run([sys.executable, SCRIPT, "gates", f.name, *args],
                                  capture_output=True, text=True)
        finally:
            os.unlink(f.name)

    def rows(self, out):
        # Table rows by "teacher sectors": the cells after the leading "|".
        return {tuple(c.strip() for c in line.split("|")[1:3]): [c.strip() for c in
                line.split("|")[1:-1]] for line in out.splitlines()
                if line.startswith("| ") and not line.startswith("| teacher")}

    def test_the_table_scores_each_group_by_its_own_teacher(self):
        runs = [run("lc_affine,full", 0, 0.0625, 0.5, 0.375, 0.75),
                run("lc_affine,full", 1, 0.0625, 0.5, 0.375, 0.625),
                run("affine,full", 0, 0.0625, 0.5, 0.375, 1.0)]
        done = self.gates(runs, "--teacher", "signed")
        self.assertEqual(done.returncode, 0, done.stderr)
        rows = self.rows(done.stdout)
        # columns: teacher, sectors, lambda, seeds, acc @ 96, FJ, affine, LC, top, expected,
        # recovered, margin, recovered seeds, seed margins, top FJ order, ...
        lc = rows[("lc_affine", "full")]
        self.assertEqual(lc[4], "0.688 ± 0.088")  # (0.75 + 0.625) / 2, sd 0.125 / sqrt 2
        self.assertEqual(lc[5:14], ["0.062", "0.500", "0.375", "affine", "LC", "no", "-0.125",
                                    "0/2", "0: -0.125, 1: -0.125"])
        self.assertEqual(lc[14], "r2 (0.500)")
        aff = rows[("affine", "full")]
        self.assertEqual(aff[8:13], ["affine", "affine", "yes", "+0.125", "1/1"])
        self.assertIn("recovered in the mean (the reference's preferred_sector): 1 of 2",
                      done.stdout)
        old = self.gates(runs, "--teacher", "signed", "--old-rule")
        self.assertIn("(the rule before amendment 6): 2 of 2", old.stdout)

    def test_a_variant_without_a_teacher_is_refused_in_one_line(self):
        done = self.gates([run("full", 0, 0.25, 0.5, 0.25, 0.5)])
        self.assertEqual(done.returncode, 2)
        self.assertEqual(len(done.stderr.strip().splitlines()), 1)
        self.assertIn("give --kernel", done.stderr)
        ok = self.gates([run("full", 0, 0.25, 0.5, 0.25, 0.5)], "--kernel", "affine")
        self.assertEqual(ok.returncode, 0, ok.stderr)
        self.assertIn("1 of 1", ok.stdout)


if __name__ == "__main__":
    unittest.main()
