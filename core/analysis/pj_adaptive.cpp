#include "analysis/pj_adaptive.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "tasks/sector_teacher.h"
#include "util/error.h"
#include "util/number_text.h"

namespace poslab {

namespace {
constexpr double kPi = 3.14159265358979323846;
constexpr uint64_t kRestartSeedStride = 7919;  // torch.manual_seed(seed + 7919 * restart)
constexpr double kZetaInitScale = 0.05;
constexpr double kR2Eps = 1e-12;      // r2_score's eps
constexpr double kEnergyEps = 1e-12;  // functional_energy's eps

double factorial(long long r) {
  double f = 1;
  for (long long k = 2; k <= r; ++k) f *= static_cast<double>(k);
  return f;
}

std::vector<double> softmax(const std::vector<double>& v) {
  const double m = *std::max_element(v.begin(), v.end());
  std::vector<double> out(v.size());
  double s = 0;
  for (size_t i = 0; i < v.size(); ++i) s += out[i] = std::exp(v[i] - m);
  for (double& x : out) x /= s;
  return out;
}

double softplus(double x) {
  return x > 30 ? x : std::log1p(std::exp(x));
}

double omegaOf(const PjAdaptiveSettings& s) {
  return 2.0 * kPi * s.omegaCycles / static_cast<double>(s.trainLength);
}

std::vector<double> lagsBelow(long long n) {
  std::vector<double> d(static_cast<size_t>(n));
  for (long long i = 0; i < n; ++i) d[static_cast<size_t>(i)] = static_cast<double>(i);
  return d;
}

double mse(const std::vector<double>& a, const std::vector<double>& b, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; ++i) s += (a[i] - b[i]) * (a[i] - b[i]);
  return s / static_cast<double>(n);
}

double r2(const std::vector<double>& pred, const std::vector<double>& y, size_t n) {
  double mean = 0;
  for (size_t i = 0; i < n; ++i) mean += y[i];
  mean /= static_cast<double>(n);
  double res = 0, tot = 0;
  for (size_t i = 0; i < n; ++i) {
    res += (pred[i] - y[i]) * (pred[i] - y[i]);
    tot += (y[i] - mean) * (y[i] - mean);
  }
  return 1.0 - res / (tot + kR2Eps);
}

// Per order r (without gates): FJ_r(d) and LC_r(d), each (R+1) x n.
struct Components {
  std::vector<std::vector<double>> fj, lc;
  std::vector<double> affine;  // slope x
};
Components components(const PjAdaptiveParams& p, double L, double omega,
                      const std::vector<double>& lags) {
  const size_t orders = p.fjAlphaLogits.size();
  const auto fjAlpha = softmax(p.fjAlphaLogits), lcAlpha = softmax(p.lcAlphaLogits);
  const double kappa = softplus(p.rawDamping);
  Components c;
  c.fj.assign(orders, std::vector<double>(lags.size()));
  c.lc.assign(orders, std::vector<double>(lags.size()));
  c.affine.resize(lags.size());
  for (size_t n = 0; n < lags.size(); ++n) {
    const double d = lags[n], x = d / L;
    const double phi = L * std::asinh(d / L), beta = d / std::sqrt(d * d + L * L);
    c.affine[n] = p.affineSlope * x;
    for (size_t r = 0; r < orders; ++r) {
      const double k = static_cast<double>(r);
      c.fj[r][n] = std::pow(x, k) / factorial(static_cast<long long>(r)) * std::exp(-kappa * x) *
                   fjAlpha[r] *
                   (p.fjZetaRe[r] * std::cos(omega * d) - p.fjZetaIm[r] * std::sin(omega * d));
      c.lc[r][n] = std::pow(beta, k) * lcAlpha[r] *
                   (p.lcZetaRe[r] * std::cos(omega * phi) - p.lcZetaIm[r] * std::sin(omega * phi));
    }
  }
  return c;
}

at::Tensor tensorOf(const std::vector<double>& v, at::ScalarType dtype) {
  return at::tensor(v, at::TensorOptions().dtype(at::kDouble)).to(dtype);
}
std::vector<double> valuesOf(const at::Tensor& t) {
  at::Tensor c = t.detach().to(at::kDouble).contiguous();
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

void requireRange(bool ok, const std::string& what, const std::string& range) {
  if (!ok) throw InvalidArgument(what + " is out of range", "give " + range);
}
}  // namespace

std::vector<std::string> pjAdaptiveTargetNames() {
  return {"phase",   "linear",    "first_jet", "second_jet", "third_jet", "recency_weak_jet",
          "lc_core", "lc_affine", "affine"};
}

bool isPjAdaptiveTarget(const std::string& name) {
  const auto names = pjAdaptiveTargetNames();
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::vector<double> pjAdaptiveTarget(const std::string& name, double L, double omega,
                                     const std::vector<double>& lags) {
  if (!isPjAdaptiveTarget(name)) {
    std::string list;
    for (const auto& n : pjAdaptiveTargetNames()) list += (list.empty() ? "" : ", ") + n;
    throw InvalidArgument("unknown sector target '" + name + "'", "known: " + list);
  }
  std::vector<double> k(lags.size());
  for (size_t n = 0; n < lags.size(); ++n)
    k[n] = name == "linear" ? lags[n] / L : sectorTeacherKernel(name, omega, L, lags[n]);
  return k;
}

void checkPjAdaptiveSettings(const PjAdaptiveSettings& s) {
  requireRange(s.trainLength >= 2 && s.trainLength <= 65536,
               "train length " + std::to_string(s.trainLength), "2 .. 65536");
  requireRange(s.evalLength >= 2 && s.evalLength <= 1'000'000,
               "eval length " + std::to_string(s.evalLength), "2 .. 1,000,000");
  requireRange(std::isfinite(s.omegaCycles) && s.omegaCycles >= 0 &&
                   s.omegaCycles <= static_cast<double>(s.trainLength) / 2,
               "omega cycles " + formatNumber(s.omegaCycles), "0 .. train length / 2");
  requireRange(s.maxOrder >= 0 && s.maxOrder <= 8, "max order " + std::to_string(s.maxOrder),
               "0 .. 8");
  requireRange(s.steps >= 0 && s.steps <= 100000, "steps " + std::to_string(s.steps),
               "0 .. 100000");
  requireRange(std::isfinite(s.lr) && s.lr > 0 && s.lr <= 10, "lr " + formatNumber(s.lr),
               "a learning rate in (0, 10]");
  requireRange(s.restarts >= 1 && s.restarts <= 64, "restarts " + std::to_string(s.restarts),
               "1 .. 64");
}

PjAdaptiveParams pjAdaptiveInitialParams(const PjAdaptiveSettings& s, long long restart) {
  const long long orders = s.maxOrder + 1;
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(
      s.seed + kRestartSeedStride * static_cast<uint64_t>(restart));
  const auto dtype = s.float64 ? at::kDouble : at::kFloat;
  // The reference draws 0.05 randn in its dtype, in this order.
  auto draw = [&] {
    return valuesOf(kZetaInitScale * at::randn({static_cast<int64_t>(orders)}, gen,
                                               at::TensorOptions().dtype(dtype)));
  };
  PjAdaptiveParams p;
  p.fjAlphaLogits.assign(orders, 0.0);
  p.lcAlphaLogits.assign(orders, 0.0);
  p.fjZetaRe = draw();
  p.fjZetaIm = draw();
  p.lcZetaRe = draw();
  p.lcZetaIm = draw();
  if (s.orderInitCycle) {  // apply_order_biased_init
    const size_t r = static_cast<size_t>(restart % orders);
    p.fjAlphaLogits.assign(orders, -2.0);
    p.lcAlphaLogits.assign(orders, -2.0);
    p.fjAlphaLogits[r] = p.lcAlphaLogits[r] = 2.0;
  }
  return p;
}

std::vector<double> pjAdaptiveKernel(const PjAdaptiveParams& p, double L, double omega,
                                     const std::vector<double>& lags) {
  const Components c = components(p, L, omega, lags);
  const auto g = softmax({p.gateLogits.begin(), p.gateLogits.end()});
  std::vector<double> k(lags.size());
  for (size_t n = 0; n < lags.size(); ++n) {
    double fj = 0, lc = 0;
    for (size_t r = 0; r < c.fj.size(); ++r) {
      fj += c.fj[r][n];
      lc += c.lc[r][n];
    }
    k[n] = g[0] * fj + g[1] * c.affine[n] + g[2] * lc;
  }
  return k;
}

PjAdaptiveResult pjAdaptiveEvaluate(const PjAdaptiveParams& p, const PjAdaptiveSettings& s,
                                    const std::string& target) {
  checkPjAdaptiveSettings(s);
  const double L = static_cast<double>(s.trainLength), omega = omegaOf(s);
  PjAdaptiveResult out;
  out.target = target;
  out.evalLags = lagsBelow(std::max(s.evalLength, s.trainLength));
  out.targetValues = pjAdaptiveTarget(target, L, omega, out.evalLags);
  out.prediction = pjAdaptiveKernel(p, L, omega, out.evalLags);
  const size_t nTrain = static_cast<size_t>(s.trainLength),
               nEval = static_cast<size_t>(s.evalLength);
  out.trainMse = mse(out.prediction, out.targetValues, nTrain);
  out.trainR2 = r2(out.prediction, out.targetValues, nTrain);
  out.evalMse = mse(out.prediction, out.targetValues, nEval);
  out.evalR2 = r2(out.prediction, out.targetValues, nEval);
  const auto g = softmax({p.gateLogits.begin(), p.gateLogits.end()});
  std::copy(g.begin(), g.end(), out.gates.begin());
  out.affineSlope = p.affineSlope;
  out.damping = softplus(p.rawDamping);

  const size_t orders = p.fjAlphaLogits.size();
  const auto fjAlpha = softmax(p.fjAlphaLogits), lcAlpha = softmax(p.lcAlphaLogits);
  double total = 0;
  for (size_t r = 0; r < orders; ++r) {
    out.fjMass.push_back(g[0] * fjAlpha[r] * std::hypot(p.fjZetaRe[r], p.fjZetaIm[r]));
    out.lcMass.push_back(g[2] * lcAlpha[r] * std::hypot(p.lcZetaRe[r], p.lcZetaIm[r]));
    total += out.fjMass[r] + out.lcMass[r];
  }
  const double eps = s.float64 ? std::numeric_limits<double>::epsilon()
                               : static_cast<double>(std::numeric_limits<float>::epsilon());
  for (size_t r = 0; r < orders; ++r)
    out.orderMass.push_back((out.fjMass[r] + out.lcMass[r]) / std::max(total, eps));
  out.topOrder =
      std::max_element(out.orderMass.begin(), out.orderMass.end()) - out.orderMass.begin();

  // Per-order components over the evaluation lags: C_r = g_FJ FJ_r + g_LC LC_r.
  const std::vector<double> evalLags(out.evalLags.begin(), out.evalLags.begin() + nEval);
  const Components c = components(p, L, omega, evalLags);
  std::vector<std::vector<double>> C(orders, std::vector<double>(nEval));
  std::vector<double> sum(nEval, 0.0);
  for (size_t r = 0; r < orders; ++r)
    for (size_t n = 0; n < nEval; ++n) {
      C[r][n] = g[0] * c.fj[r][n] + g[2] * c.lc[r][n];
      sum[n] += C[r][n];
    }
  double sumNorm = 0;
  for (double v : sum) sumNorm += v * v;
  sumNorm = std::sqrt(sumNorm);
  const double base = out.evalMse;
  for (size_t r = 0; r < orders; ++r) {
    double norm = 0, removed = 0;
    for (size_t n = 0; n < nEval; ++n) {
      norm += C[r][n] * C[r][n];
      const double e = out.prediction[n] - C[r][n] - out.targetValues[n];
      removed += e * e;
    }
    out.energy.push_back(std::sqrt(norm) / (sumNorm + kEnergyEps));
    out.loo.push_back(removed / static_cast<double>(nEval) - base);
  }
  out.evalLags.resize(nEval);
  out.targetValues.resize(nEval);
  out.prediction.resize(nEval);
  return out;
}

PjAdaptiveParams pjAdaptiveTrain(const PjAdaptiveSettings& s, const std::string& target,
                                 long long restart, const std::function<void(long long)>& onStep) {
  checkPjAdaptiveSettings(s);
  torch::NoGradGuard outerNoGrad;  // parameters are built without history
  const auto dtype = s.float64 ? at::kDouble : at::kFloat;
  const double L = static_cast<double>(s.trainLength), omega = omegaOf(s);
  const long long R = s.maxOrder;
  PjAdaptiveParams init = pjAdaptiveInitialParams(s, restart);
  auto param = [&](const std::vector<double>& v) {
    return tensorOf(v, dtype).set_requires_grad(true);
  };
  at::Tensor gateLogits = param({init.gateLogits.begin(), init.gateLogits.end()});
  at::Tensor fjAlpha = param(init.fjAlphaLogits), lcAlpha = param(init.lcAlphaLogits);
  at::Tensor fjRe = param(init.fjZetaRe), fjIm = param(init.fjZetaIm);
  at::Tensor lcRe = param(init.lcZetaRe), lcIm = param(init.lcZetaIm);
  at::Tensor slope = param({init.affineSlope}), rawDamping = param({init.rawDamping});

  // Fixed tensors of the training lags, (R+1, L) where per order.
  const std::vector<double> lags = lagsBelow(s.trainLength);
  at::Tensor d = tensorOf(lags, dtype);
  at::Tensor y = tensorOf(pjAdaptiveTarget(target, L, omega, lags), dtype);
  at::Tensor order = at::arange(static_cast<int64_t>(R + 1), at::TensorOptions().dtype(dtype));
  std::vector<double> fact;
  for (long long r = 0; r <= R; ++r) fact.push_back(factorial(r));
  at::Tensor x = d / L;
  at::Tensor fjScale = x.unsqueeze(0).pow(order.unsqueeze(1)) / tensorOf(fact, dtype).unsqueeze(1);
  at::Tensor cosD = at::cos(omega * d).unsqueeze(0), sinD = at::sin(omega * d).unsqueeze(0);
  at::Tensor phi = L * at::asinh(d / L);
  at::Tensor beta = d / at::sqrt(d * d + L * L);
  at::Tensor lcScale = beta.unsqueeze(0).pow(order.unsqueeze(1));
  at::Tensor cosPhi = at::cos(omega * phi).unsqueeze(0), sinPhi = at::sin(omega * phi).unsqueeze(0);

  torch::optim::Adam adam(std::vector<at::Tensor>{gateLogits, fjAlpha, lcAlpha, fjRe, fjIm, lcRe,
                                                  lcIm, slope, rawDamping},
                          torch::optim::AdamOptions(s.lr));
  {
    torch::AutoGradMode grad(true);
    for (long long step = 0; step < s.steps; ++step) {
      at::Tensor gates = at::softmax(gateLogits, 0);
      at::Tensor fjEnv = at::exp(-at::softplus(rawDamping) * x).unsqueeze(0);
      at::Tensor fj = fjScale * fjEnv * at::softmax(fjAlpha, 0).unsqueeze(1) *
                      (fjRe.unsqueeze(1) * cosD - fjIm.unsqueeze(1) * sinD);
      at::Tensor lc = lcScale * at::softmax(lcAlpha, 0).unsqueeze(1) *
                      (lcRe.unsqueeze(1) * cosPhi - lcIm.unsqueeze(1) * sinPhi);
      at::Tensor pred = gates[0] * fj.sum(0) + gates[1] * (slope * x) + gates[2] * lc.sum(0);
      at::Tensor loss = (pred - y).square().mean();
      adam.zero_grad();
      loss.backward();
      adam.step();
      if (onStep) onStep(step + 1);
    }
  }
  PjAdaptiveParams out;
  const auto g = valuesOf(gateLogits);
  std::copy(g.begin(), g.end(), out.gateLogits.begin());
  out.fjAlphaLogits = valuesOf(fjAlpha);
  out.lcAlphaLogits = valuesOf(lcAlpha);
  out.fjZetaRe = valuesOf(fjRe);
  out.fjZetaIm = valuesOf(fjIm);
  out.lcZetaRe = valuesOf(lcRe);
  out.lcZetaIm = valuesOf(lcIm);
  out.affineSlope = valuesOf(slope)[0];
  out.rawDamping = valuesOf(rawDamping)[0];
  return out;
}

std::vector<PjAdaptiveResult> runPjAdaptive(
    const PjAdaptiveSettings& s, const std::vector<std::string>& targets,
    const std::function<void(long long done, long long total)>& progress) {
  checkPjAdaptiveSettings(s);
  for (const auto& t : targets) pjAdaptiveTarget(t, 1, 0, {});  // names checked before training
  std::vector<PjAdaptiveResult> results;
  // Progress in units of one Adam step, plus one for each restart's evaluation.
  const long long perRestart = s.steps + 1;
  const long long total = static_cast<long long>(targets.size()) * s.restarts * perRestart;
  long long before = 0;  // units of the restarts already finished
  std::function<void(long long)> onStep;
  if (progress) onStep = [&](long long step) { progress(before + step, total); };
  for (const auto& t : targets) {
    PjAdaptiveResult best;
    bool have = false;
    for (long long k = 0; k < s.restarts; ++k) {
      PjAdaptiveResult r = pjAdaptiveEvaluate(pjAdaptiveTrain(s, t, k, onStep), s, t);
      before += perRestart;
      if (progress) progress(before, total);
      r.restart = k;
      const double metric = s.selectByEval ? r.evalMse : r.trainMse;
      const double bestMetric = s.selectByEval ? best.evalMse : best.trainMse;
      if (!have || metric < bestMetric) {  // the first restart, then any strictly better one
        best = std::move(r);
        have = true;
      }
    }
    results.push_back(std::move(best));
  }
  return results;
}

}  // namespace poslab
