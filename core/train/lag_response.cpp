#include "train/lag_response.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "tasks/task.h"
#include "train/trainer.h"
#include "util/error.h"

namespace poslab {

namespace {

constexpr uint64_t kLagResponseStream = 2'000'005;  // its own seeded sample stream

// Up to maxLags lags evenly spread over [1, length-1], ascending, without repeats.
std::vector<long long> probeLags(long long length, long long maxLags) {
  const long long n = length - 1;
  std::vector<long long> lags;
  if (n <= maxLags) {
    for (long long d = 1; d <= n; ++d) lags.push_back(d);
    return lags;
  }
  if (maxLags == 1) return {1};  // the spread below divides by maxLags - 1
  for (long long i = 0; i < maxLags; ++i) {
    const long long d = 1 + static_cast<long long>(
                                std::llround(static_cast<double>(i) * static_cast<double>(n - 1) /
                                             static_cast<double>(maxLags - 1)));
    if (lags.empty() || lags.back() != d) lags.push_back(d);
  }
  return lags;
}

}  // namespace

void checkLagResponseRequest(const InspectedModel& m, long long length, long long samples,
                             long long maxLags) {
  const Task& task = m.evalTask;
  if (task.labelWeights(2).empty())
    throw InvalidArgument("lag response needs a bits-then-QUERY task (kernel-lm or sector-teacher)",
                          "this run's task is " + task.id());
  if (samples < 1 || maxLags < 1)
    throw InvalidArgument("lag response: samples " + std::to_string(samples) + " and lags " +
                          std::to_string(maxLags) + " must both be at least 1");
  if (length < std::max<long long>(2, task.minLength()) || length > task.maxLength())
    throw InvalidArgument("lag response: length " + std::to_string(length) +
                              " is outside what task " + task.id() + " can generate",
                          "allowed [" + std::to_string(std::max<long long>(2, task.minLength())) +
                              ", " + std::to_string(task.maxLength()) + "]");
}

WorkCost lagResponseCost(const InspectedModel& m, long long length, long long samples,
                         long long maxLags) {
  const long long rows = std::min(maxLags, std::max(length - 1, 1LL)) + 1;
  const long long batch =
      std::clamp<long long>(m.config.run.evalTokensPerBatch / std::max(length, 1LL), 1, 64);
  return forwardCost(m.config.model, m.task.vocabSize(), length, samples * rows,
                     std::min(batch, rows));
}

LagResponse measureLagResponse(const InspectedModel& m, long long length, long long samples,
                               long long maxLags, const LagResponseProgress& progress) {
  checkLagResponseRequest(m, length, samples, maxLags);
  checkWorkFits(lagResponseCost(m, length, samples, maxLags),
                "the lag response at length " + std::to_string(length) + " with " +
                    std::to_string(samples) + " samples and " + std::to_string(maxLags) + " lags");
  const Task& task = m.evalTask;
  const std::vector<double> weights = task.labelWeights(length);

  const Batch probe =
      task.sample(samples, length, batchSeed(m.config.run.seed, 0, kLagResponseStream));
  const std::vector<long long> lags = probeLags(length, maxLags);
  LagResponse out;
  out.length = length;
  out.trainLength = m.config.task.trainLength;
  out.samples = samples;
  out.lags = lags;
  for (long long d : lags) out.target.push_back(weights[static_cast<size_t>(d)]);
  out.response = lagResponseOnTokens(m, probe.tokens, lags, progress);
  return out;
}

std::vector<double> lagResponseOnTokens(const InspectedModel& m, const at::Tensor& tokens,
                                        const std::vector<long long>& lags,
                                        const LagResponseProgress& progress) {
  const int64_t samples = tokens.size(0), length = tokens.size(1);
  for (long long d : lags)
    if (d < 1 || d > length - 1)
      throw InvalidArgument("lag response: lag " + std::to_string(d) + " is outside [1, " +
                            std::to_string(length - 1) + "]");
  const auto nLags = static_cast<int64_t>(lags.size());
  std::vector<double> response(lags.size(), 0.0);
  if (nLags == 0 || samples == 0) return response;
  // Probe sequences per forward pass: as many as the evaluation token budget holds (at least 1).
  const int64_t rowsPerForward =
      std::clamp<int64_t>(m.config.run.evalTokensPerBatch / std::max<int64_t>(length, 1), 1, 64);
  std::vector<int64_t> flipAt;  // the position of each lag's bit
  for (long long d : lags) flipAt.push_back(static_cast<int64_t>(length - 1 - d));
  const torch::Tensor positions = torch::tensor(flipAt);  // (N)
  for (int64_t i = 0; i < samples; ++i) {
    // Row 0: the sample; row k + 1: the sample with the bit at lag lags[k] flipped. (N + 1, T)
    torch::Tensor rows = tokens[i].to(torch::kCPU).unsqueeze(0).repeat({nLags + 1, 1});
    torch::Tensor flipRows = torch::arange(1, nLags + 1);
    rows.index_put_({flipRows, positions}, 1 - rows.index({flipRows, positions}));
    std::vector<torch::Tensor> margins;
    for (int64_t r = 0; r <= nLags; r += rowsPerForward) {
      torch::Tensor logits =
          predictLogits(m, rows.slice(0, r, std::min(r + rowsPerForward, nLags + 1)));
      torch::Tensor last = logits.select(1, length - 1);  // (rows, V)
      margins.push_back(last.select(1, 1) - last.select(1, 0));
    }
    torch::Tensor m = torch::cat(margins);                                    // (N + 1)
    torch::Tensor x = 2 * rows[0].index({positions}).to(torch::kDouble) - 1;  // (N)
    torch::Tensor k = ((m[0] - m.slice(0, 1)) * x / 2).contiguous();          // (N)
    const double* kp = k.data_ptr<double>();
    for (int64_t j = 0; j < nLags; ++j) response[static_cast<size_t>(j)] += kp[j];
    if (progress && !progress(i + 1, samples)) throw LagResponseCancelled();
  }
  for (double& v : response) v /= static_cast<double>(samples);
  return response;
}

double lagResponseCosine(const LagResponse& r, long long fromLag, long long toLag) {
  double n = 0, ab = 0, aa = 0, bb = 0;
  for (size_t i = 0; i < r.lags.size(); ++i) {
    if (r.lags[i] < fromLag || r.lags[i] > toLag) continue;
    n += 1;
    ab += r.response[i] * r.target[i];
    aa += r.response[i] * r.response[i];
    bb += r.target[i] * r.target[i];
  }
  if (n < 1 || aa <= 0 || bb <= 0) return NAN;
  return ab / std::sqrt(aa * bb);
}

LagResponseSummary summarizeLagResponse(const LagResponse& r) {
  LagResponseSummary s;
  s.cosineAll = lagResponseCosine(r, 1, r.length - 1);
  s.cosineTrained = lagResponseCosine(r, 1, r.trainLength - 1);
  s.cosineBeyond = lagResponseCosine(r, r.trainLength, r.length - 1);
  s.impliedAccuracy = signAgreementFromCosine(s.cosineAll);
  return s;
}

double signAgreementFromCosine(double cosine) {
  if (!std::isfinite(cosine)) return NAN;
  return 1 - std::acos(std::clamp(cosine, -1.0, 1.0)) / M_PI;
}

}  // namespace poslab
