// The one training loop: `poslab-cli train`, the experiment runner (`run --preset`, `compare`)
// and the GUI's TrainingWorker all drive a Trainer through it, so that a step, its evaluation
// schedule (RunConfig::evalEvery) and the end of a run mean the same everywhere. Plain structs and
// callbacks; a callback that returns false stops the loop.
#pragma once

#include <functional>

#include "train/snapshot.h"
#include "train/train_config.h"

namespace poslab {

class Trainer;

// The evaluation schedule, RunConfig::evalEvery's one meaning: the run evaluates at
// run.evalLengths after the step that completes step number `stepsDone` (1-based, counted from
// the start of the run, so across a resume from a checkpoint) when evalEvery > 0 and stepsDone
// is a multiple of it, and always after its last step (stepsDone == run.steps). evalEvery 0: only
// after the last step. Example: steps 10, evalEvery 4 evaluates after steps 4, 8 and 10.
bool isEvaluationStep(const RunConfig& run, long long stepsDone);
// True when stepsDone completes the run (stepsDone >= run.steps).
bool isFinalStep(const RunConfig& run, long long stepsDone);

struct TrainingCallbacks {
  // After every step, before its evaluation (snap.eval is still empty; event Step): progress
  // bars, step counters. False: stop at once, without the evaluation.
  std::function<bool(const Snapshot& snap)> onStep;
  // Runs a due evaluation: fills snap.eval (and may set snap.message). Empty: snap.eval =
  // trainer.evaluate(trainer.config().run.evalLengths), letting its exceptions through. `train`
  // saves its checkpoint here first; the GUI's worker turns a failure into a message.
  std::function<void(Trainer& trainer, Snapshot& snap)> evaluate;
  // After every step once it is complete: snap.eval filled on evaluation steps; on the last step
  // event Finished and message "finished" (unless evaluate set one). False: stop.
  std::function<bool(const Snapshot& snap)> onSnapshot;
};

enum class TrainingOutcome {
  Continue,  // a step was done and the run goes on
  Finished,  // the run has all run.steps steps
  Stopped,   // a callback returned false
  Diverged,  // the step failed (non-finite loss or gradient); the weights are those before it
};

// One step of the loop: trainer.step(), onStep, the evaluation when isEvaluationStep, onSnapshot.
// snap receives the step's snapshot; for Diverged, a snapshot with event Diverged, the step count
// and the error message (no callback sees it). Call it only while trainer.stepCount() <
// trainer.config().run.steps. Exceptions other than divergence (from evaluation or a callback)
// propagate.
TrainingOutcome trainingStep(Trainer& trainer, const TrainingCallbacks& callbacks, Snapshot& snap);

struct TrainingResult {
  TrainingOutcome outcome = TrainingOutcome::Finished;  // Finished, Stopped or Diverged
  // The last step's snapshot (for Finished, with the final evaluation); for Diverged, the
  // Diverged snapshot. A trainer that had no step left gives a default snapshot at its step
  // count, without evaluation.
  Snapshot last;
};

// Steps from trainer.stepCount() to run.steps: trainingStep until the run is finished, a callback
// stops it or it diverges.
TrainingResult runTraining(Trainer& trainer, const TrainingCallbacks& callbacks);

}  // namespace poslab
