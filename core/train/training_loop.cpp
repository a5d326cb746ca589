#include "train/training_loop.h"

#include "train/trainer.h"

namespace poslab {

bool isFinalStep(const RunConfig& run, long long stepsDone) {
  return stepsDone >= run.steps;
}

bool isEvaluationStep(const RunConfig& run, long long stepsDone) {
  return isFinalStep(run, stepsDone) || (run.evalEvery > 0 && stepsDone % run.evalEvery == 0);
}

TrainingOutcome trainingStep(Trainer& trainer, const TrainingCallbacks& callbacks, Snapshot& snap) {
  try {
    snap = trainer.step();
  } catch (const DivergedError& e) {
    snap = Snapshot();
    snap.event = SnapshotEvent::Diverged;
    snap.step = trainer.stepCount();
    snap.message = e.what();
    return TrainingOutcome::Diverged;
  }
  if (callbacks.onStep && !callbacks.onStep(snap)) return TrainingOutcome::Stopped;
  const RunConfig& run = trainer.config().run;
  if (isEvaluationStep(run, snap.step)) {
    if (callbacks.evaluate)
      callbacks.evaluate(trainer, snap);
    else
      snap.eval = trainer.evaluate(run.evalLengths);
  }
  const bool finished = isFinalStep(run, snap.step);
  if (finished) {
    snap.event = SnapshotEvent::Finished;
    if (snap.message.empty()) snap.message = "finished";
  }
  if (callbacks.onSnapshot && !callbacks.onSnapshot(snap)) return TrainingOutcome::Stopped;
  return finished ? TrainingOutcome::Finished : TrainingOutcome::Continue;
}

TrainingResult runTraining(Trainer& trainer, const TrainingCallbacks& callbacks) {
  TrainingResult result;
  result.last.step = trainer.stepCount();
  while (!isFinalStep(trainer.config().run, trainer.stepCount())) {
    result.outcome = trainingStep(trainer, callbacks, result.last);
    if (result.outcome != TrainingOutcome::Continue) return result;
  }
  result.outcome = TrainingOutcome::Finished;
  return result;
}

}  // namespace poslab
