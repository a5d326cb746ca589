#!/usr/bin/env python3
"""Writes the hand-made seed inputs of the fuzz harnesses into tests/fuzz/corpus/<harness>/.

Run once from the repository root with the run directories of three tiny training runs (each with
config.json and checkpoint.pt), e.g. made by
  poslab-cli train --family rope --task indirect-indexing --task-set alphabet=8 \
    --task-set max_offset=1 --train-length 6 --steps 2 --eval-every 0 --eval-sequences 1 \
    --eval-lengths 6 --batch 2 --d-model 8 --heads 2 --layers 1 --out RUN
  tests/fuzz/tools/make_seeds.py RUN_ROPE RUN_POPE RUN_JORDAN
The corpora in git are these seeds after fuzzing, minimised with scripts/fuzz.sh --merge.
The first byte of a state_string, experiment_config or checkpoint input picks the harness's
mode (see each harness's header comment).
"""
import base64
import json
import os
import struct
import sys
import zipfile
import zlib

root = os.path.join("tests", "fuzz", "corpus")


def put(harness, name, data):
    os.makedirs(os.path.join(root, harness), exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(root, harness, name), "wb") as f:
        f.write(data)


def q_compress(data):
    return struct.pack(">I", len(data)) + zlib.compress(data)


runs = sys.argv[1:]
configs = [json.load(open(os.path.join(r, "config.json"))) for r in runs]
presets = sorted(os.listdir("resources/presets"))

smallest = {"format": "poslab-session-1", "explorer": {"family": "rope"},
            "training": {"families": ["rope"], "config": {}}}
full = {
    "format": "poslab-session-1", "tab": "training",
    "explorer": {"family": "jordan-exact",
                 "values": {"gamma": 0.0123, "omega": 0.25, "eta": 0.1, "head_dim": 16}},
    "views": {"kernel": {"lags": 1024, "log_lag": True, "overlay": ["rope"]},
              "attention": {"T": 256, "head": 1, "log_color": False},
              "norms": {"max_position": 4096},
              "probe": {"target": "mixed_raw", "family_only": True},
              "diagnostics": {"target": "mixed_raw"}},
    "training": {"name": "custom", "description": "", "paper": "", "families": ["pope", "rope"],
                 "seeds": [7], "family_params": {"pope": {"gamma": 0.5}},
                 "variants": [{"kernel": "first_jet"}], "config": configs[0]},
    "trained_models": [{"family": "pope", "file": "s.poslab.d/run0-pope.pt", "step": 2},
                       {"family": "rope", "file": "s.poslab.d/run1-rope.pt", "step": 2}],
}
sessions = {"smallest.poslab": smallest, "full.poslab": full}
for name, s in sessions.items():
    put("session_file", name, json.dumps(s, indent=2))
put("session_file", "bad_syntax.poslab", '{"format": "poslab-session-1", "tab": k}')
put("session_file", "other_format.poslab", '{"format": "poslab-session-2"}')

for name, s in sessions.items():
    compact = json.dumps(s, separators=(",", ":")).encode()
    text = "poslab1." + base64.urlsafe_b64encode(q_compress(compact)).decode().rstrip("=")
    put("state_string", "text-" + name, b"\x00" + text.encode())
    put("state_string", "packed-" + name, b"\x01" + q_compress(compact))
    put("state_string", "json-" + name, b"\x02" + compact)

for p in presets:
    put("experiment_config", "preset-" + p, b"\x00" + open("resources/presets/" + p, "rb").read())
for i, c in enumerate(configs):
    text = json.dumps(c).encode()
    put("experiment_config", "config-%d.json" % i, b"\x01" + text)
    put("experiment_config", "checkpoint-config-%d.json" % i, b"\x02" + text)
    put("experiment_config", "model-%d.json" % i, b"\x03" + json.dumps(c["model"]).encode())

cli = [
    ["--task", "indirect-indexing", "--steps", "10", "--eval-lengths", "12,24", "--set",
     "gamma=0.5", "--family", "pope"],
    ["--task", "kernel-lm", "--kernel", "first_jet", "--task-set", "head_dim=8", "--seed", "3",
     "--min-train-length", "8", "--train-length", "64"],
    ["--task", "sector-teacher", "--pin", "gamma", "--family", "jordan-exact", "--lr", "1e-3",
     "--batch", "8", "--d-model", "32", "--heads", "2", "--layers", "1"],
    ["0,1,2", "rope,pope,alibi", "64,256,1024", "base=10000", "-1", "18446744073709551616"],
]
for i, words in enumerate(cli):
    put("cli_options", "words-%d" % i, "\n".join(words))

for i, r in enumerate(runs[:2]):
    put("checkpoint", "file-%d.pt" % i, b"\x00" + open(os.path.join(r, "checkpoint.pt"), "rb").read())
for i, r in enumerate(runs):
    z = zipfile.ZipFile(os.path.join(r, "checkpoint.pt"))
    pkl = [n for n in z.namelist() if n.endswith("data.pkl")][0]
    put("checkpoint", "pickle-%d.pkl" % i, b"\x01" + z.read(pkl))
