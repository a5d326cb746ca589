// Everything a run needs, checked when an experiment is loaded (a session opened or pasted, a
// preset or --config read, a checkpoint opened) instead of when it starts to train: the strict
// reader (experiment_spec.h) checks each field alone; this checks what the fields mean together
// and against the machine. One function for the CLI and the GUI, so a setup one of them accepts
// is one the other can train. Plain data in the interface, no torch.
#pragma once

#include "train/experiment_spec.h"
#include "train/train_config.h"

namespace poslab {

struct JsonPath;  // io/json_fields.h

// Throws InvalidArgument naming at.source and the field, as a path below `at` in the experiment
// format ("config.task.kernel", "variants[1].text_file", "family_params.pope.gamma",
// "config.run.eval_lengths[0]", "config.run.device"), when any planned run (each variant and
// family; the seeds change nothing checked here) could not train:
// - the config's fields and the checks across them (TrainConfig::validate);
// - the task: a known id, a kernel (teacher) the task knows, option names the task takes and
//   values in their ranges, a text file that exists, is a regular readable file of valid text
//   (byte-lm builds its corpus), the training lengths the task can generate;
// - the family: parameter names the family has, finite values in range, a combination it accepts
//   with this model's heads and head size; pins it learns;
// - the evaluation: each length (empty: the train length) one the task can generate and within the
//   work and memory budgets of run_limits.h;
// - the device: cuda only where LibTorch sees a CUDA device.
// The model is not built and nothing is trained; byte-lm reads its text once (Read).
//
// How a text task's corpus is checked. Read: it is read and its UTF-8 checked (the CLI, before a
// run). Size: only the file is checked (regular, readable, under its limit) and the lengths
// against its size, nothing read (the window, whose checks run on its UI thread: the run reads
// the corpus on its own thread when it starts and says there what is wrong with it).
enum class CorpusCheck { Read, Size };
void checkTrainable(const ExperimentSpec& spec, const JsonPath& at,
                    CorpusCheck corpus = CorpusCheck::Read);

// One config (train, eval, a config.json): field paths below `at` ("run.device", "task.kernel").
void checkTrainable(const TrainConfig& config, const JsonPath& at,
                    CorpusCheck corpus = CorpusCheck::Read);

}  // namespace poslab
