#include "analysis/feature_norms.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "encodings/encoding.h"
#include "util/error.h"

namespace poslab {

std::vector<long long> logPositionGrid(long long maxPos, int perDecade) {
  if (maxPos < 1 || maxPos > 10'000'000) {
    throw InvalidArgument("max position " + std::to_string(maxPos) + " is out of range",
                          "give 1 <= N <= 10,000,000");
  }
  std::set<long long> grid;
  for (long long p = 0; p <= std::min<long long>(maxPos, 10); ++p) grid.insert(p);
  const double steps = std::log10(static_cast<double>(maxPos)) * perDecade;
  for (int s = 0; s <= static_cast<int>(steps); ++s)
    grid.insert(std::llround(std::pow(10.0, s / static_cast<double>(perDecade))));
  grid.insert(maxPos);
  std::vector<long long> out;
  for (long long p : grid)
    if (p <= maxPos) out.push_back(p);
  return out;
}

LightConeChart lightConeChartFor(const Encoding& enc) {
  LightConeChart c;
  const ParamSet& p = enc.params();
  if (p.has("L")) c.L = p.get("L");
  if (p.has("base")) c.base = p.get("base");
  c.headDim = enc.headDim();
  c.order = c.headDim % 4 == 0 ? 2 : 1;
  return c;
}

NormProfile featureNormProfile(const Encoding& enc, const std::vector<long long>& positions,
                               unsigned seed, bool lagShortcut) {
  if (positions.empty()) throw InvalidArgument("no positions to profile");
  const long long maxPos = *std::max_element(positions.begin(), positions.end());
  if (maxPos > 10'000'000) throw InvalidArgument("positions above 10,000,000 are not profiled");
  const long long D = enc.headDim();
  // Its own generator, not the process-wide one that training runs seed on other threads.
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  at::Tensor xT = at::randn({D}, gen, at::TensorOptions().dtype(at::kDouble));
  std::vector<double> x(xT.data_ptr<double>(), xT.data_ptr<double>() + D);
  NormProfile out;
  out.family = enc.id();
  out.factorized = enc.hasFactorized();
  out.float32 = enc.factorizedPrecision(maxPos, true);
  out.float64 = enc.factorizedPrecision(maxPos, false);
  out.chart = lightConeChartFor(enc);
  out.chartNormBound = lightConeNormBound(out.chart);

  // Logit scale: one query row at p against keys 0..p, q = k = x in every head, direct form.
  const long long H = enc.heads();
  at::Tensor q1 = xT.view({1, 1, 1, D}).expand({1, H, 1, D}).contiguous();
  auto logitRow = [&](long long p) {  // (1, H, 1, p + 1): l(p, j) for j = 0..p
    at::Tensor keys = xT.view({1, 1, 1, D}).expand({1, H, p + 1, D});
    at::Tensor qPos = at::full({1}, static_cast<int64_t>(p), at::TensorOptions().dtype(at::kLong));
    at::Tensor kPos = at::arange(static_cast<int64_t>(p + 1), at::TensorOptions().dtype(at::kLong));
    return attentionLogits(enc, q1, keys, qPos, kPos, Form::Direct, /*chunk=*/8192);
  };
  // Relative: l(p, j) = l(maxPos, maxPos - (p - j)), so max_{j<=p} |l(p, j)| is the running max
  // of the row at maxPos over the lag d = maxPos - j, read at d = p.
  std::vector<double> scaleByLag;  // (maxPos + 1) when the shortcut applies
  if (lagShortcut && enc.isRelative()) {
    at::Tensor byLag = logitRow(maxPos).abs().amax({0, 1, 2}).flip(0);  // (maxPos + 1), d order
    at::Tensor running = std::get<0>(at::cummax(byLag, 0)).to(at::kDouble).contiguous();
    scaleByLag.assign(running.data_ptr<double>(), running.data_ptr<double>() + running.numel());
  }
  for (long long p : positions) {
    NormRow row;
    row.position = p;
    // Natural-log gain of the squared norm -> log10 of the norm ratio.
    row.log10QueryRatio = 0.5 * enc.featureLogNormGain(x, p, /*query=*/true) / std::log(10.0);
    row.log10KeyRatio = 0.5 * enc.featureLogNormGain(x, p, /*query=*/false) / std::log(10.0);
    const double p64 = static_cast<double>(p);
    row.log10ChartQueryRatio = 0.5 * lightConeLogNormGain(out.chart, x, p64, true) / std::log(10.0);
    row.log10ChartKeyRatio = 0.5 * lightConeLogNormGain(out.chart, x, p64, false) / std::log(10.0);
    row.logitScale = scaleByLag.empty() ? logitRow(p).abs().max().item<double>()
                                        : scaleByLag[static_cast<size_t>(p)];
    out.rows.push_back(row);
  }
  return out;
}

}  // namespace poslab
