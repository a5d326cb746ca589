// Every family, trained path: the model's attention logits (PositionModule::scorer, factorized
// and direct) at non-default learnable values against the family's float64 referenceLogit at the
// constrained values those raw values stand for, with the maps of MATH 2.3 written out here
// (softplus + floor, cap * tanh, softmax, clamp). And every learnable receives a finite, non-zero
// gradient.
//
// Tolerance 1e-5 relative to the logit scale: the raw parameters are float32 and some maps
// (softmax, softplus, clamp) run in float32, so the constrained values carry about 1e-7 relative
// error; q and k are float64. A wrong map or formula moves logits by 1e-3 or more (the gamma
// floor alone, 1e-4 per position over lags up to 30, gives about 3e-3).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "encodings/pj_kernel.h"
#include "encodings/registry.h"
#include "model/position_module.h"
#include "test_support.h"

namespace poslab {
namespace {

using testing::maxAbsDiff;
using testing::positions;
using testing::randomQK;
using testing::softplus;

constexpr double kGammaMin = 1e-4;  // MATH 2.3: gamma = softplus(raw) + 1e-4
// Non-default raw values, exactly representable in float32.
constexpr double kGammaRaw = -3.0;  // gamma = softplus(-3) + 1e-4 = 0.04868...
constexpr double kEtaRaw = 0.75;

// A family's reference logit for one head at the learned values (float64).
using Reference = std::function<double(const double* q, const double* k, long long i, long long j,
                                       long long head)>;

struct TrainedCase {
  std::string id;
  std::map<std::string, double> params;  // structural parameters (heads, L where the family has)
  long long heads = 2;
  long long headDim = 16;
  // Sets the module's raw parameters to non-default values and returns the family parameters
  // they stand for (merged into params for the reference); empty for families with no
  // learnables.
  std::function<std::map<std::string, double>(PositionModuleImpl&)> setRaw;
  // Replaces the registry encoding's referenceLogit where the learned values are not scalar
  // family parameters (PJ-bias's per-head coefficients).
  std::function<Reference(const std::map<std::string, double>& params)> reference;
};

void fill(PositionModuleImpl& m, const std::string& name, double value) {
  torch::NoGradGuard guard;
  bool found = false;
  for (auto& p : m.named_parameters(/*recurse=*/false)) {
    if (p.key() != name) continue;
    p.value().fill_(value);
    found = true;
  }
  if (!found) throw std::runtime_error("no parameter " + name);
}

// Jordan layouts: gamma = softplus(raw) + gamma_min, eta = eta_max tanh(raw) (MATH 2.3).
auto gammaEta(bool gamma, bool eta, double etaMax) {
  return [=](PositionModuleImpl& m) {
    std::map<std::string, double> learned;
    if (gamma) {
      fill(m, "gamma_raw", kGammaRaw);
      learned["gamma"] = softplus(kGammaRaw) + kGammaMin;
    }
    if (eta) {
      fill(m, "eta_raw", kEtaRaw);
      learned["eta"] = etaMax * std::tanh(kEtaRaw);
    }
    return learned;
  };
}

// Scaled-exact layouts (MATH 1.7.7): gamma = softplus(raw) with floor 0, which the family states
// as c = gamma L; eta = eta_max tanh(raw) in units of d / L.
auto scaledGammaEta(double L, double etaMax) {
  return [=](PositionModuleImpl& m) {
    fill(m, "gamma_raw", kGammaRaw);
    fill(m, "eta_raw", kEtaRaw);
    return std::map<std::string, double>{{"c", softplus(kGammaRaw) * L},
                                         {"eta", etaMax * std::tanh(kEtaRaw)}};
  };
}

// Jet mix (MATH 1.7.9): gamma = softplus(raw) with floor 0, stated as c = gamma L; the jets
// c_r = jet_max tanh(raw_r) with a different raw value per order r (and c_0 where learned).
double jetRaw(long long r) {
  return 0.5 - 0.375 * static_cast<double>(r);  // 0.125, -0.25, -0.625: exact in float32
}
auto jetMix(double L, long long order, double jetMax, bool learnJet0) {
  return [=](PositionModuleImpl& m) {
    fill(m, "gamma_raw", kGammaRaw);
    std::map<std::string, double> learned{{"c", softplus(kGammaRaw) * L}};
    {
      torch::NoGradGuard guard;
      for (auto& p : m.named_parameters(/*recurse=*/false))
        if (p.key() == "jet_raw")
          for (long long r = 1; r < order; ++r) p.value()[r - 1].fill_(jetRaw(r));
    }
    for (long long r = 1; r < order; ++r)
      learned["jet" + std::to_string(r)] = jetMax * std::tanh(jetRaw(r));
    if (learnJet0) {
      fill(m, "jet0_raw", 0.375);
      learned["jet0"] = jetMax * std::tanh(0.375);
    }
    return learned;
  };
}

// NTK-RoPE + affine: slope a_h = softplus(slope_raw) (MATH 1.2.6).
constexpr double kSlopeRaw = 0.625;
std::map<std::string, double> setSlope(PositionModuleImpl& m) {
  fill(m, "slope_raw", kSlopeRaw);
  return {{"slope", softplus(kSlopeRaw)}};
}

// PI, NTK, YaRN past the training length (MATH 1.2.5): the model's T = 35 positions (5..34 in
// the test) against L = 12 give the factor s = (T - 1)/(L - 1) for PI and T / L otherwise; the
// reference is the family's own formula at that s.
constexpr double kShortL = 12, kPositionsSeen = 35;
auto atEvaluationFactor(double s) {
  return [=](PositionModuleImpl&) { return std::map<std::string, double>{{"scale", s}}; };
}

// PJ-bias (MATH 2.3): different raw values per head, sector and order. The reference builds each
// head's coefficients by hand (softmax, softplus) and adds the content score q . k / sqrt(D).
constexpr long long kPjHeads = 3, kPjOrder = 2;
constexpr double kPjL = 24;
double pjGateRaw(long long h, int s) {
  return 0.25 * s - 0.5 + 0.125 * h;
}
double pjAlphaRaw(long long h, long long r, int sector) {
  return 0.375 * r - 0.25 * h + 0.5 * sector;
}
double pjZeta(long long h, long long r, int part, int sector) {
  return part == 0 ? 0.75 + 0.125 * r - 0.25 * sector : -0.25 + 0.125 * h;
}
double pjKappaRaw(long long h) {
  return -1.0 + 0.5 * h;
}
double pjSlopeRaw(long long h) {
  return 0.25 - 0.25 * h;
}

std::map<std::string, double> setPjRaw(PositionModuleImpl& m) {
  torch::NoGradGuard guard;
  for (auto& p : m.named_parameters(false)) {
    at::Tensor t = p.value();
    for (long long h = 0; h < kPjHeads; ++h) {
      if (p.key() == "gate_logits")
        for (int s = 0; s < 3; ++s) t[h][s] = pjGateRaw(h, s);
      if (p.key() == "kappa_raw") t[h] = pjKappaRaw(h);
      if (p.key() == "slope_raw") t[h] = pjSlopeRaw(h);
      for (long long r = 0; r <= kPjOrder; ++r) {
        if (p.key() == "alpha_fj_logits") t[h][r] = pjAlphaRaw(h, r, 0);
        if (p.key() == "alpha_lc_logits") t[h][r] = pjAlphaRaw(h, r, 1);
        for (int part = 0; part < 2; ++part) {
          if (p.key() == "zeta_fj") t[h][r][part] = pjZeta(h, r, part, 0);
          if (p.key() == "zeta_lc") t[h][r][part] = pjZeta(h, r, part, 1);
        }
      }
    }
  }
  return {};
}

std::vector<double> softmax(std::vector<double> x) {
  double sum = 0;
  for (double& v : x) sum += (v = std::exp(v));
  for (double& v : x) v /= sum;
  return x;
}

Reference pjReference(const std::map<std::string, double>& params) {
  const PjShape shape{kPjL, kPjOrder, /*asinhRho=*/params.at("rho") == 1};
  std::vector<PjHead> heads(kPjHeads);
  for (long long h = 0; h < kPjHeads; ++h) {
    PjHead& p = heads[h];
    // MATH 2.3's fixed frequencies: omega_h = 2 pi linspace(1, 17, H)_h / L.
    p.omega = 2 * M_PI * (1.0 + 16.0 * h / (kPjHeads - 1)) / kPjL;
    p.kappa = softplus(pjKappaRaw(h));
    p.slope = softplus(pjSlopeRaw(h));
    const auto gates = softmax({pjGateRaw(h, 0), pjGateRaw(h, 1), pjGateRaw(h, 2)});
    for (int s = 0; s < 3; ++s) p.gates[s] = gates[s];
    std::vector<double> aFj, aLc;
    for (long long r = 0; r <= kPjOrder; ++r) {
      aFj.push_back(pjAlphaRaw(h, r, 0));
      aLc.push_back(pjAlphaRaw(h, r, 1));
      p.zetaFjRe.push_back(pjZeta(h, r, 0, 0));
      p.zetaFjIm.push_back(pjZeta(h, r, 1, 0));
      p.zetaLcRe.push_back(pjZeta(h, r, 0, 1));
      p.zetaLcIm.push_back(pjZeta(h, r, 1, 1));
    }
    p.alphaFj = softmax(aFj);
    p.alphaLc = softmax(aLc);
  }
  const long long D = static_cast<long long>(params.at("head_dim"));
  return [shape, heads, D](const double* q, const double* k, long long i, long long j,
                           long long head) {
    double s = 0;
    for (long long c = 0; c < D; ++c) s += q[c] * k[c];
    return s / std::sqrt(static_cast<double>(D)) +
           pjKernel(shape, heads[head], static_cast<double>(i - j));
  };
}

const std::vector<TrainedCase>& trainedCases() {
  static const std::vector<TrainedCase> kCases = {
      {"nope", {}, 2, 16, {}, {}},
      {"rope", {}, 2, 16, {}, {}},
      {"rope-pi",
       {{"scale", 4}, {"L", kShortL}},
       2,
       16,
       atEvaluationFactor((kPositionsSeen - 1) / (kShortL - 1)),
       {}},
      {"rope-ntk",
       {{"scale", 4}, {"L", kShortL}},
       2,
       16,
       atEvaluationFactor(kPositionsSeen / kShortL),
       {}},
      {"rope-yarn",
       {{"scale", 8}, {"L", kShortL}},
       2,
       16,
       atEvaluationFactor(kPositionsSeen / kShortL),
       {}},
      {"rope-ntk-affine",
       {{"scale", 4}, {"L", kShortL}, {"heads", 2}},
       2,
       16,
       [](PositionModuleImpl& m) {
         auto learned = setSlope(m);
         learned["scale"] = kPositionsSeen / kShortL;
         return learned;
       },
       {}},
      {"xpos", {}, 2, 16, {}, {}},
      {"alibi", {{"heads", 4}}, 4, 8, {}, {}},
      {"rope-alibi", {{"heads", 4}}, 4, 8, {}, {}},
      {"damped-rope", {}, 2, 16, gammaEta(true, false, 0), {}},
      {"direct-sum", {{"L", 24}}, 2, 16, gammaEta(true, true, 0.1), {}},
      {"jordan-exact", {}, 2, 16, gammaEta(true, true, 0.1), {}},
      {"jordan-stabilized", {{"L", 24}}, 2, 16, gammaEta(true, true, 0.1), {}},
      {"jordan-stabilized-abs", {{"L", 24}}, 2, 16, gammaEta(true, true, 0.1), {}},
      {"real-jordan", {{"L", 24}}, 2, 16, gammaEta(true, true, 0.1), {}},
      {"jordan-no-gamma", {{"L", 24}}, 2, 16, gammaEta(false, true, 0.1), {}},
      // Scaled-exact: eta in units of d / L, eta_max = 0.1 by default (1 for the higher orders).
      {"jordan-scaled", {{"c", 0.5}, {"L", 24}}, 2, 16, scaledGammaEta(24, 0.1), {}},
      {"jordan-m3", {{"L", 24}}, 2, 12, gammaEta(true, true, 0.1), {}},
      {"jordan-m4", {{"L", 24}}, 2, 16, gammaEta(true, true, 0.1), {}},
      {"jordan-m3-exact", {}, 2, 12, gammaEta(true, true, 0.1), {}},
      {"jordan-m4-exact", {}, 2, 16, gammaEta(true, true, 0.1), {}},
      {"jordan-m3-scaled", {{"c", 0.5}, {"L", 24}}, 2, 12, scaledGammaEta(24, 1.0), {}},
      {"jordan-m4-scaled", {{"c", 0.5}, {"L", 24}}, 2, 16, scaledGammaEta(24, 1.0), {}},
      {"jordan-m3-jetmix", {{"L", 24}}, 2, 12, jetMix(24, 3, 1.0, false), {}},
      {"jordan-m4-jetmix", {{"L", 24}}, 2, 16, jetMix(24, 4, 1.0, false), {}},
      {"jordan-m4-jetmix-full", {{"L", 24}}, 2, 16, jetMix(24, 4, 2.0, true), {}},
      // + ALiBi: the base family's learnables; the fixed slopes are the reference logit's.
      {"jordan-scaled-alibi",
       {{"c", 0.5}, {"L", 24}, {"heads", 4}},
       4,
       8,
       scaledGammaEta(24, 0.1),
       {}},
      {"jordan-m3-jetmix-alibi", {{"L", 24}, {"heads", 4}}, 4, 12, jetMix(24, 3, 1.0, false), {}},
      {"jordan-m4-jetmix-full-alibi",
       {{"L", 24}, {"heads", 4}},
       4,
       16,
       jetMix(24, 4, 2.0, true),
       {}},
      {"pj-bias",
       {{"heads", kPjHeads}, {"L", kPjL}, {"order", kPjOrder}, {"rho", 1}},
       kPjHeads,
       8,
       setPjRaw,
       pjReference},
      // PosLab's learned variant (the reference learns nothing here: test_family_init.cpp). Order
      // 2 and one affine block: gamma is masked to 0 there (lambda = 0); eta_max = 1 on d/L.
      {"pj-rotary",
       {{"order", 2}, {"L", 24}, {"affine_blocks", 1}, {"learn_decay_shear", 1}},
       2,
       18,
       gammaEta(true, true, 1.0),
       {}},
      // PoPE: delta (H, D) clamped to [-2 pi, 0]; -0.875 lies inside.
      {"pope",
       {},
       2,
       8,
       [](PositionModuleImpl& m) {
         fill(m, "delta", -0.875);
         return std::map<std::string, double>{{"delta", -0.875}};
       },
       {}},
  };
  return kCases;
}

TEST(TrainedLogits, EveryFamilyIsCovered) {
  EXPECT_EQ(trainedCases().size(), allFamilies().size());
  for (const auto* info : allFamilies()) {
    bool found = false;
    for (const auto& c : trainedCases()) found = found || c.id == info->id;
    EXPECT_TRUE(found) << info->id << " has no trained-logits case";
  }
}

struct TrainedLogitsBuilt {
  PositionModule module{nullptr};
  Reference reference;
  std::unique_ptr<Encoding> encoding;  // keeps the registry encoding alive for `reference`
};

TrainedLogitsBuilt buildTrainedCase(const TrainedCase& tc) {
  constexpr long long kTrainLength = 24;
  ModelConfig cfg;
  cfg.family = tc.id;
  cfg.familyParams = tc.params;
  cfg.heads = tc.heads;
  cfg.dModel = tc.heads * tc.headDim;
  TrainedLogitsBuilt b;
  b.module = PositionModule(cfg, kTrainLength);
  std::map<std::string, double> params = tc.params;
  params["head_dim"] = static_cast<double>(tc.headDim);
  if (tc.setRaw)
    for (const auto& [name, value] : tc.setRaw(*b.module)) params[name] = value;
  if (tc.reference) {
    b.reference = tc.reference(params);
  } else {
    // Structural parameters the model fills in (L = the training length), unless given.
    for (const auto& spec : familyInfo(tc.id).params)
      if (spec.name == "L" && !params.count("L")) params["L"] = kTrainLength;
    b.encoding = makeEncoding(tc.id, params);
    const Encoding* enc = b.encoding.get();
    b.reference = [enc](const double* q, const double* k, long long i, long long j,
                        long long head) { return enc->referenceLogit(q, k, i, j, head); };
  }
  return b;
}

// Reference logits (B, H, T, T) from a Reference, -inf where j > i.
at::Tensor referenceMatrix(const Reference& ref, const at::Tensor& q, const at::Tensor& k,
                           const at::Tensor& pos) {
  const long long B = q.size(0), H = q.size(1), T = q.size(2), D = q.size(3);
  at::Tensor out = at::empty({B, H, T, T}, at::TensorOptions().dtype(at::kDouble));
  auto o = out.accessor<double, 4>();
  auto p = pos.accessor<int64_t, 1>();
  at::Tensor qc = q.contiguous(), kc = k.contiguous();
  const double* qd = qc.data_ptr<double>();
  const double* kd = kc.data_ptr<double>();
  for (long long b = 0; b < B; ++b)
    for (long long h = 0; h < H; ++h)
      for (long long i = 0; i < T; ++i)
        for (long long j = 0; j < T; ++j)
          o[b][h][i][j] = p[j] > p[i] ? -INFINITY
                                      : ref(qd + ((b * H + h) * T + i) * D,
                                            kd + ((b * H + h) * T + j) * D, p[i], p[j], h);
  return out;
}

class TrainedFamily : public ::testing::TestWithParam<size_t> {};

TEST_P(TrainedFamily, ModelLogitsMatchFloat64Reference) {
  const TrainedCase& tc = trainedCases()[GetParam()];
  TrainedLogitsBuilt b = buildTrainedCase(tc);
  constexpr long long T = 30;
  at::Tensor q = randomQK(2, tc.heads, T, tc.headDim, at::kDouble, 11);
  at::Tensor k = randomQK(2, tc.heads, T, tc.headDim, at::kDouble, 12);
  at::Tensor pos = positions(5, T);  // offset: absolute-position effects would show
  torch::NoGradGuard guard;
  at::Tensor ref = referenceMatrix(b.reference, q, k, pos);
  const double scale =
      at::where(at::isfinite(ref), ref.abs(), at::zeros_like(ref)).max().item<double>();
  for (bool factorized : {true, false}) {
    // Two query blocks against two key blocks, as causalAttention streams them.
    BlockScorer scorer = b.module->scorer(q, k, pos, factorized);
    at::Tensor top = at::cat({scorer(0, 13, 0, 13), scorer(0, 13, 13, T - 13)}, 3);
    at::Tensor bottom = at::cat({scorer(13, T - 13, 0, 13), scorer(13, T - 13, 13, T - 13)}, 3);
    at::Tensor logits = at::cat({top, bottom}, 2);
    EXPECT_LT(maxAbsDiff(logits, ref), 1e-5 * (1 + scale))
        << tc.id << (factorized ? " factorized" : " direct");
  }
}

TEST_P(TrainedFamily, EveryLearnableGetsAGradient) {
  const TrainedCase& tc = trainedCases()[GetParam()];
  TrainedLogitsBuilt b = buildTrainedCase(tc);
  const auto params = b.module->named_parameters(false);
  if (params.is_empty()) GTEST_SKIP() << tc.id << " has no learnables";
  constexpr long long T = 20;
  at::Tensor q = randomQK(1, tc.heads, T, tc.headDim, at::kFloat, 13);
  at::Tensor k = randomQK(1, tc.heads, T, tc.headDim, at::kFloat, 14);
  at::Tensor w = randomQK(1, tc.heads, T, T, at::kFloat, 15);
  at::Tensor logits = b.module->scorer(q, k, positions(0, T), true)(0, T, 0, T);
  at::Tensor loss = at::where(at::isfinite(logits), logits * w, at::zeros_like(w)).sum();
  loss.backward();
  for (const auto& p : params) {
    const at::Tensor& g = p.value().grad();
    ASSERT_TRUE(g.defined()) << tc.id << " " << p.key() << " has no gradient";
    EXPECT_TRUE(at::isfinite(g).all().item<bool>()) << tc.id << " " << p.key();
    EXPECT_GT(g.abs().max().item<double>(), 0.0) << tc.id << " " << p.key();
  }
}

INSTANTIATE_TEST_SUITE_P(AllFamilies, TrainedFamily,
                         ::testing::Range<size_t>(0, trainedCases().size()),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                           std::string name = trainedCases()[info.param].id;
                           for (auto& ch : name)
                             if (ch == '-') ch = '_';
                           return name;
                         });

}  // namespace
}  // namespace poslab
