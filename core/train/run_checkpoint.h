// One planned run's periodic checkpoint while a sweep trains it (RunCheckpointing in
// experiment.h): the trainer's own checkpoint file (checkpoint.cpp) and, beside it, PATH.json with
// what the checkpoint does not hold: the run's planned config (as the sweep gave it, before the
// trainer filled anything in), the run's intra-op thread count, so that a continued run sums
// in the same order as an uninterrupted one, and the wall seconds trained so far.
#pragma once

#include <memory>
#include <string>

#include "train/train_config.h"

namespace poslab {

class Trainer;

struct ResumedRun {
  std::unique_ptr<Trainer> trainer;  // null: no checkpoint at the path, start the run afresh
  int threads = 0;                   // the intra-op threads the run started with
  double seconds = 0;                // wall seconds of training before this start
};

// The run saved at `path` (and PATH.json), checked to be the run `config` plans: a checkpoint of
// another config, or a missing or malformed PATH.json, is refused with InvalidArgument naming the
// file and how to start afresh. No file at `path`: a ResumedRun without trainer.
ResumedRun resumeRunCheckpoint(const std::string& path, const TrainConfig& config);

// Writes the trainer's checkpoint to `path` and PATH.json beside it, each atomically, the
// checkpoint first (PATH.json's numbers only describe it, so a kill between the two loses nothing
// a continued run needs).
void saveRunCheckpoint(const std::string& path, const Trainer& trainer, const TrainConfig& planned,
                       int threads, double seconds);

// Removes both files (after the run's result is kept); missing files are no error.
void removeRunCheckpoint(const std::string& path);

}  // namespace poslab
