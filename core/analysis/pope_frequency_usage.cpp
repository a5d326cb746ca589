// PoPE frequency usage (pope_frequency_usage.h, docs/MATH.md 4.6): the fast path on whole tensors
// and the float64 loop it is checked against.
#include "analysis/pope_frequency_usage.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>

#include "encodings/families.h"
#include "encodings/pope.h"
#include "encodings/schedules.h"
#include "model/transformer.h"
#include "tasks/task.h"
#include "util/error.h"

namespace poslab {

namespace {

// (H, D) float64 tensor -> [head][c].
std::vector<std::vector<double>> rows(const at::Tensor& t) {
  at::Tensor c = t.to(at::kCPU, at::kDouble).contiguous();
  std::vector<std::vector<double>> out;
  for (int64_t h = 0; h < c.size(0); ++h) {
    const double* p = c[h].data_ptr<double>();
    out.emplace_back(p, p + c.size(1));
  }
  return out;
}

bool isPope(const std::string& family) {
  return family == PopeInfo().id;
}

// The model's family checked, the sizes and frequencies filled in; the grids left empty.
PopeFrequencyUsage start(const TinyTransformerImpl& model, const at::Tensor& tokens) {
  requireFrequencyUsageFamily(model.config.family);
  if (tokens.dim() != 2 || tokens.size(0) < 1 || tokens.size(1) < 1)
    throw InvalidArgument("PoPE frequency usage needs a (sequences, length) batch of tokens",
                          "got " + std::to_string(tokens.dim()) + " dimensions");
  PopeFrequencyUsage u;
  u.family = model.config.family;
  u.sequences = tokens.size(0);
  u.length = tokens.size(1);
  u.headDim = model.config.headDim();
  const double base = model.blocks.front()->attn->position->encoding().params().get("base");
  u.theta = isPope(u.family) ? popeFrequencies(u.headDim, base) : ropeFrequencies(u.headDim, base);
  return u;
}

// usage = A / sum_c A per layer and head, and its mean over the heads.
void finish(PopeFrequencyUsage& u) {
  u.usage = u.amplitude;
  u.layerUsage.clear();
  u.layerEffectiveFrequencies.clear();
  for (auto& layer : u.usage) {
    std::vector<double> mean(u.theta.size(), 0.0);
    for (auto& head : layer) {
      double total = 0;
      for (double a : head) total += a;
      for (size_t c = 0; c < head.size(); ++c) {
        head[c] /= total;  // total > 0: softplus is positive (0/0 = NaN only on underflow)
        mean[c] += head[c] / static_cast<double>(layer.size());
      }
    }
    u.layerEffectiveFrequencies.push_back(effectiveFrequencies(mean));
    u.layerUsage.push_back(std::move(mean));
  }
}

// (B, H, T, 2D) = [mu cos, mu sin] -> (B, H, T, D) mu: the modulus of each complex component.
// (n, H, T, D) -> (H, D): summed over the sequences and positions.
at::Tensor sumOverTokens(const at::Tensor& x) {
  return x.sum(at::IntArrayRef{0, 2});
}

at::Tensor modulus(const at::Tensor& polar) {
  const int64_t D = polar.size(-1) / 2;
  return at::hypot(polar.narrow(-1, 0, D), polar.narrow(-1, D, D));
}

// (B, H, T, D) raw q or k -> (B, H, T, D/2): the norm of each RoPE pair (x_2c, x_2c+1), MATH 0.3.
at::Tensor pairNorm(const at::Tensor& x) {
  const at::Tensor pairs = x.reshape({x.size(0), x.size(1), x.size(2), x.size(3) / 2, 2});
  return at::hypot(pairs.select(-1, 0), pairs.select(-1, 1));
}

// (B, H, T, D) raw q or k of `family` -> (B, H, T, F) magnitudes per frequency; the phase
// (positions, and PoPE's delta on keys) does not change them.
at::Tensor magnitudes(const std::string& family, const at::Tensor& x, const at::Tensor& pos,
                      const std::vector<double>& theta) {
  if (isPope(family)) return modulus(popeTransform(x, pos, theta, {}));
  return pairNorm(x);
}

double softplusReference(double x) {
  return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}

}  // namespace

double effectiveFrequencies(const std::vector<double>& usage) {
  double entropy = 0;
  for (double p : usage) {
    if (!std::isfinite(p)) return NAN;
    if (p > 0) entropy -= p * std::log(p);
  }
  return std::exp(entropy);
}

const std::vector<std::string>& frequencyUsageFamilies() {
  static const std::vector<std::string> families = {PopeInfo().id, RopeInfo().id};
  return families;
}

std::string frequencySchedule(const std::string& family) {
  if (family == PopeInfo().id) return "θ_c = base^{−c/D}";   // MATH 1.9: D frequencies
  if (family == RopeInfo().id) return "θ_c = base^{−2c/D}";  // MATH 1.2: D/2 pairs
  return {};
}

void requireFrequencyUsageFamily(const std::string& family) {
  const auto& known = frequencyUsageFamilies();
  if (std::find(known.begin(), known.end(), family) == known.end())
    throw InvalidArgument(
        "frequency usage needs a PoPE or RoPE run; this run's family is " + family,
        "train with --family " + PopeInfo().id + " or " + RopeInfo().id);
}

PopeFrequencyUsage popeFrequencyUsage(TinyTransformerImpl& model, const Batch& batch,
                                      long long rowsPerForward) {
  const at::Tensor& tokens = batch.tokens;  // (S, T)
  PopeFrequencyUsage u = start(model, tokens);
  torch::NoGradGuard noGrad;
  const int64_t S = u.sequences, T = u.length;
  const int64_t step = rowsPerForward > 0 ? rowsPerForward : S;
  const at::Tensor pos =
      at::arange(T, at::TensorOptions().dtype(at::kLong).device(tokens.device()));  // (T)
  // Running sums per layer, each (H, D): sum of mu_q, sum of mu_k, sum over causal pairs.
  std::vector<at::Tensor> sumQ, sumK, sumPairs;
  for (int64_t r = 0; r < S; r += step) {
    const auto qk = model.layerQueriesKeys(tokens.slice(0, r, std::min(r + step, S)));
    for (size_t l = 0; l < qk.size(); ++l) {
      // (n, H, T, F) magnitudes.
      const at::Tensor muQ = magnitudes(u.family, qk[l].first.to(at::kDouble), pos, u.theta);
      const at::Tensor muK = magnitudes(u.family, qk[l].second.to(at::kDouble), pos, u.theta);
      // sum_t mu_q(t) sum_{u <= t} mu_k(u): the causal pairs through a prefix sum over keys.
      const at::Tensor pairs = sumOverTokens(muQ * muK.cumsum(2));  // (H, D)
      if (sumQ.size() <= l) {
        sumQ.push_back(sumOverTokens(muQ));
        sumK.push_back(sumOverTokens(muK));
        sumPairs.push_back(pairs);
      } else {
        sumQ[l] += sumOverTokens(muQ);
        sumK[l] += sumOverTokens(muK);
        sumPairs[l] += pairs;
      }
    }
  }
  const double tokenCount = static_cast<double>(S * T);
  const double pairCount = static_cast<double>(S) * static_cast<double>(T * (T + 1) / 2);
  for (size_t l = 0; l < sumQ.size(); ++l) {
    u.queryMagnitude.push_back(rows(sumQ[l] / tokenCount));
    u.keyMagnitude.push_back(rows(sumK[l] / tokenCount));
    u.amplitude.push_back(rows(sumPairs[l] / pairCount));
  }
  finish(u);
  return u;
}

PopeFrequencyUsage popeFrequencyUsageReference(TinyTransformerImpl& model, const Batch& batch) {
  const at::Tensor& tokens = batch.tokens;  // (S, T)
  PopeFrequencyUsage u = start(model, tokens);
  torch::NoGradGuard noGrad;
  const int64_t S = u.sequences, T = u.length, F = static_cast<int64_t>(u.theta.size());
  const bool pope = isPope(u.family);
  for (const auto& [qRaw, kRaw] : model.layerQueriesKeys(tokens)) {
    const at::Tensor q64 = qRaw.to(at::kCPU, at::kDouble).contiguous();  // (S, H, T, D)
    const at::Tensor k64 = kRaw.to(at::kCPU, at::kDouble).contiguous();
    const auto q = q64.accessor<double, 4>(), k = k64.accessor<double, 4>();
    const int64_t H = q64.size(1);
    std::vector<std::vector<double>> mq(H, std::vector<double>(F)), mk = mq, amp = mq;
    // Frequency c's magnitude at (s, h, t): softplus(x_c) (PoPE) or |(x_2c, x_2c+1)| (RoPE).
    auto mu = [pope](const auto& x, int64_t s, int64_t h, int64_t t, int64_t c) {
      if (pope) return softplusReference(x[s][h][t][c]);
      return std::sqrt(x[s][h][t][2 * c] * x[s][h][t][2 * c] +
                       x[s][h][t][2 * c + 1] * x[s][h][t][2 * c + 1]);
    };
    for (int64_t h = 0; h < H; ++h)
      for (int64_t c = 0; c < F; ++c) {
        double sq = 0, sk = 0, pairs = 0, pairCount = 0, tokenCount = 0;
        for (int64_t s = 0; s < S; ++s)
          for (int64_t t = 0; t < T; ++t) {
            const double muQ = mu(q, s, h, t, c);
            sq += muQ;
            sk += mu(k, s, h, t, c);
            tokenCount += 1;
            for (int64_t j = 0; j <= t; ++j) {
              pairs += muQ * mu(k, s, h, j, c);
              pairCount += 1;
            }
          }
        mq[h][c] = sq / tokenCount;
        mk[h][c] = sk / tokenCount;
        amp[h][c] = pairs / pairCount;
      }
    u.queryMagnitude.push_back(std::move(mq));
    u.keyMagnitude.push_back(std::move(mk));
    u.amplitude.push_back(std::move(amp));
  }
  finish(u);
  return u;
}

}  // namespace poslab
