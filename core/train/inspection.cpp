// The inspection functions (inspection.h): attention maps and predictions on the seeded sample
// stream and the PoPE frequency usage, over an InspectedModel; and Trainer's own inspection
// calls: inspected(), leave-one-order-out and the learned position parameters.
#include <torch/torch.h>

#include "analysis/pope_frequency_usage.h"
#include "train/attention_blocks.h"
#include "train/lag_response.h"
#include "train/run_limits.h"
#include "train/trainer.h"
#include "train/trainer_state.h"
#include "util/error.h"

namespace poslab {

namespace {
constexpr uint64_t kPopeUsageStream = 2'000'007;  // its own seeded sample stream
}  // namespace

namespace {
torch::Device deviceOf(const InspectedModel& m) {
  return m.model.embed->weight.device();
}
}  // namespace

InspectedModel Trainer::inspected() {
  return {*s_->model, *s_->task, *s_->evalTask, s_->cfg};
}

AttentionSample attentionSample(const InspectedModel& m, long long length, long long maxSide) {
  torch::NoGradGuard noGrad;
  m.model.eval();
  m.model.configureAttention(true, recordingAttentionBlock(length), /*recordWeights=*/true);
  Batch b = m.task.sample(1, length, batchSeed(m.config.run.seed, 0, kSampleStream));
  m.model.forward(b.tokens.to(deviceOf(m)));
  AttentionSample out;
  out.length = length;
  out.size = std::min(length, maxSide);
  for (const auto& w : m.model.attentionWeights()) {
    // (1, H, T, T) -> (H, size, size) by average pooling.
    torch::Tensor pooled =
        torch::adaptive_avg_pool2d(w[0].to(torch::kCPU, torch::kDouble), {out.size, out.size})
            .contiguous();
    std::vector<std::vector<double>> heads;
    for (int64_t h = 0; h < pooled.size(0); ++h) {
      torch::Tensor map = pooled[h].contiguous();
      heads.emplace_back(map.data_ptr<double>(), map.data_ptr<double>() + map.numel());
    }
    out.maps.push_back(std::move(heads));
  }
  m.model.configureAttention(true, kEvalAttentionBlock, false);
  return out;
}

std::vector<ExamplePrediction> samplePredictions(const InspectedModel& m, long long count,
                                                 long long length) {
  if (count < 1) throw InvalidArgument("sample predictions need at least one example");
  torch::NoGradGuard noGrad;
  m.model.eval();
  m.model.configureAttention(true, /*block=*/kEvalAttentionBlock, false);
  // The sample stream as in attentionSample: example b does not depend on the batch size.
  Batch b = m.task.sample(count, length, batchSeed(m.config.run.seed, 0, kSampleStream));
  torch::Tensor probs = torch::softmax(m.model.forward(b.tokens.to(deviceOf(m))), -1)
                            .to(torch::kCPU, torch::kDouble);  // (B, T, V)
  torch::Tensor tokens = b.tokens.contiguous(), targets = b.targets.contiguous();
  torch::Tensor answer = b.answer.defined() ? b.answer.contiguous() : torch::Tensor();
  std::vector<ExamplePrediction> out(static_cast<size_t>(count));
  for (long long i = 0; i < count; ++i) {
    ExamplePrediction& e = out[static_cast<size_t>(i)];
    const int64_t* tok = tokens[i].data_ptr<int64_t>();
    const int64_t* tgt = targets[i].data_ptr<int64_t>();
    const bool* ans = answer.defined() ? answer[i].data_ptr<bool>() : nullptr;
    e.tokens.assign(tok, tok + length);
    // First answer position; tasks without answers (byte-lm): the last position with a target.
    for (long long t = 0; t < length && e.position < 0 && ans; ++t)
      if (ans[t]) e.position = t;
    for (long long t = length - 1; t >= 0 && e.position < 0; --t)
      if (tgt[t] != -1) e.position = t;
    if (e.position < 0) continue;
    torch::Tensor p = probs[i][e.position];  // (V)
    e.target = tgt[e.position];
    e.prediction = p.argmax().item<int64_t>();
    e.confidence = p[e.prediction].item<double>();
  }
  return out;
}

std::vector<OrderLoo> Trainer::pjOrderLoo(long long length) {
  State& s = *s_;
  auto modules = s.model->positionModules();
  if (modules.empty()) return {};
  const std::vector<Ablation> parts = modules[0]->ablations();  // the same in every layer
  if (parts.empty()) return {};
  const double base = evaluate({length}).front().loss;
  std::vector<OrderLoo> out;
  for (size_t i = 0; i < parts.size(); ++i) {
    for (auto& m : modules) m->setAblation(i, 0.0);
    const double without = evaluate({length}).front().loss;
    for (auto& m : modules) m->setAblation(i, 1.0);
    out.push_back({parts[i].group, parts[i].order, without - base});
  }
  return out;
}

PositionParameters Trainer::positionParameters(long long layer) const {
  auto modules = s_->model->positionModules();
  if (layer < 0 || layer >= static_cast<long long>(modules.size())) return {};
  return modules[layer]->snapshot();
}

std::vector<PositionParameters> Trainer::positionParametersByLayer() const {
  std::vector<PositionParameters> out;
  for (const auto& m : s_->model->positionModules()) out.push_back(m->snapshot());
  if (!out.empty() && out.front().empty()) return {};
  return out;
}

PositionParameters Trainer::positionParametersMean() const {
  return meanOverLayers(positionParametersByLayer());
}

PopeFrequencyUsage popeFrequencyUsage(const InspectedModel& m, long long length,
                                      long long sequences) {
  requireFrequencyUsageFamily(m.config.model.family);  // first: the likeliest mistake
  if (sequences < 1)
    throw InvalidArgument("PoPE frequency usage: sequences " + std::to_string(sequences) +
                          " must be at least 1");
  const Task& task = m.evalTask;
  if (length < task.minLength() || length > task.maxLength())
    throw InvalidArgument("PoPE frequency usage: length " + std::to_string(length) +
                              " is outside what task " + task.id() + " can generate",
                          "allowed [" + std::to_string(task.minLength()) + ", " +
                              std::to_string(task.maxLength()) + "]");
  checkEvaluationFits(m.config, m.task.vocabSize(), length, sequences);
  torch::NoGradGuard noGrad;
  m.model.eval();
  m.model.configureAttention(true, kEvalAttentionBlock, false);
  Batch b = task.sample(sequences, length, batchSeed(m.config.run.seed, 0, kPopeUsageStream));
  b.tokens = b.tokens.to(deviceOf(m));
  b.targets = b.targets.to(deviceOf(m));
  if (b.answer.defined()) b.answer = b.answer.to(deviceOf(m));
  // As many sequences per forward pass as the evaluation token budget holds (at least 1).
  const long long rows = std::max<long long>(1, m.config.run.evalTokensPerBatch / length);
  return popeFrequencyUsage(m.model, b, rows);
}

// The model's logits in evaluation mode, without gradient (lag_response.h).
at::Tensor predictLogits(const InspectedModel& m, const at::Tensor& tokens) {
  torch::NoGradGuard noGrad;
  m.model.eval();
  m.model.configureAttention(/*allowFactorized=*/true, /*block=*/kEvalAttentionBlock, false);
  return m.model.forward(tokens.to(deviceOf(m))).to(torch::kCPU, torch::kDouble);
}

}  // namespace poslab
