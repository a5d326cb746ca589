// Jordan-RoPE jet mix of orders 3 and 4 (docs/MATH.md 1.7.9; jordan_jetmix.h), as the Jordan-RoPE
// reference code's text runs build them: jordan_jetmix_m3_c150_g010_g005 (c_1, c_2 = 0.10, 0.05),
// jordan_jetmix_m4_c150_g030_g010_g005 (0.30, 0.10, 0.05) and
// jordan_jetmixfull_m4_c150_g100_g050_g030_g020 (c_0 = 1 learned, 0.5, 0.3, 0.2, cap 2); every one
// with gamma from 1.5 / L (floor 0), the bounded shear time tau(p)/L and eta unused.
#include "encodings/jordan_jetmix.h"

#include <ATen/ATen.h>

#include <cmath>
#include <complex>

#include "encodings/common_params.h"
#include "encodings/families.h"
#include "encodings/schedules.h"
#include "util/error.h"

namespace poslab {

std::vector<ParamSpec> jetMixParams(const JetMixDefaults& d) {
  std::vector<ParamSpec> out = {
      {"c", 1.5, 0, 100, false,
       "decay per context length: gamma = c / L (the model's start; the reference's c150)"},
      {"jet0", d.jets[0], 0.01, 10, false,
       "c_0, the coefficient of N^0 in P(t) = sum_r c_r t^r / r! N^r (1: the reference's jetmix)"}};
  for (long long r = 1; r < d.order; ++r) {
    const std::string rs = std::to_string(r);
    out.push_back({"jet" + rs, d.jets[r], -10, 10, false,
                   "c_" + rs + ", the coefficient of t^" + rs + "/" + rs + "! N^" + rs +
                       " (the model's start, |c| < jet_max)"});
  }
  out.push_back({"jet_max", d.jetMax, 0.01, 10, false,
                 "cap of the learned jets, c = jet_max tanh(raw): 1, or 2 (the reference's "
                 "jetmixfull)"});
  out.push_back({"learn_jet0", d.learnJet0 ? 1.0 : 0.0, 0, 1, true,
                 "1: the model learns c_0 too (the reference's jetmixfull); 0: c_0 stays jet0"});
  out.push_back(common::contextScale());
  out.push_back(common::omega());
  out.push_back(common::pinOmega());
  out.push_back(common::base());
  out.push_back(common::headDim(d.headDim));
  return out;
}

JordanJetEncoding::JordanJetEncoding(const FamilyInfo& info, ParamSet params, long long order)
    : RotaryEncoding(info, std::move(params)), order_(order) {
  const ParamSet& p = this->params();
  requireHeadDimMultiple(*this, 2 * order,
                         "a block of order " + std::to_string(order) + " takes " +
                             std::to_string(2 * order) + " reals");
  L_ = p.get("L");
  gamma_ = p.get("c") / L_;
  const double jetMax = p.get("jet_max");
  for (long long r = 0; r < order; ++r) jets_.push_back(p.get("jet" + std::to_string(r)));
  for (long long r = p.getInt("learn_jet0") == 1 ? 0 : 1; r < order; ++r) {
    if (std::abs(jets_[r]) >= jetMax)
      throw InvalidArgument("jet" + std::to_string(r) + " = " + std::to_string(jets_[r]) +
                                " is not inside the cap jet_max = " + std::to_string(jetMax),
                            "the model learns it as jet_max tanh(raw): raise jet_max");
  }
  const long long D = headDim();
  const long long blocks = D / (2 * order);
  omega_ = blockFrequencies(blocks, D, p.get("base"));
  if (p.getInt("pin_omega") == 1) omega_.assign(omega_.size(), p.get("omega"));
  // Shear time a tau(p) with a = 1/L: T_p = tau(p) / L, as the reference's shear_time_scale.
  JordanGroup g =
      makeJordanGroup(0, order, std::vector<double>(blocks, gamma_), omega_,
                      std::vector<double>(blocks, 1.0 / L_), ShearKind::AbsoluteSaturating, L_);
  g.jet = at::tensor(jets_, at::TensorOptions().dtype(at::kDouble))
              .unsqueeze(1)
              .expand({order, blocks})
              .contiguous();  // (m, nb)
  layout_.dim = D;
  layout_.groups.push_back(g);
  learnables_.gammaGroup = 0;
  learnables_.gammaMin = 0.0;
  learnables_.jetGroup = 0;
  learnables_.jetMax = jetMax;
  learnables_.learnJet0 = p.getInt("learn_jet0") == 1;
}

LagBasis JordanJetEncoding::basis(const std::vector<double>& lags) const {
  LagBasis b;
  b.lags = lags;
  b.kernel.assign(lags.size(), 0.0);
  const double omega = params().get("omega");
  std::vector<std::vector<double>> cols(2 * order_, std::vector<double>(lags.size()));
  for (size_t n = 0; n < lags.size(); ++n) {
    const double d = lags[n];
    const double T = stabilizedTau(d, L_) / L_;
    // Seen from key position 0 (T_0 = 0): P(-T_d)^-1 P(0) = c_0 P(-T_d)^-1, entries c_0 b_r.
    const std::vector<double> w = jetInverse(jetCoefficients(jets_, T));
    const double env = std::exp(-gamma_ * d);
    for (long long r = 0; r < order_; ++r) {
      const double tr = std::pow(T, static_cast<double>(r)) * env;
      cols[2 * r][n] = tr * std::cos(omega * d);
      cols[2 * r + 1][n] = tr * std::sin(omega * d);
      b.kernel[n] += jets_[0] * w[r] * env * std::cos(omega * d);
    }
  }
  for (long long r = 0; r < order_; ++r) {
    std::string prefix = r == 0 ? "" : r == 1 ? "tau/L*" : "(tau/L)^" + std::to_string(r) + "*";
    b.add(prefix + "exp*cos", cols[2 * r]);
    b.add(prefix + "exp*sin", cols[2 * r + 1]);
  }
  return b;
}

double JordanJetEncoding::referenceLogit(const double* q, const double* k, long long i, long long j,
                                         long long) const {
  using C = std::complex<double>;
  const long long m = order_;
  // P(-T) entry by entry: (N^r)_{l, l+r} = 1, coefficient c_r (-T)^r / r!.
  auto factor = [&](double p) {
    const double T = stabilizedTau(p, L_) / L_;
    std::vector<double> P(static_cast<size_t>(m * m), 0.0);
    double power = 1, fact = 1;
    for (long long r = 0; r < m; ++r) {
      if (r > 0) power *= -T, fact *= static_cast<double>(r);
      for (long long l = 0; l + r < m; ++l) P[l * m + l + r] = jets_[r] * power / fact;
    }
    return P;
  };
  const std::vector<double> Pi = factor(static_cast<double>(i)),
                            Pj = factor(static_cast<double>(j));
  // X = Pi^-1 Pj by back substitution, column by column (Pi is upper triangular).
  std::vector<double> X(static_cast<size_t>(m * m), 0.0);
  for (long long col = 0; col < m; ++col)
    for (long long row = m - 1; row >= 0; --row) {
      double v = Pj[row * m + col];
      for (long long s = row + 1; s < m; ++s) v -= Pi[row * m + s] * X[s * m + col];
      X[row * m + col] = v / Pi[row * m + row];
    }
  const double d = static_cast<double>(i - j);
  double total = 0;
  for (size_t b = 0; b < omega_.size(); ++b) {
    const double* qb = q + b * 2 * m;
    const double* kb = k + b * 2 * m;
    const C scalar = std::exp(C(-gamma_, omega_[b]) * d);
    C s(0, 0);
    for (long long row = 0; row < m; ++row) {
      C mk(0, 0);
      for (long long col = 0; col < m; ++col)
        mk += scalar * X[row * m + col] * C(kb[2 * col], kb[2 * col + 1]);
      s += std::conj(C(qb[2 * row], qb[2 * row + 1])) * mk;
    }
    total += s.real();
  }
  return total / std::sqrt(static_cast<double>(headDim()));
}

JetMixDefaults jetMixM3Defaults() {
  return {3, {1.0, 0.10, 0.05}, 1.0, false, 12};
}
JetMixDefaults jetMixM4Defaults() {
  return {4, {1.0, 0.30, 0.10, 0.05}, 1.0, false, 16};
}
JetMixDefaults jetMixM4FullDefaults() {
  return {4, {1.0, 0.5, 0.3, 0.2}, 2.0, true, 16};
}

namespace {
FamilyInfo jetMixInfo(const std::string& id, const std::string& reference,
                      const JetMixDefaults& d) {
  const std::string ms = std::to_string(d.order);
  return FamilyInfo{
      id, "Jordan-RoPE (order " + ms + ", jet mix" + (d.learnJet0 ? ", learned c_0" : "") + ")",
      "s_b = Re( q_b^H e^{λd} P(−T_i)^{−1} P(−T_j) k_b ),  P(t) = Σ_{r<" + ms +
          "} c_r \\frac{t^r}{r!} N^r,  T_p = τ(p)/L",
      "A complex Jordan block of order " + ms +
          " whose jets have independent learned weights c_r, as the reference code's " + reference +
          ": the bounded shear time τ(p)/L per absolute position, decay from c/L, and no single "
          "shear η tying the orders together. Not relative. Each block takes " +
          std::to_string(2 * d.order) + " reals of the head.",
      jetMixParams(d)};
}
}  // namespace

const FamilyInfo& JordanM3JetmixInfo() {
  static const FamilyInfo info =
      jetMixInfo("jordan-m3-jetmix", "jordan_jetmix_m3", jetMixM3Defaults());
  return info;
}
const FamilyInfo& JordanM4JetmixInfo() {
  static const FamilyInfo info =
      jetMixInfo("jordan-m4-jetmix", "jordan_jetmix_m4", jetMixM4Defaults());
  return info;
}
const FamilyInfo& JordanM4JetmixFullInfo() {
  static const FamilyInfo info =
      jetMixInfo("jordan-m4-jetmix-full", "jordan_jetmixfull_m4", jetMixM4FullDefaults());
  return info;
}
std::unique_ptr<Encoding> makeJordanM3Jetmix(ParamSet p) {
  return std::make_unique<JordanJetEncoding>(JordanM3JetmixInfo(), std::move(p), 3);
}
std::unique_ptr<Encoding> makeJordanM4Jetmix(ParamSet p) {
  return std::make_unique<JordanJetEncoding>(JordanM4JetmixInfo(), std::move(p), 4);
}
std::unique_ptr<Encoding> makeJordanM4JetmixFull(ParamSet p) {
  return std::make_unique<JordanJetEncoding>(JordanM4JetmixFullInfo(), std::move(p), 4);
}

}  // namespace poslab
