// Every trained family's parameters at initialisation (shapes and values) against the reference
// code's definitions, written out here from those definitions (jordan_rope/positional.py and
// model.py's JordanRoPE, DirectSumRoPEUnipotent, jordan_exact_*, jordan_m3/m4; pjrope's PJBias
// and exact PJ-rotary; byte_lm_smoke.py's rope_ntk_affine and dynamic RoPE extensions), not
// taken from the code under test:
//   gamma = softplus(raw) + gamma_min, raw = log(expm1(max(init - gamma_min, 1e-8))), (H, nb);
//   eta = eta_max tanh(raw), raw = atanh(init / eta_max), (H, nb); omega_b = base^(-2b/D).
// Then per-head values reach per-head logits, the RoPE extensions are plain RoPE inside the
// training length, and a checkpoint from before per-head gamma and eta is refused by name.
// Tolerances: float32 raw values, so 1e-6 relative on constrained values; logits as
// test_trained_logits.cpp (1e-5 of the logit scale).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <unistd.h>

#include "encodings/registry.h"
#include "encodings/rotary_encoding.h"
#include "model/position_module.h"
#include "test_support.h"
#include "train/checkpoint_file.h"
#include "train/trainer.h"
#include "util/error.h"

namespace poslab {
namespace {

using testing::maxAbsDiff;
using testing::positions;
using testing::randomQK;
using testing::softplus;

// The reference's _inverse_softplus: clamps at 1e-8 first.
double referenceInverseSoftplus(double y) {
  y = std::max(y, 1e-8);
  return y + std::log(-std::expm1(-y));
}

struct FamilyInitBuilt {
  PositionModule module{nullptr};
  std::map<std::string, at::Tensor> params, buffers;
};

FamilyInitBuilt buildInFamilyInit(const std::string& family, long long heads, long long headDim,
                                  long long trainLength,
                                  std::map<std::string, double> familyParams = {}) {
  ModelConfig cfg;
  cfg.family = family;
  cfg.familyParams = std::move(familyParams);
  cfg.heads = heads;
  cfg.dModel = heads * headDim;
  FamilyInitBuilt b;
  b.module = PositionModule(cfg, trainLength);
  for (const auto& p : b.module->named_parameters(false)) b.params[p.key()] = p.value().detach();
  for (const auto& p : b.module->named_buffers(false)) b.buffers[p.key()] = p.value().detach();
  return b;
}

const JordanLayout& layoutOf(const FamilyInitBuilt& b) {
  return dynamic_cast<const RotaryEncoding&>(b.module->encoding()).layout();
}

// Every entry of t (any shape) equals want to within tol, relative.
void expectAllInFamilyInit(const at::Tensor& t, double want, double tol, const std::string& what) {
  const at::Tensor d = t.to(at::kDouble).flatten();
  for (int64_t n = 0; n < d.numel(); ++n)
    EXPECT_NEAR(d[n].item<double>(), want, tol * (std::abs(want) + 1e-12))
        << what << " [" << n << "]";
}

void expectShape(const at::Tensor& t, std::vector<int64_t> shape, const std::string& what) {
  ASSERT_TRUE(t.defined()) << what << " is missing";
  EXPECT_EQ(t.sizes().vec(), shape) << what;
}

void expectOmega(const JordanGroup& g, const std::vector<double>& want, const std::string& what) {
  ASSERT_EQ(g.omega.numel(), static_cast<int64_t>(want.size())) << what;
  for (size_t b = 0; b < want.size(); ++b)
    EXPECT_NEAR(g.omega[static_cast<int64_t>(b)].item<double>(), want[b], 1e-15 + 1e-13 * want[b])
        << what << " block " << b;
}

std::vector<double> ropeSchedule(long long count, long long D, double base) {
  std::vector<double> out;
  for (long long b = 0; b < count; ++b) out.push_back(std::pow(base, -2.0 * b / D));
  return out;
}

// The reference JordanRoPE's initial gamma (init 1e-4, floor 1e-4) and eta (0), (H, nb).
void expectReferenceGammaEta(const FamilyInitBuilt& b, long long H, long long nb,
                             const std::string& what) {
  expectShape(b.params.at("gamma_raw"), {H, nb}, what + " gamma_raw");
  expectShape(b.params.at("eta_raw"), {H, nb}, what + " eta_raw");
  expectAllInFamilyInit(b.params.at("gamma_raw"), referenceInverseSoftplus(1e-4 - 1e-4), 1e-6,
                        what);
  expectAllInFamilyInit(b.params.at("eta_raw"), 0.0, 0.0, what + " eta_raw");
  const auto snap = b.module->snapshot();
  ASSERT_EQ(snap.at("gamma").size(), static_cast<size_t>(H * nb)) << what;
  for (double g : snap.at("gamma")) EXPECT_NEAR(g, 1e-4 + 1e-8, 1e-11) << what;
  for (double e : snap.at("eta")) EXPECT_EQ(e, 0.0) << what;
}

// eta's cap: a large raw value saturates at eta_max.
void expectEtaCap(FamilyInitBuilt& b, double etaMax, const std::string& what) {
  {
    torch::NoGradGuard guard;
    b.module->named_parameters(false)["eta_raw"].fill_(20.0);
  }
  const auto snap = b.module->snapshot();  // kept: a range-for over .at() of a temporary dangles
  ASSERT_FALSE(snap.at("eta").empty()) << what;
  for (double e : snap.at("eta")) EXPECT_NEAR(e, etaMax, 1e-6 * etaMax) << what;
}

// One group of order-2 blocks with shear time `kind` (at context scale L where it has one),
// rotating at omega (one entry per block).
void expectOrderTwoBlocks(const FamilyInitBuilt& b, ShearKind kind, long long L,
                          const std::vector<double>& omega, const std::string& what) {
  const JordanLayout& layout = layoutOf(b);
  ASSERT_EQ(layout.groups.size(), 1u) << what;
  EXPECT_EQ(layout.groups[0].order, 2) << what;
  EXPECT_EQ(layout.groups[0].kind, kind) << what;
  if (kind != ShearKind::Linear) EXPECT_EQ(layout.groups[0].L, L) << what;
  expectOmega(layout.groups[0], omega, what);
}

// The bounded absolute shear at the reference's train_context L.
void expectBoundedShearBlocks(const FamilyInitBuilt& b, long long L,
                              const std::vector<double>& omega, const std::string& what) {
  expectOrderTwoBlocks(b, ShearKind::AbsoluteSaturating, L, omega, what);
}

TEST(FamilyInit, JordanRopeIsTheReferenceTrainableForm) {
  constexpr long long H = 3, D = 16, L = 32;
  FamilyInitBuilt b = buildInFamilyInit("jordan-stabilized-abs", H, D, L);
  expectReferenceGammaEta(b, H, D / 4, "jordan-stabilized-abs");
  expectBoundedShearBlocks(b, L, ropeSchedule(D / 4, D, 10000), "jordan-stabilized-abs");
  expectEtaCap(b, 0.1, "jordan-stabilized-abs");
  // The laptop kernel-LM preset keeps the reference's eta tau range at a shorter window: eta_max
  // scaled by 1024 / L.
  FamilyInitBuilt wide = buildInFamilyInit("jordan-stabilized-abs", H, D, L, {{"eta_max", 1.6}});
  expectEtaCap(wide, 1.6, "jordan-stabilized-abs eta_max = 1.6");
  FamilyInitBuilt noGamma = buildInFamilyInit("jordan-no-gamma", H, D, L, {{"eta_max", 0.5}});
  expectEtaCap(noGamma, 0.5, "jordan-no-gamma eta_max = 0.5");
}

// The reference's jordan_raw_tau is PosLab's jordan-exact: JordanRoPE's learnables with the raw
// shear time i - j (linear, so it keeps the group law) and RoPE's schedule.
TEST(FamilyInit, JordanExactIsJordanRopeWithTheRawShearTime) {
  constexpr long long H = 2, D = 16, L = 40;
  FamilyInitBuilt b = buildInFamilyInit("jordan-exact", H, D, L);
  expectReferenceGammaEta(b, H, D / 4, "jordan-exact");
  expectOrderTwoBlocks(b, ShearKind::Linear, L, ropeSchedule(D / 4, D, 10000), "jordan-exact");
  expectEtaCap(b, 0.1, "jordan-exact");
}

// PosLab's relative-shear variant (not in the reference's method lists): the same learnables as
// JordanRoPE, with the saturating relative shear time tau(d) = d / (1 + d/L) at L = the training
// length.
TEST(FamilyInit, RelativeStabilizedJordanHasJordanRopesLearnables) {
  constexpr long long H = 3, D = 8, L = 48;
  FamilyInitBuilt b = buildInFamilyInit("jordan-stabilized", H, D, L);
  expectReferenceGammaEta(b, H, D / 4, "jordan-stabilized");
  expectOrderTwoBlocks(b, ShearKind::Saturating, L, ropeSchedule(D / 4, D, 10000),
                       "jordan-stabilized");
  expectEtaCap(b, 0.1, "jordan-stabilized");
}

// PoPE-pytorch's PoPE: the key phase bias is a (heads, dim) parameter of zeros, used clamped to
// [-2 pi, 0].
TEST(FamilyInit, PopeStartsItsPhaseBiasAtZeroPerHeadAndComponent) {
  constexpr long long H = 3, D = 8;
  FamilyInitBuilt b = buildInFamilyInit("pope", H, D, 32);
  expectShape(b.params.at("delta"), {H, D}, "delta");
  expectAllInFamilyInit(b.params.at("delta"), 0.0, 0.0, "delta");
  auto meanDelta = [&](double raw) {
    {
      torch::NoGradGuard guard;
      b.module->named_parameters(false)["delta"].fill_(raw);
    }
    const auto snap = b.module->snapshot();
    return snap.at("delta_mean");
  };
  for (double d : meanDelta(1.0)) EXPECT_EQ(d, 0.0) << "clamped at 0";
  for (double d : meanDelta(-10.0)) EXPECT_NEAR(d, -2 * M_PI, 1e-6) << "clamped at -2 pi";
  for (double d : meanDelta(-1.5)) EXPECT_NEAR(d, -1.5, 1e-6) << "inside the range";
}

// The reference's real_jordan: JordanRoPE with force_zero_omega, the same learnables.
TEST(FamilyInit, RealJordanIsJordanRopeWithoutRotation) {
  constexpr long long H = 2, D = 16, L = 48;
  FamilyInitBuilt b = buildInFamilyInit("real-jordan", H, D, L);
  expectReferenceGammaEta(b, H, D / 4, "real-jordan");
  expectBoundedShearBlocks(b, L, std::vector<double>(D / 4, 0.0), "real-jordan");
  expectEtaCap(b, 0.1, "real-jordan");
}

// The reference's jordan_no_gamma: JordanRoPE with learn_gamma=False and force_zero_gamma, so
// gamma is 0 exactly and not a parameter; eta as jordan_rope's.
TEST(FamilyInit, JordanNoGammaHasNoDecayToLearn) {
  constexpr long long H = 2, D = 16, L = 40;
  FamilyInitBuilt b = buildInFamilyInit("jordan-no-gamma", H, D, L);
  EXPECT_EQ(b.params.count("gamma_raw"), 0u) << "force_zero_gamma: no gamma parameter";
  expectShape(b.params.at("eta_raw"), {H, D / 4}, "eta_raw");
  expectAllInFamilyInit(b.params.at("eta_raw"), 0.0, 0.0, "eta_raw");
  expectBoundedShearBlocks(b, L, ropeSchedule(D / 4, D, 10000), "jordan-no-gamma");
  expectAllInFamilyInit(layoutOf(b).groups[0].gamma, 0.0, 0.0, "gamma");
  expectEtaCap(b, 0.1, "jordan-no-gamma");
}

TEST(FamilyInit, DampedRopeIsOrderTwoBlocksOnTheFastHalfWithoutShear) {
  constexpr long long H = 2, D = 32;
  FamilyInitBuilt b = buildInFamilyInit("damped-rope", H, D, 64);
  expectShape(b.params.at("gamma_raw"), {H, D / 4}, "gamma_raw");
  EXPECT_EQ(b.params.count("eta_raw"), 0u) << "the reference forces eta = 0";
  expectAllInFamilyInit(b.params.at("gamma_raw"), referenceInverseSoftplus(0.0), 1e-6, "gamma_raw");
  const JordanGroup& g = layoutOf(b).groups.at(0);
  EXPECT_EQ(g.order, 2);
  expectAllInFamilyInit(g.shear, 0.0, 0.0, "shear");
  // omega_b = base^(-2b/D), b < D/4: the upper (fast) half of RoPE's D/2 frequencies.
  expectOmega(g, ropeSchedule(D / 4, D, 10000), "damped-rope");
}

TEST(FamilyInit, DirectSumIsRopeOnHalfPlusUnrotatedJordanBlocks) {
  constexpr long long H = 2, D = 32, L = 48;
  FamilyInitBuilt b = buildInFamilyInit("direct-sum", H, D, L);
  expectReferenceGammaEta(b, H, D / 8, "direct-sum");
  const JordanLayout& layout = layoutOf(b);
  ASSERT_EQ(layout.groups.size(), 2u);
  const JordanGroup& rope = layout.groups[0];
  const JordanGroup& jordan = layout.groups[1];
  EXPECT_EQ(rope.order, 1);
  EXPECT_EQ(rope.offset, 0);
  expectOmega(rope, ropeSchedule(D / 4, D / 2, 10000), "RoPE half: theta_c = base^(-2c/(D/2))");
  expectAllInFamilyInit(rope.gamma, 0.0, 0.0, "RoPE half gamma");
  EXPECT_EQ(jordan.order, 2);
  EXPECT_EQ(jordan.offset, D / 2);
  EXPECT_EQ(jordan.blocks, D / 8);
  EXPECT_EQ(jordan.kind, ShearKind::AbsoluteSaturating);
  EXPECT_EQ(jordan.L, L);
  expectAllInFamilyInit(jordan.omega, 0.0, 0.0, "Jordan half omega (force_zero_omega)");
  expectEtaCap(b, 0.1, "direct-sum");
}

TEST(FamilyInit, ScaledExactLearnsGammaFromCOverLWithFloorZero) {
  constexpr long long H = 2, D = 16, L = 40;
  for (double c : {1.0, 0.1}) {
    FamilyInitBuilt b = buildInFamilyInit("jordan-scaled", H, D, L, {{"c", c}});
    expectShape(b.params.at("gamma_raw"), {H, D / 4}, "gamma_raw");
    expectShape(b.params.at("eta_raw"), {H, D / 4}, "eta_raw");
    // gamma_min = 0: softplus(raw) itself starts at c / L.
    expectAllInFamilyInit(b.params.at("gamma_raw"), referenceInverseSoftplus(c / L), 1e-6,
                          "gamma_raw");
    const auto snap = b.module->snapshot();
    for (double g : snap.at("gamma")) EXPECT_NEAR(g, c / L, 1e-6 * c / L);
    expectAllInFamilyInit(b.params.at("eta_raw"), 0.0, 0.0, "eta_raw");
    expectEtaCap(b, 0.1, "jordan-scaled");
  }
  FamilyInitBuilt eta1 = buildInFamilyInit("jordan-scaled", H, D, L, {{"eta_max", 1}});
  expectEtaCap(eta1, 1.0, "jordan-scaled eta_max = 1");
  EXPECT_EQ(layoutOf(eta1).groups[0].kind, ShearKind::Linear);
}

TEST(FamilyInit, HigherOrdersUseTheBoundedAbsoluteShearByDefault) {
  constexpr long long H = 2, L = 24;
  for (long long m : {3LL, 4LL}) {
    const long long D = 4 * m;  // two blocks of 2m reals
    const std::string id = "jordan-m" + std::to_string(m);
    FamilyInitBuilt b = buildInFamilyInit(id, H, D, L);
    expectReferenceGammaEta(b, H, 2, id);
    EXPECT_EQ(layoutOf(b).groups[0].order, m);
    EXPECT_EQ(layoutOf(b).groups[0].kind, ShearKind::AbsoluteSaturating);
    expectOmega(layoutOf(b).groups[0], ropeSchedule(2, D, 10000), id);
    expectEtaCap(b, 0.1, id);

    FamilyInitBuilt exact = buildInFamilyInit(id + "-exact", H, D, L);
    expectReferenceGammaEta(exact, H, 2, id + "-exact");
    EXPECT_EQ(layoutOf(exact).groups[0].kind, ShearKind::Linear);

    FamilyInitBuilt scaled = buildInFamilyInit(id + "-scaled", H, D, L);
    expectAllInFamilyInit(scaled.params.at("gamma_raw"), referenceInverseSoftplus(1.0 / L), 1e-6,
                          id);
    EXPECT_EQ(layoutOf(scaled).groups[0].kind, ShearKind::Linear);
    expectEtaCap(scaled, 1.0, id + "-scaled");
  }
}

TEST(FamilyInit, PjRotaryIsTheFixedReferenceTransform) {
  constexpr long long H = 2, D = 16, L = 50;
  FamilyInitBuilt b = buildInFamilyInit("pj-rotary", H, D, L);
  EXPECT_TRUE(b.params.empty()) << "the reference's exact PJ-rotary learns nothing";
  const JordanGroup& g = layoutOf(b).groups.at(0);
  const long long nb = D / 4;
  EXPECT_EQ(g.order, 2);
  std::vector<double> omega;
  for (long long k = 0; k < nb; ++k) omega.push_back(std::pow(10000.0, -double(k) / nb));
  expectOmega(g, omega, "pj-rotary: base^(-b/n_blocks)");
  expectAllInFamilyInit(g.gamma, 0.0, 0.0, "no decay");
  expectAllInFamilyInit(g.shear, 1.0 / L, 1e-15, "eta = 1 on the coordinate pos / L");
  FamilyInitBuilt learned = buildInFamilyInit("pj-rotary", H, D, L, {{"learn_decay_shear", 1}});
  expectShape(learned.params.at("gamma_raw"), {H, nb}, "PosLab's learned variant");
  expectShape(learned.params.at("eta_raw"), {H, nb}, "PosLab's learned variant");
}

TEST(FamilyInit, PjBiasLearnsOmegaAndStartsZetaAtSmallNoise) {
  constexpr long long H = 64, L = 96, R = 3;
  torch::manual_seed(5);
  FamilyInitBuilt b = buildInFamilyInit("pj-bias", H, 8, L, {{"order", R}});
  const at::Tensor omega = b.params.at("omega");
  expectShape(omega, {H}, "omega");
  for (long long h = 0; h < H; ++h) {
    const double cycles = 1.0 + 16.0 * h / (H - 1);  // linspace(1, 17, H)
    EXPECT_NEAR(omega[h].item<double>(), 2 * M_PI * cycles / L, 1e-6 * 2 * M_PI * cycles / L);
  }
  for (const char* name : {"zeta_fj", "zeta_lc"}) {
    const at::Tensor z = b.params.at(name).to(at::kDouble);
    expectShape(z, {H, R + 1, 2}, name);
    // 512 draws of 0.02 N(0, 1): the sample std lies within 0.02 +- 15% (about 5 standard errors).
    EXPECT_NEAR(z.std().item<double>(), 0.02, 0.003) << name;
    EXPECT_NEAR(z.mean().item<double>(), 0.0, 0.003) << name;
  }
  EXPECT_FALSE(at::equal(b.params.at("zeta_fj"), b.params.at("zeta_lc")));
  FamilyInitBuilt one = buildInFamilyInit("pj-bias", 1, 8, L);
  EXPECT_NEAR(one.params.at("omega")[0].item<double>(), 2 * M_PI * 17 / L, 1e-6);
  FamilyInitBuilt pinned =
      buildInFamilyInit("pj-bias", 2, 8, L, {{"pin_omega", 1}, {"omega", 0.5}});
  EXPECT_EQ(pinned.params.count("omega"), 0u);
  expectAllInFamilyInit(pinned.buffers.at("omega"), 0.5, 1e-7, "pinned omega");
}

TEST(FamilyInit, NtkAffineStartsTheSlopeAtItsInit) {
  FamilyInitBuilt b = buildInFamilyInit("rope-ntk-affine", 3, 16, 32);
  expectShape(b.params.at("slope_raw"), {3}, "slope_raw");
  expectAllInFamilyInit(b.params.at("slope_raw"), referenceInverseSoftplus(2.0), 1e-6, "slope_raw");
  const auto snap = b.module->snapshot();
  ASSERT_EQ(snap.at("slope").size(), 3u);
  for (double a : snap.at("slope")) EXPECT_NEAR(a, 2.0, 1e-6);
}

// Model logits (B, H, T, T) from a module's scorer at positions pos.
at::Tensor modelLogits(const PositionModuleImpl& m, const at::Tensor& q, const at::Tensor& k,
                       const at::Tensor& pos, bool factorized) {
  torch::NoGradGuard guard;
  return m.scorer(q, k, pos, factorized)(0, q.size(2), 0, k.size(2));
}

// Different raw values per head reach each head's logits: head h against the registry
// encoding's float64 reference at head h's constrained gamma and eta.
TEST(FamilyInit, PerHeadGammaAndEtaGiveEachHeadItsOwnLogits) {
  constexpr long long H = 3, T = 20, L = 24;
  for (const std::string id : {"jordan-stabilized-abs", "direct-sum", "jordan-m3", "damped-rope"}) {
    const long long D = id == "jordan-m3" ? 12 : 16;
    FamilyInitBuilt b = buildInFamilyInit(id, H, D, L);
    const bool hasEta = b.params.count("eta_raw") > 0;
    {
      torch::NoGradGuard guard;
      auto named = b.module->named_parameters(false);
      for (long long h = 0; h < H; ++h) {
        named["gamma_raw"][h].fill_(-3.0 + 0.5 * h);
        if (hasEta) named["eta_raw"][h].fill_(0.75 - 0.5 * h);
      }
    }
    at::Tensor q = randomQK(1, H, T, D, at::kDouble, 21);
    at::Tensor k = randomQK(1, H, T, D, at::kDouble, 22);
    at::Tensor pos = positions(3, T);
    for (bool factorized : {true, false}) {
      at::Tensor logits = modelLogits(*b.module, q, k, pos, factorized);
      for (long long h = 0; h < H; ++h) {
        std::map<std::string, double> p = {
            {"head_dim", double(D)}, {"L", double(L)}, {"gamma", softplus(-3.0 + 0.5 * h) + 1e-4}};
        if (hasEta) p["eta"] = 0.1 * std::tanh(0.75 - 0.5 * h);
        if (id == "damped-rope") p.erase("L");  // damped RoPE has no context scale
        auto enc = makeEncoding(id, p);
        at::Tensor qh = q.narrow(1, h, 1), kh = k.narrow(1, h, 1);
        at::Tensor ref = testing::referenceLogits(*enc, qh, kh, pos, pos);
        const double scale =
            at::where(at::isfinite(ref), ref.abs(), at::zeros_like(ref)).max().item<double>();
        EXPECT_LT(maxAbsDiff(logits.narrow(1, h, 1), ref), 1e-5 * (1 + scale))
            << id << " head " << h << (factorized ? " factorized" : " direct");
      }
    }
  }
}

// PI, NTK and YaRN train as plain RoPE: inside the training length their logits are RoPE's.
TEST(FamilyInit, RopeExtensionsArePlainRopeInsideTheTrainingLength) {
  constexpr long long H = 2, D = 16, T = 30;
  FamilyInitBuilt rope = buildInFamilyInit("rope", H, D, T);
  at::Tensor q = randomQK(1, H, T, D, at::kDouble, 31);
  at::Tensor k = randomQK(1, H, T, D, at::kDouble, 32);
  at::Tensor pos = positions(0, T);
  at::Tensor want = modelLogits(*rope.module, q, k, pos, true);
  const double scale =
      at::where(at::isfinite(want), want.abs(), at::zeros_like(want)).max().item<double>();
  for (const std::string id : {"rope-pi", "rope-ntk", "rope-yarn"}) {
    FamilyInitBuilt b = buildInFamilyInit(id, H, D, /*trainLength=*/T, {{"scale", 8}});
    for (bool factorized : {true, false})
      EXPECT_LT(maxAbsDiff(modelLogits(*b.module, q, k, pos, factorized), want), 1e-9 * (1 + scale))
          << id;
    // One position past L: the extension applies, and the logits differ.
    FamilyInitBuilt past = buildInFamilyInit(id, H, D, /*trainLength=*/T - 1, {{"scale", 8}});
    EXPECT_GT(maxAbsDiff(modelLogits(*past.module, q, k, pos, true), want), 1e-6 * scale) << id;
  }
}

std::string familyInitScratch(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("poslab-init-" + std::to_string(::getpid()) + "-" + name))
      .string();
}

// A checkpoint whose gamma_raw has PosLab's old shape (one value per block, shared by the heads) is
// refused, naming the parameter and both shapes; it is not migrated.
TEST(FamilyInit, OldSharedAcrossHeadsCheckpointIsRefusedByName) {
  const TrainConfig c = testing::tinyKernelLmRun("jordan-stabilized-abs", /*heads=*/2,
                                                 /*dModel=*/16, /*trainLength=*/8, 2, 3);
  Trainer t(c);
  t.step();
  const std::string path = familyInitScratch("old.pt");
  t.saveCheckpoint(path);
  auto dict = readCheckpointDict(path);
  auto model = dict.at("model").toGenericDict();
  std::string key;
  for (const auto& entry : model) {
    const std::string k = entry.key().toStringRef();
    if (k.size() >= 9 && k.compare(k.size() - 9, 9, "gamma_raw") == 0) key = k;
  }
  ASSERT_FALSE(key.empty());
  model.insert_or_assign(key, model.at(key).toTensor()[0].clone());  // (2, 2) -> (2)
  const std::vector<char> bytes = torch::pickle_save(c10::IValue(dict));
  std::ofstream(path, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
  std::string message;
  try {
    Trainer::fromCheckpoint(path);
  } catch (const Error& e) {
    message = e.what();
  }
  EXPECT_NE(message.find(key), std::string::npos) << message;
  EXPECT_NE(message.find("before gamma and eta became per head"), std::string::npos) << message;
  EXPECT_NE(message.find("[2]"), std::string::npos) << message;
  EXPECT_NE(message.find("[2, 2]"), std::string::npos) << message;
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace poslab
