#!/usr/bin/python3
"""Timing of a training window for bench/reference_side_by_side.sh, the same way on both sides.

The window is steps 2..N of an N-step run: step 1 (allocator and kernel warm-up), start-up,
imports, model construction and every evaluation lie outside it. Wall seconds and the process's
CPU seconds (all threads) are both measured, since the machine may be shared: CPU seconds are the
work, wall seconds include whatever share of the cores the process did not get.

  reference THREADS SCRIPT ARGS...
      Runs a Python training script (a paper's own code from its checkout, or
      bench/python_reference.py) unchanged with runpy, torch.set_num_threads(THREADS) first, and
      a timestamp after every torch.optim.AdamW.step() (the last call of each of their steps:
      data, forward, backward, clip and update lie between two stamps). Needs N >= 2 steps.
  poslab STEPS METRICS -- COMMAND...
      Runs a `poslab-cli train` COMMAND of STEPS + 1 steps and polls its METRICS file
      (metrics.jsonl, one line flushed after each step) and /proc/PID/stat every 2 ms; the window
      is from the line of step 1 to the line of step STEPS (the line of the last step, STEPS + 1,
      is written after the final evaluation, so that step is not timed; STEPS + 1 affects only
      the learning-rate schedule, not the work per step).
  kernel-lm-config SRC DST STEPS
      Writes DST, the jordan_rope YAML config SRC (configs/kernel_lm.yaml) with STEPS training
      steps on the CPU, one seed, no logging or evaluation before the end, and a one-sequence
      final evaluation at the training length (outside the window). Shapes, optimiser and
      position settings are SRC's.

Prints one line `TIMING {"steps": ..., "wall_s": ..., "cpu_s": ..., "threads": ...}` (steps:
the steps in the window) on stdout; everything the run itself prints goes to stderr.
"""

import json
import os
import runpy
import subprocess
import sys
import time

POLL_S = 0.002  # poll period of the poslab monitor: 2 ms against steps of 50 ms and more


def report(steps, wall_s, cpu_s, threads):
    print("TIMING " + json.dumps({"steps": steps, "wall_s": wall_s, "cpu_s": cpu_s,
                                  "threads": threads}), flush=True)


def time_reference(threads, script, args):
    import torch

    torch.set_num_threads(threads)
    stamps = []  # (wall s, process CPU s) after each optimiser step
    original_step = torch.optim.AdamW.step

    def timed_step(self, *a, **k):
        out = original_step(self, *a, **k)
        stamps.append((time.perf_counter(), time.process_time()))
        return out

    torch.optim.AdamW.step = timed_step
    sys.argv = [script] + args
    stdout = sys.stdout
    sys.stdout = sys.stderr  # the script's own output must not mix with the TIMING line
    try:
        runpy.run_path(script, run_name="__main__")
    finally:
        sys.stdout = stdout
    if len(stamps) < 2:
        raise SystemExit(f"side_by_side_timing: {script} made {len(stamps)} optimiser steps, "
                         "need at least 2")
    report(len(stamps) - 1, stamps[-1][0] - stamps[0][0], stamps[-1][1] - stamps[0][1],
           torch.get_num_threads())


def process_cpu_s(pid):
    """utime + stime of a process, all its threads, in seconds (proc(5))."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def count_lines(path):
    try:
        with open(path, "rb") as f:
            return f.read().count(b"\n")
    except FileNotFoundError:
        return 0


def time_poslab(steps, metrics, command):
    proc = subprocess.Popen(command, stdout=sys.stderr)
    marks = {}  # lines written -> (wall s, CPU s) when first seen
    while proc.poll() is None and steps not in marks:
        lines = count_lines(metrics)
        if lines >= 1 and 1 not in marks or lines >= steps:
            try:
                marks[1 if 1 not in marks else steps] = (time.perf_counter(),
                                                         process_cpu_s(proc.pid))
            except (FileNotFoundError, ProcessLookupError):
                break
        time.sleep(POLL_S)
    rc = proc.wait()
    if rc != 0:
        raise SystemExit(f"side_by_side_timing: poslab-cli exited with status {rc}")
    if 1 not in marks or steps not in marks:
        raise SystemExit("side_by_side_timing: the run ended before its metrics showed the window")
    threads = int(os.environ.get("POSLAB_THREADS", "0"))
    report(steps - 1, marks[steps][0] - marks[1][0], marks[steps][1] - marks[1][1], threads)


def write_kernel_lm_config(src, dst, steps, seq_len=None, eval_lengths=None, eval_batches=1):
    """DST: SRC with STEPS steps on the CPU, one seed, no logging or evaluation before the end.
    seq_len (default SRC's) sets the training length and the position settings' train_context
    with it; the final evaluation is at eval_lengths (default the training length), eval_batches
    sequences each. Returns (and prints) the shapes as JSON."""
    import yaml

    with open(src) as f:
        cfg = yaml.safe_load(f)
    klm = cfg["kernel_lm"]
    cfg["device"] = "cpu"
    cfg["seeds"] = [0]
    klm["train_steps"] = steps
    klm["log_every"] = 10**9  # no training-log lines inside the window
    klm["eval_every"] = 10**9  # only the final evaluation, after the window
    if seq_len is not None:
        klm["seq_len_train"] = seq_len
        cfg["position"]["train_context"] = seq_len
    klm["eval_lengths"] = list(eval_lengths or [int(klm["seq_len_train"])])
    klm["eval_batches"] = eval_batches
    with open(dst, "w") as f:
        yaml.safe_dump(cfg, f)
    m = klm["model"]
    shapes = {"d_model": m["d_model"], "heads": m["n_heads"], "layers": m["n_layers"],
              "mlp_ratio": m.get("mlp_ratio", 4), "batch": klm["batch_size"],
              "T": klm["seq_len_train"], "lr": klm["lr"],
              "weight_decay": klm.get("weight_decay", 0.0),
              "target_freq_index": klm["target_freq_index"], "benchmark": klm["benchmark"]}
    print(json.dumps(shapes))
    return shapes


def main():
    if len(sys.argv) < 2:
        raise SystemExit("usage: side_by_side_timing.py reference|poslab|kernel-lm-config ...")
    mode, rest = sys.argv[1], sys.argv[2:]
    if mode == "reference" and len(rest) >= 2:
        time_reference(int(rest[0]), rest[1], rest[2:])
    elif mode == "poslab" and len(rest) >= 4 and rest[2] == "--":
        time_poslab(int(rest[0]), rest[1], rest[3:])
    elif mode == "kernel-lm-config" and len(rest) == 3:
        write_kernel_lm_config(rest[0], rest[1], int(rest[2]))
    else:
        raise SystemExit(f"side_by_side_timing: bad arguments for '{mode}'")


if __name__ == "__main__":
    main()
