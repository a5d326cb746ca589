// What a Trainer holds (its model, optimiser, tasks and step), shared by the files that implement
// it: trainer.cpp (building, the step, evaluation), checkpoint.cpp (save, load, resume) and
// inspection.cpp (attention maps, sample predictions, position parameters). Internal to
// core/train: it includes torch, so keep it out of other headers.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "model/transformer.h"
#include "tasks/task.h"
#include "train/trainer.h"

namespace poslab {

// Data streams of batchSeed(): training batches, evaluation batches (offset by the length, so
// that each length has its own sequences) and the inspection sample inputs.
constexpr uint64_t kTrainStream = 0;
constexpr uint64_t kEvalStream = 1'000'003;
constexpr uint64_t kSampleStream = 2'000'003;

// The optimiser's parameter groups, in this order (checkpoints store the optimiser state in it).
enum ParameterGroup : size_t {
  kDecayedGroup = 0,    // matrices: weight decay optim.weightDecay
  kUndecayedGroup = 1,  // norms and biases: no weight decay
  kPositionGroup = 2,   // the position modules' parameters: no decay, lr * optim.positionLrScale
  kParameterGroupCount = 3,
};

struct Trainer::State {
  TrainConfig cfg;
  std::unique_ptr<Task> task;
  std::unique_ptr<Task> evalTask;  // makeEvaluationTask: for text, the held-out split
  torch::Device device{torch::kCPU};
  TinyTransformer model{nullptr};
  std::unique_ptr<torch::optim::AdamW> optimizer;
  std::vector<std::string> paramNames;  // in optimizer order (group 0, then 1, then 2)
  long long step = 0;
  dist::DistGroup* group = nullptr;  // data-parallel ranks (setDataParallel); null: one process
  EvaluationStop evaluationStop;     // setEvaluationStop: asked before every evaluation batch

  // Validates the config and builds the tasks, the model (seeded by run.seed) and the optimiser.
  void build();

  // Data parallel (data_parallel_step.cpp): forward and backward on this rank's rows of `full`
  // (B, T), the gradients summed over the ranks. Returns the loss and accuracy of all of `full`;
  // throws DivergedError (gradients zeroed) when the loss is not finite.
  std::pair<double, double> shardedLossAndGradients(const Batch& full);

  // Loss and accuracy of one batch; logits (B, T, V).
  static std::pair<torch::Tensor, double> lossAndAccuracy(const torch::Tensor& logits,
                                                          const Batch& b);

  Batch toDevice(Batch b) const {
    // To a GPU through pinned memory, queued without waiting for the GPU; on the CPU a no-op.
    auto move = [this](const torch::Tensor& t) {
      return device.is_cuda() ? t.pin_memory().to(device, /*non_blocking=*/true) : t.to(device);
    };
    b.tokens = move(b.tokens);
    b.targets = move(b.targets);
    if (b.answer.defined()) b.answer = move(b.answer);
    return b;
  }

  // The parameters in optimizer order (paramNames[i] names the i-th).
  std::vector<torch::Tensor> orderedParams() const {
    std::vector<torch::Tensor> out;
    for (const auto& g : optimizer->param_groups())
      for (const auto& p : g.params()) out.push_back(p);
    return out;
  }
};

}  // namespace poslab
