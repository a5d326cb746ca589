// Trainer's data-parallel step (Trainer::setDataParallel): every rank draws the whole
// single-process batch (the task generators are cheap next to the model) and trains its own
// rows of it, so that N processes and one train on the same global batch.
//
// The single-process loss is the mean over the batch's M scored tokens (targets != -1). Each rank
// computes the sum of its tokens' losses divided by that global M, so the gradients summed over
// the ranks are exactly the gradient of the single-process mean, up to float summation order.
// The gradients go as one flat float buffer ("one bucket": the models here are a few MB at
// most), with the loss and accuracy counts in a second float64 buffer, both all-reduced after
// backward (not overlapped with it: see docs/DISTRIBUTED.md). Every rank then holds the same
// summed gradient and takes the same clipped AdamW step, so the replicas stay identical.
#include <torch/torch.h>

#include <cmath>

#include "dist/dist_group.h"
#include "train/trainer_state.h"
#include "util/error.h"

namespace poslab {

void Trainer::setDataParallel(dist::DistGroup* group) {
  if (group && s_->cfg.optim.batch % group->worldSize() != 0)
    throw InvalidArgument("--batch " + std::to_string(s_->cfg.optim.batch) +
                              " does not split evenly over " + std::to_string(group->worldSize()) +
                              " processes",
                          "use a batch that is a multiple of the process count");
  s_->group = group;
}

std::pair<double, double> Trainer::State::shardedLossAndGradients(const Batch& full) {
  const int64_t B = full.tokens.size(0);
  const int64_t N = group->worldSize();
  const int64_t rows = B / N;
  const int64_t first = group->rank() * rows;
  Batch b;
  b.tokens = full.tokens.narrow(0, first, rows);    // (B/N, T)
  b.targets = full.targets.narrow(0, first, rows);  // (B/N, T)
  if (full.answer.defined()) b.answer = full.answer.narrow(0, first, rows);

  const double scored = (full.targets != -1).sum().item<double>();  // M, over the whole batch
  const bool hasAccuracy = full.answer.defined() && full.answer.any().item<bool>();
  torch::Tensor logits = model->forward(b.tokens);  // (B/N, T, V)
  const int64_t V = logits.size(-1);
  torch::Tensor lossSum = torch::nn::functional::cross_entropy(
      logits.reshape({-1, V}), b.targets.reshape({-1}),
      torch::nn::functional::CrossEntropyFuncOptions().ignore_index(-1).reduction(torch::kSum));
  (lossSum / std::max(1.0, scored)).backward();
  double hits = 0;
  if (hasAccuracy && b.answer.defined())
    hits = (logits.argmax(-1) == b.targets).logical_and(b.answer).sum().item<double>();

  // The gradients in optimizer order, skipping those no rank has (the same on every rank).
  std::vector<torch::Tensor> grads;
  for (const auto& p : orderedParams())
    if (p.grad().defined()) grads.push_back(p.grad());
  std::vector<torch::Tensor> flat;
  for (const auto& g : grads) flat.push_back(g.reshape({-1}));
  std::vector<torch::Tensor> buffers{torch::cat(flat), torch::tensor({lossSum.item<double>(), hits},
                                                                     torch::dtype(torch::kDouble))};
  group->allReduceSum(buffers);
  int64_t offset = 0;
  for (auto& g : grads) {
    g.copy_(buffers[0].narrow(0, offset, g.numel()).view_as(g));
    offset += g.numel();
  }
  const double lossValue = buffers[1][0].item<double>() / std::max(1.0, scored);
  if (!std::isfinite(lossValue)) {
    optimizer->zero_grad();
    throw DivergedError("training diverged at step " + std::to_string(step) +
                            ": the loss is not finite (" + std::to_string(lossValue) + ")",
                        "the weights are those before this step; lower the learning rate");
  }
  const double answers = hasAccuracy ? full.answer.sum().item<double>() : 0;
  const double acc = hasAccuracy ? buffers[1][1].item<double>() / answers : NAN;
  return {lossValue, acc};
}

}  // namespace poslab
