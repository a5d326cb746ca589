#include "encodings/jordan_blocks.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <functional>
#include <sstream>

#include "encodings/jordan_block_parts.h"
#include "util/error.h"

namespace poslab {

namespace {

using jordan_parts::complexMul;
using jordan_parts::factorial;
using jordan_parts::perHead;
using jordan_parts::requireHeads;
using jordan_parts::rotateUnit;
using jordan_parts::splitGroup;

at::Tensor doubles(const std::vector<double>& v) {
  return at::tensor(v, at::TensorOptions().dtype(at::kDouble));
}

// Shear time per position for the factorized form: p (linear) or tau(p) (absolute saturating).
at::Tensor positionShearTime(const JordanGroup& g, const at::Tensor& p) {  // p (T) double
  if (g.kind == ShearKind::AbsoluteSaturating) return p / (1.0 + p.abs() / g.L);
  return p;
}

// The jet mix's c_r as (Hg, nb) each, r < m (jordan_blocks.h).
std::vector<at::Tensor> jetColumns(const JordanGroup& g, const at::Device& device) {
  std::vector<at::Tensor> c;
  for (long long r = 0; r < g.order; ++r) c.push_back(perHead(g.jet.select(0, r).to(device)));
  return c;
}

at::Tensor joinGroup(const at::Tensor& re, const at::Tensor& im) {  // -> (B, H, T, nb*m*2)
  at::Tensor v = at::stack({re, im}, -1);
  return v.flatten(3);
}

// The scalar factor of one side, e^(-+gamma p) e^(-i omega p) as (cos, sin) parts, each
// (1, Hg, T, nb, 1) in dtype on device. query: e^(-gamma p), else e^(gamma p).
std::pair<at::Tensor, at::Tensor> sideFactors(const JordanGroup& g, const at::Tensor& pos,
                                              at::ScalarType dtype, at::Device device, bool query) {
  at::Tensor p = pos.to(at::kDouble).unsqueeze(1);                  // (T, 1)
  at::Tensor phase = -p * g.omega.to(p.device()).unsqueeze(0);      // (T, nb): e^(-i omega p)
  at::Tensor gamma = perHead(g.gamma.to(p.device())).unsqueeze(1);  // (Hg, 1, nb)
  at::Tensor mag = ((query ? -p : p).unsqueeze(0) * gamma).exp();   // (Hg, T, nb)
  auto asFactor = [&](const at::Tensor& t) {  // (Hg, T, nb) -> (1, Hg, T, nb, 1)
    return t.to(device).to(dtype).unsqueeze(0).unsqueeze(-1);
  };
  return {asFactor(mag * phase.cos().unsqueeze(0)), asFactor(mag * phase.sin().unsqueeze(0))};
}

// One side of the factorized transform. query: G(p)^H x, else G(-p) x. factors: the side's
// sideFactors when the caller has them already.
at::Tensor transformSide(const JordanGroup& g, const at::Tensor& x, const at::Tensor& pos,
                         bool query, const std::pair<at::Tensor, at::Tensor>* factors = nullptr) {
  const auto dtype = x.scalar_type();
  requireHeads(g, x.size(1));
  auto [c, s] = factors ? *factors : sideFactors(g, pos, dtype, x.device(), query);
  at::Tensor p = pos.to(at::kDouble).unsqueeze(1);  // (T, 1)

  auto [re, im] = splitGroup(g, x);
  // Nilpotent part first (it commutes with the scalar factor).
  if (g.order > 1 && g.jet.defined()) {
    // Keys: x'_l = sum_r a_r x_(l+r), P(-T(p)); queries: x'_l = sum_r b_r x_(l-r), the transpose
    // of P(-T(p))^-1 (real coefficients, so also its adjoint).
    at::Tensor T = positionShearTime(g, pos.to(at::kDouble)).view({1, -1, 1}) *
                   perHead(g.shear.to(p.device())).unsqueeze(1);  // (Hg, T, nb)
    std::vector<at::Tensor> c = jetColumns(g, p.device());
    for (auto& cr : c) cr = cr.unsqueeze(1);  // (Hg, 1, nb)
    std::vector<at::Tensor> coef = jetCoefficients(c, T);
    if (query) coef = jetInverse(coef);
    std::vector<at::Tensor> outRe, outIm;
    for (long long l = 0; l < g.order; ++l) {
      at::Tensor accRe, accIm;
      for (long long r = 0; r < g.order; ++r) {
        const long long src = query ? l - r : l + r;
        if (src < 0 || src >= g.order) continue;
        at::Tensor w = coef[r].to(x.device()).to(dtype).unsqueeze(0);  // (1, Hg, T, nb)
        at::Tensor termRe = w * re.select(-1, src), termIm = w * im.select(-1, src);
        accRe = accRe.defined() ? accRe + termRe : termRe;
        accIm = accIm.defined() ? accIm + termIm : termIm;
      }
      outRe.push_back(accRe);
      outIm.push_back(accIm);
    }
    re = at::stack(outRe, -1);
    im = at::stack(outIm, -1);
  } else if (g.order > 1) {
    at::Tensor t = positionShearTime(g, pos.to(at::kDouble)).view({1, -1, 1}) *
                   perHead(g.shear.to(p.device())).unsqueeze(1);  // (Hg, T, nb) = a * t(p)
    if (!query) t = -t;
    std::vector<at::Tensor> outRe, outIm;
    for (long long l = 0; l < g.order; ++l) {
      at::Tensor accRe = re.select(-1, l).clone();
      at::Tensor accIm = im.select(-1, l).clone();
      for (long long r = 1; r < g.order; ++r) {
        // Keys: x'_l = sum_r (-a t)^r / r! x_(l+r); queries: x'_l = sum_r (a t)^r / r! x_(l-r).
        const long long src = query ? l - r : l + r;
        if (src < 0 || src >= g.order) continue;
        at::Tensor coef = (t.pow(static_cast<double>(r)) / factorial(r))
                              .to(x.device())
                              .to(dtype)
                              .unsqueeze(0);  // (1, Hg, T, nb)
        accRe = accRe + coef * re.select(-1, src);
        accIm = accIm + coef * im.select(-1, src);
      }
      outRe.push_back(accRe);
      outIm.push_back(accIm);
    }
    re = at::stack(outRe, -1);
    im = at::stack(outIm, -1);
  }
  complexMul(re, im, c, s);  // builds new tensors: x itself is never written
  return joinGroup(re, im);
}

// factors: one (cos, sin) pair per group (jordanRotationFactors), or null to compute them.
at::Tensor applyLayout(const JordanLayout& layout, const at::Tensor& x, const at::Tensor& pos,
                       bool query,
                       const std::vector<std::pair<at::Tensor, at::Tensor>>* factors = nullptr) {
  auto groupFactors = [&](size_t n) { return factors ? &(*factors)[n] : nullptr; };
  // One group over the whole head (RoPE and most families): no copy into a clone.
  if (layout.groups.size() == 1 && layout.groups[0].offset == 0 &&
      layout.groups[0].dims() == layout.dim) {
    return transformSide(layout.groups[0], x, pos, query, groupFactors(0));
  }
  at::Tensor out = x.clone();
  for (size_t n = 0; n < layout.groups.size(); ++n) {
    const JordanGroup& g = layout.groups[n];
    out.narrow(-1, g.offset, g.dims()).copy_(transformSide(g, x, pos, query, groupFactors(n)));
  }
  return out;
}

// Largest |exponent| the separable decay may put on one side: e^(+-bound) and the product of the
// two sides stay finite (and normal) in this dtype even where the causal mask discards them.
double separableDecayBound(at::ScalarType dtype) {
  if (dtype == at::kDouble) return 300.0;
  if (dtype == at::kFloat) return 30.0;
  return 4.0;  // half precision
}

// The lag weights of a group: t(d)^r / r! * a_b^r * e^(-gamma_b d). Only a_b^r e^(-gamma_b d) is
// per block, and e^(-gamma_b d) = e^(-gamma_b (i - c)) e^(gamma_b (j - c)) factorizes, so when the
// exponents stay in range every order r is one matmul over all blocks (inner size nb * 2n) times
// the shared (Tq, Tk) weight t(d)^r / r!, instead of nb (Tq, Tk) products.
bool decayFactorizesSafely(const JordanGroup& g, double positionSpan, at::ScalarType dtype) {
  const double gammaMax = g.gamma.detach().abs().max().item<double>();
  return gammaMax * positionSpan <= separableDecayBound(dtype);
}

// Scores of one group, every order at once per order r (see decayFactorizesSafely).
// q/k (re, im) (B, H, T, nb, m) already turned by the unit phase; t (Tq, Tk) the shear time;
// qPos/kPos (T) double, shifted by the centre c. Returns (B, H, Tq, Tk), not yet causally masked.
at::Tensor groupScoresSeparable(const JordanGroup& g, const at::Tensor& qRe, const at::Tensor& qIm,
                                const at::Tensor& kRe, const at::Tensor& kIm, const at::Tensor& t,
                                const at::Tensor& qPos, const at::Tensor& kPos) {
  const auto dtype = qRe.scalar_type();
  const auto device = qRe.device();
  at::Tensor gamma = perHead(g.gamma.to(qPos.device())).unsqueeze(1);  // (Hg, 1, nb)
  at::Tensor qDecay = at::exp(-qPos.view({1, -1, 1}) * gamma);         // (Hg, Tq, nb)
  at::Tensor kDecay = at::exp(kPos.view({1, -1, 1}) * gamma);          // (Hg, Tk, nb)
  auto asFactor = [&](const at::Tensor& f) {  // (Hg, T, nb) -> (1, Hg, T, nb, 1)
    return f.to(device).to(dtype).unsqueeze(0).unsqueeze(-1);
  };
  at::Tensor kScale = asFactor(kDecay);
  at::Tensor shear = perHead(g.shear.to(qPos.device())).unsqueeze(1);  // (Hg, 1, nb)
  at::Tensor score;
  for (long long r = 0; r < g.order; ++r) {
    const long long n = g.order - r;
    at::Tensor qWeight = qDecay;
    if (r > 0) qWeight = qDecay * shear.pow(static_cast<double>(r)) / factorial(r);
    // (B, H, T, nb * 2n): components l < n of q against l + r of k, every block side by side.
    at::Tensor qr =
        (at::cat({qRe.narrow(-1, 0, n), qIm.narrow(-1, 0, n)}, -1) * asFactor(qWeight)).flatten(3);
    at::Tensor kr = (at::cat({kRe.narrow(-1, r, n), kIm.narrow(-1, r, n)}, -1) * kScale).flatten(3);
    at::Tensor s = at::matmul(qr, kr.transpose(-1, -2));  // (B, H, Tq, Tk)
    if (r > 0) s = s * t.pow(static_cast<double>(r)).to(device).to(dtype);
    score = score.defined() ? score + s : s;
  }
  return score;
}

// The nilpotent weights of a group per order r, each (Hg, nb, Tq, Tk) (or broadcastable to it):
// (a t)^r / r! for the exponential shear; for the jet mix (Hg, nb, Tq, Tk)
// w_r(i, j) = sum_{s<=r} b_s(i) a_(r-s)(j), the entries of P(-T(i))^-1 P(-T(j)).
std::vector<at::Tensor> nilpotentWeights(const JordanGroup& g, const at::Tensor& t,
                                         const at::Tensor& pi, const at::Tensor& pj) {
  std::vector<at::Tensor> w;
  if (!g.jet.defined()) {
    at::Tensor shear = perHead(g.shear.to(t.device())).unsqueeze(-1).unsqueeze(-1);
    at::Tensor at_ = shear * t.unsqueeze(0).unsqueeze(0);  // (Hg, nb, Tq, Tk)
    for (long long r = 0; r < g.order; ++r)
      w.push_back(r == 0 ? at::ones_like(at_) : at_.pow(static_cast<double>(r)) / factorial(r));
    return w;
  }
  at::Tensor shear = perHead(g.shear.to(t.device())).unsqueeze(1);    // (Hg, 1, nb)
  auto side = [&](const at::Tensor& p) {                              // p (T) -> a_r (Hg, nb, T)
    at::Tensor T = positionShearTime(g, p).view({1, -1, 1}) * shear;  // (Hg, T, nb)
    std::vector<at::Tensor> c = jetColumns(g, t.device());
    for (auto& cr : c) cr = cr.unsqueeze(1);
    std::vector<at::Tensor> a = jetCoefficients(c, T);
    for (auto& ar : a) ar = ar.transpose(1, 2);
    return a;
  };
  std::vector<at::Tensor> aj = side(pj.flatten()), bi = jetInverse(side(pi.flatten()));
  for (long long r = 0; r < g.order; ++r) {
    at::Tensor wr;
    for (long long s = 0; s <= r; ++s) {
      at::Tensor term = bi[s].unsqueeze(-1) * aj[r - s].unsqueeze(-2);  // (Hg, nb, Tq, Tk)
      wr = wr.defined() ? wr + term : term;
    }
    w.push_back(wr);
  }
  return w;
}

// Scores of one group block by block: nb (Tq, Tk) weights, safe for any gamma; nil from
// nilpotentWeights.
at::Tensor groupScoresPerBlock(const JordanGroup& g, const at::Tensor& qRe, const at::Tensor& qIm,
                               const at::Tensor& kRe, const at::Tensor& kIm,
                               const std::vector<at::Tensor>& nil, const at::Tensor& dSafe,
                               const at::Tensor& causal) {
  const auto dtype = qRe.scalar_type();
  const auto device = qRe.device();
  // (Hg, nb, Tq, Tk): Hg = 1 when the group's decay and shear are shared by every head.
  at::Tensor gamma = perHead(g.gamma.to(dSafe.device())).unsqueeze(-1).unsqueeze(-1);
  at::Tensor decay = at::exp(-gamma * dSafe.unsqueeze(0).unsqueeze(0));
  at::Tensor score;
  for (long long r = 0; r < g.order; ++r) {
    const long long n = g.order - r;
    // (B, H, nb, T, 2n): components l < n of q against l + r of k.
    at::Tensor qr = at::cat({qRe.narrow(-1, 0, n), qIm.narrow(-1, 0, n)}, -1).transpose(2, 3);
    at::Tensor kr = at::cat({kRe.narrow(-1, r, n), kIm.narrow(-1, r, n)}, -1).transpose(2, 3);
    at::Tensor products = at::matmul(qr, kr.transpose(-1, -2));  // (B, H, nb, Tq, Tk)
    at::Tensor weight = decay * nil[r];
    weight = at::where(causal.unsqueeze(0).unsqueeze(0), weight, at::zeros_like(weight))
                 .to(device)
                 .to(dtype);
    at::Tensor s = (products * weight.unsqueeze(0)).sum(2);  // weight (1, Hg, nb, Tq, Tk)
    score = score.defined() ? score + s : s;
  }
  return score;
}

long long firstPositionWhere(long long maxPos, const std::function<bool(double)>& bad) {
  // Each condition is monotone in p, so bisect.
  if (!bad(static_cast<double>(maxPos))) return -1;
  long long lo = 0, hi = maxPos;  // bad(hi) is true
  if (bad(0.0)) return 0;
  while (hi - lo > 1) {
    const long long mid = lo + (hi - lo) / 2;
    if (bad(static_cast<double>(mid)))
      hi = mid;
    else
      lo = mid;
  }
  return hi;
}

}  // namespace

std::vector<at::Tensor> jetCoefficients(const std::vector<at::Tensor>& c, const at::Tensor& T) {
  std::vector<at::Tensor> a;
  for (size_t r = 0; r < c.size(); ++r)
    a.push_back(r == 0 ? c[0] * at::ones_like(T)
                       : c[r] * (-T).pow(static_cast<double>(r)) / factorial(r));
  return a;
}

std::vector<at::Tensor> jetInverse(const std::vector<at::Tensor>& a) {
  std::vector<at::Tensor> b = {1.0 / a[0]};
  for (size_t r = 1; r < a.size(); ++r) {
    at::Tensor sum = a[1] * b[r - 1];
    for (size_t p = 2; p <= r; ++p) sum = sum + a[p] * b[r - p];
    b.push_back(-sum / a[0]);
  }
  return b;
}

std::vector<double> jetCoefficients(const std::vector<double>& c, double T) {
  std::vector<double> a;
  for (size_t r = 0; r < c.size(); ++r)
    a.push_back(c[r] * std::pow(-T, static_cast<double>(r)) / factorial(static_cast<long long>(r)));
  return a;
}

std::vector<double> jetInverse(const std::vector<double>& a) {
  std::vector<double> b = {1.0 / a[0]};
  for (size_t r = 1; r < a.size(); ++r) {
    double sum = 0;
    for (size_t p = 1; p <= r; ++p) sum += a[p] * b[r - p];
    b.push_back(-sum / a[0]);
  }
  return b;
}

JordanGroup makeJordanGroup(long long offset, long long order, const std::vector<double>& gamma,
                            const std::vector<double>& omega, const std::vector<double>& shear,
                            ShearKind kind, double L) {
  JordanGroup g;
  g.offset = offset;
  g.blocks = static_cast<long long>(gamma.size());
  g.order = order;
  g.gamma = doubles(gamma);
  g.omega = doubles(omega);
  g.shear = doubles(shear);
  g.kind = kind;
  g.L = L;
  return g;
}

bool jordanHasFactorized(const JordanLayout& layout) {
  for (const auto& g : layout.groups)
    if (g.kind == ShearKind::Saturating && g.order > 1) return false;
  return true;
}

bool jordanIsRelative(const JordanLayout& layout) {
  for (const auto& g : layout.groups)
    if (g.kind == ShearKind::AbsoluteSaturating && g.order > 1) return false;
  return true;
}

PrecisionReport jordanPrecision(const JordanLayout& layout, long long maxPos, bool float32) {
  const double logMax = float32 ? std::log(FLT_MAX) : std::log(DBL_MAX);
  const double logMinNormal = float32 ? std::log(FLT_MIN) : std::log(DBL_MIN);
  const double eps = float32 ? FLT_EPSILON : DBL_EPSILON;
  // A logit whose estimated relative rounding error exceeds this has lost its precision.
  constexpr double kLostRelativeError = 1e-3;
  PrecisionReport report;
  auto consider = [&](long long pos, const std::string& problem, const std::string& detail) {
    if (pos < 0) return;
    if (report.ok || pos < report.firstBadPosition) {
      report.ok = false;
      report.firstBadPosition = pos;
      report.problem = problem;
      report.detail = detail;
    }
  };
  for (const auto& g : layout.groups) {
    // Learnable layouts hand in tensors with grad, possibly on a GPU: read plain values.
    // Per head and block when either is (H, nb): every pair (gamma, shear) is checked.
    std::vector<at::Tensor> parts = {perHead(g.gamma.detach().to(at::kCPU, at::kDouble)),
                                     perHead(g.shear.detach().to(at::kCPU, at::kDouble))};
    if (g.jet.defined())
      for (long long r = 0; r < g.order; ++r)
        parts.push_back(perHead(g.jet.detach().select(0, r).to(at::kCPU, at::kDouble)));
    auto both = at::broadcast_tensors(parts);
    const at::Tensor gammaCpu = both[0].contiguous().flatten();
    const at::Tensor shearCpu = both[1].contiguous().flatten();
    auto gamma = gammaCpu.accessor<double, 1>();
    auto shear = shearCpu.accessor<double, 1>();
    std::vector<at::Tensor> jetCpu;  // c_r, flattened like gamma
    for (size_t r = 2; r < both.size(); ++r) jetCpu.push_back(both[r].contiguous().flatten());
    std::vector<const double*> jetData;
    for (const auto& cr : jetCpu) jetData.push_back(cr.data_ptr<double>());
    for (long long n = 0; n < gammaCpu.numel(); ++n) {
      const long long b = n % g.blocks;
      const double gam = gamma[n];
      const double a = std::abs(shear[n]);
      const long long m = g.order;
      std::vector<double> cn;  // this head and block's c_r (jet mix)
      for (const double* cr : jetData) cn.push_back(cr[n]);
      auto shearTime = [&](double p) {
        return g.kind == ShearKind::AbsoluteSaturating ? p / (1.0 + p / g.L) : p;
      };
      // Largest polynomial factor sum_r (a t)^r / r!, the growth the nilpotent part adds; for the
      // jet mix the larger of sum_r |a_r| (keys) and sum_r |b_r| (queries) at T = a t.
      auto poly = [&](double p) {
        if (!jetCpu.empty()) {
          const std::vector<double> a_ = jetCoefficients(cn, a * shearTime(p));
          double keys = 0, queries = 0;
          for (double v : a_) keys += std::abs(v);
          for (double v : jetInverse(a_)) queries += std::abs(v);
          return std::max(keys, queries);
        }
        double sum = 0, term = 1;
        for (long long r = 0; r < m; ++r) {
          sum += term;
          term *= a * shearTime(p) / static_cast<double>(r + 1);
        }
        return sum;
      };
      std::ostringstream where;
      if (gammaCpu.numel() > g.blocks) where << "head " << n / g.blocks << ", ";
      where << "block " << b << " (gamma=" << gam << ", shear=" << a << ")";
      consider(firstPositionWhere(maxPos,
                                  [&](double p) { return gam * p + std::log(poly(p)) > logMax; }),
               "overflow",
               "the key factor e^(gamma p) (1 + a p + ...) exceeds the largest " +
                   std::string(float32 ? "float32" : "float64") + " at " + where.str());
      consider(firstPositionWhere(maxPos, [&](double p) { return -gam * p < logMinNormal; }),
               "underflow",
               "the query factor e^(-gamma p) falls below the smallest normal " +
                   std::string(float32 ? "float32" : "float64") + " at " + where.str());
      consider(
          firstPositionWhere(maxPos, [&](double p) { return eps * poly(p) > kLostRelativeError; }),
          "precision loss",
          "the shear terms a*i and a*j cancel to a*d, leaving a relative logit error above "
          "1e-3 at " +
              where.str());
    }
  }
  return report;
}

FactorizedQK jordanFactorize(const JordanLayout& layout, const at::Tensor& q, const at::Tensor& k,
                             const at::Tensor& qPos, const at::Tensor& kPos) {
  if (!jordanHasFactorized(layout)) {
    throw Error("this form breaks the group law and has no factorized form", "use the direct form");
  }
  const bool float32 = q.scalar_type() != at::kDouble;
  long long maxPos = 0;
  if (qPos.numel() > 0) maxPos = std::max<long long>(maxPos, qPos.abs().max().item<int64_t>());
  if (kPos.numel() > 0) maxPos = std::max<long long>(maxPos, kPos.abs().max().item<int64_t>());
  PrecisionReport report = jordanPrecision(layout, maxPos, float32);
  if (!report.ok) {
    std::ostringstream os;
    os << "factorized form in " << (float32 ? "float32" : "float64") << " fails by "
       << report.problem << " at position " << report.firstBadPosition << " (positions up to "
       << maxPos << "): " << report.detail;
    throw NumericalRangeError(os.str(), "use the direct form, or float64, or shorter positions");
  }
  return {applyLayout(layout, q, qPos, /*query=*/true), applyLayout(layout, k, kPos, false)};
}

JordanRotationFactors jordanRotationFactors(const JordanLayout& layout, const at::Tensor& pos,
                                            at::ScalarType dtype, at::Device device) {
  JordanRotationFactors f;
  for (const auto& g : layout.groups) {
    f.query.push_back(sideFactors(g, pos, dtype, device, /*query=*/true));
    f.key.push_back(sideFactors(g, pos, dtype, device, /*query=*/false));
  }
  return f;
}

FactorizedQK jordanFactorizeWith(const JordanLayout& layout, const at::Tensor& q,
                                 const at::Tensor& k, const at::Tensor& qPos,
                                 const at::Tensor& kPos, const JordanRotationFactors& factors) {
  if (factors.query.size() != layout.groups.size() || factors.key.size() != layout.groups.size())
    throw InvalidArgument("rotation factors for " + std::to_string(factors.query.size()) +
                          " groups given to a layout of " + std::to_string(layout.groups.size()));
  return {applyLayout(layout, q, qPos, /*query=*/true, &factors.query),
          applyLayout(layout, k, kPos, /*query=*/false, &factors.key)};
}

at::Tensor jordanDirectScores(const JordanLayout& layout, const at::Tensor& q, const at::Tensor& k,
                              const at::Tensor& qPos, const at::Tensor& kPos, DirectScoring how) {
  at::Tensor pi = qPos.to(at::kDouble).unsqueeze(1);  // (Tq, 1)
  at::Tensor pj = kPos.to(at::kDouble).unsqueeze(0);  // (1, Tk)
  at::Tensor d = pi - pj;                             // (Tq, Tk)
  at::Tensor causal = d >= 0;
  at::Tensor dSafe = d.clamp_min(0);

  // Dims outside every group: plain content product.
  at::Tensor covered = at::zeros({layout.dim}, at::TensorOptions().dtype(at::kBool));
  for (const auto& g : layout.groups) covered.narrow(0, g.offset, g.dims()).fill_(true);
  at::Tensor plainIdx = at::nonzero(covered.logical_not()).flatten().to(q.device());
  at::Tensor score = at::zeros({q.size(0), q.size(1), q.size(2), k.size(2)}, q.options());
  if (plainIdx.numel() > 0) {
    score = score + at::matmul(q.index_select(-1, plainIdx),
                               k.index_select(-1, plainIdx).transpose(-1, -2));
  }

  // Centre of the positions, for the separable decay: both sides' exponents stay within
  // gamma * span / 2 of 0.
  double lo = 0, hi = 0;
  if (how == DirectScoring::Auto && qPos.numel() > 0 && kPos.numel() > 0) {
    lo = std::min(qPos.min().item<double>(), kPos.min().item<double>());
    hi = std::max(qPos.max().item<double>(), kPos.max().item<double>());
  }
  const double centre = 0.5 * (lo + hi);

  for (const auto& g : layout.groups) {
    requireHeads(g, q.size(1));
    auto [qRe, qIm] = rotateUnit(g, q, qPos);  // (B, H, Tq, nb, m)
    auto [kRe, kIm] = rotateUnit(g, k, kPos);
    // Shear time per pair (Tq, Tk), the same for every block of the group.
    at::Tensor t;
    if (g.kind == ShearKind::Linear)
      t = dSafe;
    else if (g.kind == ShearKind::Saturating)
      t = dSafe / (1.0 + dSafe / g.L);
    else
      t = pi / (1.0 + pi.abs() / g.L) - pj / (1.0 + pj.abs() / g.L);
    // The jet mix's weights are per block and pair: block by block.
    const bool separable = how == DirectScoring::Auto && !g.jet.defined() &&
                           decayFactorizesSafely(g, hi - lo, q.scalar_type());
    score =
        score + (separable
                     ? groupScoresSeparable(g, qRe, qIm, kRe, kIm, t, qPos.to(at::kDouble) - centre,
                                            kPos.to(at::kDouble) - centre)
                     : groupScoresPerBlock(g, qRe, qIm, kRe, kIm, nilpotentWeights(g, t, pi, pj),
                                           dSafe, causal));
  }
  return at::where(causal.to(q.device()), score, at::zeros_like(score));
}

void appendJordanBlockBasis(LagBasis& basis, double gamma, double omega, double shear,
                            long long order, ShearKind kind, double L, const std::string& timeName,
                            double timeUnit, bool decayed) {
  const auto& lags = basis.lags;
  if (basis.kernel.empty()) basis.kernel.assign(lags.size(), 0.0);
  for (long long r = 0; r < order; ++r) {
    std::vector<double> c(lags.size()), s(lags.size());
    for (size_t n = 0; n < lags.size(); ++n) {
      const double d = lags[n];
      const double t = (kind == ShearKind::Saturating ? stabilizedTau(d, L) : d) * timeUnit;
      const double envelope = std::pow(t, static_cast<double>(r)) * std::exp(-gamma * d);
      c[n] = envelope * std::cos(omega * d);
      s[n] = envelope * std::sin(omega * d);
      basis.kernel[n] += std::pow(shear, static_cast<double>(r)) / factorial(r) * c[n];
    }
    std::string prefix;
    if (r == 1) prefix = timeName + "*";
    if (r > 1) prefix = "(" + timeName + ")^" + std::to_string(r) + "*";
    const std::string decay = decayed ? "exp*" : "";
    basis.add(prefix + decay + "cos", std::move(c));
    basis.add(prefix + decay + "sin", std::move(s));
  }
}

}  // namespace poslab
