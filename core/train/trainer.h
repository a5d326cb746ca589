// Trains one tiny transformer on one task: steps, evaluation at many lengths (trainer.cpp),
// checkpoints (checkpoint.cpp); what the live views ask of the trained model is in inspection.h,
// free functions over inspected(). Single-threaded
// and synchronous; a run is driven step by step through training_loop.h (the CLI, the experiment
// runner, and TrainingWorker on its thread).
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "train/inspection.h"  // InspectedModel
#include "train/position_summary.h"
#include "train/snapshot.h"
#include "train/train_config.h"
#include "util/error.h"

namespace poslab {

namespace dist {
class DistGroup;
}
class Task;

// A non-finite loss or gradient. The step that produced it changed nothing.
class DivergedError : public Error {
 public:
  using Error::Error;
};

// Leave-one-out over the parts of the score the family lets evaluation switch off (PJ-bias: each
// sector and order): task-loss increase with that part zeroed.
struct OrderLoo {
  std::string sector;  // "FJ" or "LC"
  long long order = 0;
  double lossIncrease = 0;
};

// Called after each evaluation batch: which of the lengths (0-based, in the order asked), the
// length, sequence passes done at it, and passes at it: the sequences per length times
// evaluationPasses (run_limits.h: kv-retrieval runs its sequences again at each distance point),
// so that progress and ETAs count every pass.
using EvalProgress =
    std::function<void(size_t lengthIndex, long long length, long long done, long long total)>;

// Asked before every evaluation batch: true ends the evaluation at once with EvaluationStopped.
// A stop request (SIGINT or SIGTERM in a sweep) then acts within one batch, not after an
// evaluation that takes minutes at a paper's lengths.
using EvaluationStop = std::function<bool()>;

// Trainer::evaluate gave up because its EvaluationStop said so; nothing of it is kept. The
// weights are untouched (evaluation only reads them), so a checkpoint taken now is the model the
// evaluation would have measured.
class EvaluationStopped : public Error {
 public:
  using Error::Error;
};

class Trainer {
 public:
  // Validates the config, builds the task and a model seeded with run.seed.
  explicit Trainer(TrainConfig config);
  // The constructor's checks that need no data and no model: the config's fields, its tasks'
  // outlines (options, lengths), the evaluation's and a training step's budgets, the answer
  // logits, the pins, the device and the family's parameters. Throws what the constructor would;
  // cheap, so a UI thread may ask it (TrainingWorker does, before its own thread builds the run).
  static void check(TrainConfig config);
  ~Trainer();
  Trainer(const Trainer&) = delete;
  Trainer& operator=(const Trainer&) = delete;

  // One optimisation step on the batch for the current step number. Throws DivergedError (and
  // leaves the weights untouched) if the loss or gradient is not finite.
  Snapshot step();
  // Loss and accuracy at each length (streaming attention), seeded independently of training.
  // sequences: per length (0: the run config's evalSequences). Throws InvalidArgument before any
  // work when a length does not fit the evaluation budgets of run_limits.h.
  std::vector<EvalResult> evaluate(const std::vector<long long>& lengths, long long sequences = 0,
                                   const EvalProgress& progress = {});
  // Every later evaluate() (pjOrderLoo's too) asks `stop` before each batch and throws
  // EvaluationStopped once it returns true. Empty: evaluations run to their end.
  void setEvaluationStop(EvaluationStop stop);
  // The model, its tasks and config for the inspection functions (inspection.h: attention maps,
  // sample predictions, PoPE frequency usage; lag_response.h). Valid until the next step().
  InspectedModel inspected();
  std::vector<OrderLoo> pjOrderLoo(long long length);
  // The task as evaluation sees it (for text, the held-out split).
  const Task& evalTask() const;
  // Learned position parameters of layer `layer` (empty for a layer the model does not have).
  PositionParameters positionParameters(long long layer) const;
  // Every layer's, layer 0 first (empty for a family without position parameters).
  std::vector<PositionParameters> positionParametersByLayer() const;
  // Their mean over the layers (meanOverLayers): what reports and snapshots show by default.
  PositionParameters positionParametersMean() const;

  // Data-parallel training over the group's ranks (data_parallel_step.cpp): from now on each
  // step() trains rows [rank * B / N, (rank + 1) * B / N) of the single-process batch of B rows,
  // sums the gradients over the ranks (scaled so that they are the gradient of the
  // single-process loss mean) and takes the same optimiser step on every rank. The reported loss
  // and accuracy are those of the whole batch. Every rank must hold the same weights (same seed,
  // or the same checkpoint). Throws InvalidArgument when N does not divide optim.batch. Null:
  // back to one process. The group must outlive the trainer's steps.
  void setDataParallel(dist::DistGroup* group);

  // Atomic write; readable in Python with torch.load. Holds configs, weights, optimiser state.
  void saveCheckpoint(const std::string& path) const;
  // A trainer restored from a checkpoint; step() continues exactly where the saved run was.
  static std::unique_ptr<Trainer> fromCheckpoint(const std::string& path);

  // The live tensor of a named parameter ("embed.weight", "block0.attn.position.eta_raw", ...);
  // edits under torch::NoGradGuard change the model. Throws InvalidArgument for an unknown name.
  at::Tensor parameter(const std::string& name) const;
  std::vector<std::string> parameterNames() const;

  long long stepCount() const;
  const TrainConfig& config() const;
  std::string deviceName() const;
  // The device a run asking for `device` ("auto", "cpu", "cuda") trains on, as a trainer would
  // choose it, without building one ("cpu", "cuda:0"). Throws InvalidArgument for cuda without
  // CUDA.
  static std::string deviceNameFor(const std::string& device);
  long long parameterCount() const;
  long long vocabSize() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// The learning rate at a step: linear warm-up, then cosine to minLrRatio * lr.
double learningRateAt(const OptimConfig& o, long long step, long long totalSteps);
// Per-step data seed: a hash of the run seed and the step, so any step's batch can be regenerated.
uint64_t batchSeed(uint64_t runSeed, long long step, uint64_t stream);
// The length of step `step`'s batch (steps count from 0): task.trainLength; with task.trainLengths
// set trainLengths[step mod size] ("cycle") or one of them drawn by the data seed ("random"); with
// task.minTrainLength set a length drawn uniformly from [minTrainLength, trainLength] by the
// batch's data seed.
long long trainingLengthAt(const TaskConfig& task, long long step, uint64_t dataSeed);

}  // namespace poslab
