// A sweep (the runs of an experiment: variant x family x seed) split over the ranks of a
// distributed launch, and resumable from its output folder. `run --preset` and `compare` call
// it; one process alone with no folder is exactly runExperiment.
//
// - The runs not yet finished are dealt round-robin in plan order: the k-th remaining run goes
//   to rank k % worldSize. Every run is seeded by itself (its seed and step), so where it trains
//   does not change its numbers (the same intra-op thread count per run assumed: one per run on a
//   machine whose cores are shared by its ranks, as `compare` with one job per core has).
// - Each finished run is written at once to OUT/runs/NNN-LABEL.json (atomically; NNN its plan
//   index, the file also holds its config), by the rank that trained it and again by rank 0
//   when it gathers it, so that rank 0's folder is complete even on machines without a shared
//   file system.
// - A rerun with the same folder skips the runs whose file is there (rank 0 decides and tells the
//   others); a file written for another config is refused (InvalidArgument naming it).
// - A run in flight writes its checkpoint to OUT/partial/ every checkpointEvery steps and when
//   stopped; the rerun continues it from there (RunCheckpointing in experiment.h), so a sweep
//   killed at any moment loses at most checkpointEvery steps of each run in flight.
// - Rank 0 gathers every result through rank 0's store and returns them in plan order; the other
//   ranks return an empty vector once their share is trained and sent.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "train/experiment.h"

namespace poslab::dist {

class DistGroup;

struct SweepOptions {
  std::string outDir;          // the sweep's folder ("" : no run files, no resume)
  DistGroup* group = nullptr;  // the launch (null: this process trains every run)
  // With outDir: each run in flight keeps its checkpoint in OUT/partial/NNN-LABEL.pt, written
  // every this many steps (0: only when stopped), and a rerun continues it from there.
  long long checkpointEvery = 0;
  // Set from outside (a signal handler): runs in flight checkpoint and runSweep throws
  // SweepStopped (experiment.h).
  const std::atomic<bool>* stop = nullptr;
  ExperimentEvalProgress evalProgress;  // the runs' evaluations, batch by batch (may be empty)
};

std::vector<RunResult> runSweep(const ExperimentSpec& spec, const ExperimentProgress& progress,
                                const std::string& checkpointDir, int jobs,
                                const ExperimentRunDone& runDone, const SweepOptions& options);

// Where a finished run is kept: OUT/runs/NNN-LABEL.json (LABEL: family, variant, seed; characters
// other than letters, digits, '.', '-' and '_' become '_').
std::string runFilePath(const std::string& outDir, size_t index, const PlannedRun& run);

// Where a run in flight keeps its checkpoint: OUT/partial/NNN-LABEL.pt (LABEL as runFilePath).
std::string runCheckpointPath(const std::string& outDir, size_t index, const PlannedRun& run);

// How many of the plan's runs are still to train (those without a run file in outDir).
size_t unfinishedRunCount(const ExperimentSpec& spec, const std::string& outDir);

}  // namespace poslab::dist
