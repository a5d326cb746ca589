// The jet-mix Jordan families and their "+ ALiBi" compositions (MATH 1.7.9, 1.7.10) against the
// Jordan-RoPE reference code's definitions, written out here from it (jordan_rope/positional.py
// JordanRoPE with jet_coefficients / jet_base_coefficient; model.py's jordan_jetmix*,
// jordan_jetmixfull*, jordan_exact_* and the "_alibi" suffix; the configs'
// high_jet_wikitext103_jetmix_* method names), not taken from the code under test:
//   keys k' = A(-j) k, queries q' = A(-i)^-T q, logit q'.k' / sqrt(D) (- m_h (i - j) with ALiBi),
//   A(t): per block of m pairs, output pair l = e^(-gamma t) sum_{c >= l} a_(c-l) R(omega t) x_c,
//   R the 2x2 rotation, a_0 = c_0 (1 without a learned base), a_p = c_p t_eff^p / p!,
//   t_eff = (t / (1 + |t| / L)) / L, omega_b = base^(-2b/D).
// The expected logits invert A numerically (Gauss-Jordan on the real 2m x 2m matrix), not by the
// recursive coefficients the code uses. Initial raw values: gamma_raw = inverse_softplus(c / L)
// (floor 0), jet_raw = atanh(g / jet_max), jet0_raw = atanh(g_0 / jet_max). Tolerances: 1e-10 of
// the logit scale in float64; 1e-6 for float32 raw values; 1e-6 relative for the gradient
// against central differences at h = 1e-6 (the loss is smooth; rounding ~ 1e-16 / h).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "encodings/registry.h"
#include "model/position_module.h"
#include "test_support.h"
#include "util/error.h"

namespace poslab {
namespace {

using testing::maxAbsDiff;
using testing::positions;
using testing::randomQK;

using Matrix = std::vector<std::vector<double>>;

Matrix zeros(size_t n) {
  return Matrix(n, std::vector<double>(n, 0.0));
}

// Gauss-Jordan with partial pivoting.
Matrix inverse(Matrix a) {
  const size_t n = a.size();
  Matrix inv = zeros(n);
  for (size_t i = 0; i < n; ++i) inv[i][i] = 1;
  for (size_t col = 0; col < n; ++col) {
    size_t pivot = col;
    for (size_t r = col + 1; r < n; ++r)
      if (std::abs(a[r][col]) > std::abs(a[pivot][col])) pivot = r;
    std::swap(a[col], a[pivot]);
    std::swap(inv[col], inv[pivot]);
    const double p = a[col][col];
    for (size_t c = 0; c < n; ++c) a[col][c] /= p, inv[col][c] /= p;
    for (size_t r = 0; r < n; ++r) {
      if (r == col) continue;
      const double f = a[r][col];
      for (size_t c = 0; c < n; ++c) a[r][c] -= f * a[col][c], inv[r][c] -= f * inv[col][c];
    }
  }
  return inv;
}

// The reference's realified A(t) of one block (2m reals): jets c_0..c_(m-1).
Matrix blockA(double t, long long m, double gamma, double omega, const std::vector<double>& c,
              double L) {
  const double tEff = (t / (1.0 + std::abs(t) / L)) / L;
  Matrix A = zeros(static_cast<size_t>(2 * m));
  const double decay = std::exp(-gamma * t), cs = std::cos(omega * t), sn = std::sin(omega * t);
  double fact = 1;
  for (long long p = 0; p < m; ++p) {
    if (p > 0) fact *= static_cast<double>(p);
    const double a = c[p] * std::pow(tEff, static_cast<double>(p)) / fact;
    for (long long row = 0; row + p < m; ++row) {
      const long long col = row + p;
      // y = a e^(-gamma t) R(omega t) x_col into pair `row`: y0 = x0 cos - x1 sin, y1 = x0 sin + x1
      // cos.
      A[2 * row][2 * col] += decay * a * cs;
      A[2 * row][2 * col + 1] -= decay * a * sn;
      A[2 * row + 1][2 * col] += decay * a * sn;
      A[2 * row + 1][2 * col + 1] += decay * a * cs;
    }
  }
  return A;
}

std::vector<double> apply(const Matrix& A, const double* x) {
  std::vector<double> y(A.size(), 0.0);
  for (size_t r = 0; r < A.size(); ++r)
    for (size_t c = 0; c < A.size(); ++c) y[r] += A[r][c] * x[c];
  return y;
}

struct JetSetting {
  std::string family;
  long long order;
  std::map<std::string, double> params;  // given to the family
  double c, L;                           // gamma = c / L
  std::vector<double> jets;              // c_0 .. c_(m-1), as the reference builds them
  long long heads = 2;
  bool alibi = false;
};

std::vector<JetSetting> settings() {
  return {
      {"jordan-m3-jetmix",
       3,
       {{"c", 0.8}, {"jet1", 0.6}, {"jet2", -0.4}, {"L", 20}},
       0.8,
       20,
       {1.0, 0.6, -0.4}},
      {"jordan-m4-jetmix",
       4,
       {{"c", 0.5}, {"jet1", 0.5}, {"jet2", -0.3}, {"jet3", 0.7}, {"L", 20}},
       0.5,
       20,
       {1.0, 0.5, -0.3, 0.7}},
      {"jordan-m4-jetmix-full",
       4,
       {{"c", 0.5}, {"jet0", 0.7}, {"jet1", 1.2}, {"jet2", 0.6}, {"jet3", -0.9}, {"L", 20}},
       0.5,
       20,
       {0.7, 1.2, 0.6, -0.9}},
      {"jordan-m3-jetmix-alibi",
       3,
       {{"c", 0.8}, {"jet1", 0.6}, {"jet2", -0.4}, {"L", 20}, {"heads", 4}},
       0.8,
       20,
       {1.0, 0.6, -0.4},
       4,
       true},
      {"jordan-m4-jetmix-full-alibi",
       4,
       {{"c", 0.5},
        {"jet0", 0.7},
        {"jet1", 1.2},
        {"jet2", 0.6},
        {"jet3", -0.9},
        {"L", 20},
        {"heads", 4}},
       0.5,
       20,
       {0.7, 1.2, 0.6, -0.9},
       4,
       true},
  };
}

// ALiBi's slopes for 4 heads, the reference's default_alibi_slopes: 2^-2, 2^-4, 2^-6, 2^-8.
constexpr double kSlopes4[4] = {0.25, 0.0625, 0.015625, 0.00390625};

// q^T A(-i)^-1 A(-j) k / sqrt(D) over the blocks, (- m_h d): (B, H, T, T), -inf above the diagonal.
at::Tensor expectedLogits(const JetSetting& s, const at::Tensor& q, const at::Tensor& k,
                          const at::Tensor& pos) {
  const long long B = q.size(0), H = q.size(1), T = q.size(2), D = q.size(3);
  const long long m = s.order, nb = D / (2 * m);
  const double gamma = s.c / s.L;
  at::Tensor out = at::empty({B, H, T, T}, at::TensorOptions().dtype(at::kDouble));
  auto o = out.accessor<double, 4>();
  at::Tensor qc = q.contiguous(), kc = k.contiguous();
  const double* qd = qc.data_ptr<double>();
  const double* kd = kc.data_ptr<double>();
  auto p = pos.accessor<int64_t, 1>();
  for (long long b = 0; b < B; ++b)
    for (long long h = 0; h < H; ++h)
      for (long long i = 0; i < T; ++i)
        for (long long j = 0; j < T; ++j) {
          if (p[j] > p[i]) {
            o[b][h][i][j] = -INFINITY;
            continue;
          }
          double sum = 0;
          for (long long blk = 0; blk < nb; ++blk) {
            const double omega = std::pow(10000.0, -2.0 * blk / D);
            const double* qv = qd + ((b * H + h) * T + i) * D + blk * 2 * m;
            const double* kv = kd + ((b * H + h) * T + j) * D + blk * 2 * m;
            const Matrix Ai = blockA(-static_cast<double>(p[i]), m, gamma, omega, s.jets, s.L);
            const Matrix Aj = blockA(-static_cast<double>(p[j]), m, gamma, omega, s.jets, s.L);
            const Matrix AiInv = inverse(Ai);
            // q' = A(-i)^-T q: q'_r = sum_c AiInv[c][r] q_c.
            std::vector<double> qp(2 * m, 0.0);
            for (long long r = 0; r < 2 * m; ++r)
              for (long long c2 = 0; c2 < 2 * m; ++c2) qp[r] += AiInv[c2][r] * qv[c2];
            const std::vector<double> kp = apply(Aj, kv);
            for (long long r = 0; r < 2 * m; ++r) sum += qp[r] * kp[r];
          }
          double logit = sum / std::sqrt(static_cast<double>(D));
          if (s.alibi) logit -= kSlopes4[h] * static_cast<double>(p[i] - p[j]);
          o[b][h][i][j] = logit;
        }
  return out;
}

// The family's float64 reference and both fast forms equal q^T A(-i)^-1 A(-j) k at offset
// positions, where the bounded shear time is far from linear (p up to 2L).
TEST(JetMix, EveryFormIsTheReferenceProductOfA) {
  for (const JetSetting& s : settings()) {
    const long long D = 4 * s.order;  // two blocks
    std::map<std::string, double> params = s.params;
    params["head_dim"] = static_cast<double>(D);
    auto enc = makeEncoding(s.family, params);
    at::Tensor q = randomQK(1, s.heads, 30, D, at::kDouble, 41);
    at::Tensor k = randomQK(1, s.heads, 30, D, at::kDouble, 42);
    at::Tensor pos = positions(7, 30);
    const at::Tensor want = expectedLogits(s, q, k, pos);
    const double scale =
        at::where(at::isfinite(want), want.abs(), at::zeros_like(want)).max().item<double>();
    EXPECT_LT(maxAbsDiff(testing::referenceLogits(*enc, q, k, pos, pos), want), 1e-10 * scale)
        << s.family << " referenceLogit";
    for (Form form : {Form::Direct, Form::Factorized})
      EXPECT_LT(maxAbsDiff(attentionLogits(*enc, q, k, pos, pos, form, /*chunk=*/11), want),
                1e-10 * scale)
          << s.family << (form == Form::Direct ? " direct" : " factorized");
  }
}

// With c_0 = 1 and c_r = eta^r (the exponential's (eta t)^r / r!), the jet mix is the bounded
// absolute-shear Jordan block at shear eta / L: P(-T_i)^-1 P(-T_j) = exp((T_i - T_j) eta N).
TEST(JetMix, PowersOfOneShearGiveTheExponentialBlock) {
  const double eta = 0.7, L = 20;
  auto jet =
      makeEncoding("jordan-m3-jetmix",
                   {{"c", 0.8}, {"jet1", eta}, {"jet2", eta * eta}, {"L", L}, {"head_dim", 12}});
  auto expo =
      makeEncoding("jordan-m3", {{"gamma", 0.8 / L}, {"eta", eta / L}, {"L", L}, {"head_dim", 12}});
  at::Tensor q = randomQK(1, 2, 25, 12, at::kDouble, 43);
  at::Tensor k = randomQK(1, 2, 25, 12, at::kDouble, 44);
  at::Tensor pos = positions(3, 25);
  at::Tensor a = attentionLogits(*jet, q, k, pos, pos, Form::Factorized);
  at::Tensor b = attentionLogits(*expo, q, k, pos, pos, Form::Factorized);
  EXPECT_LT(maxAbsDiff(a, b), 1e-12);
}

struct JetmixBuilt {
  PositionModule module{nullptr};
  std::map<std::string, at::Tensor> params, buffers;
};

JetmixBuilt buildJetmix(const std::string& family, long long heads, long long headDim,
                        long long L) {
  ModelConfig cfg;
  cfg.family = family;
  cfg.heads = heads;
  cfg.dModel = heads * headDim;
  JetmixBuilt b;
  b.module = PositionModule(cfg, L);
  for (const auto& p : b.module->named_parameters(false)) b.params[p.key()] = p.value().detach();
  for (const auto& p : b.module->named_buffers(false)) b.buffers[p.key()] = p.value().detach();
  return b;
}

void expectAllInJetmix(const at::Tensor& t, double want, double tol, const std::string& what) {
  const at::Tensor d = t.to(at::kDouble).flatten();
  for (int64_t n = 0; n < d.numel(); ++n)
    EXPECT_NEAR(d[n].item<double>(), want, tol * (std::abs(want) + 1e-12))
        << what << " [" << n << "]";
}

// The reference's _inverse_softplus(max(y, 1e-8)) and _atanh_clamped.
double invSoftplus(double y) {
  y = std::max(y, 1e-8);
  return y + std::log(-std::expm1(-y));
}

// Initial raw values as the reference's JordanRoPE(jet_coefficients=..., jet_base_coefficient=...)
// for its text methods: gamma from c150 / L (gamma_min 0), jets from g-tokens / jet_max.
TEST(JetMix, InitialValuesAreTheReferences) {
  constexpr long long H = 3, L = 64;
  struct Want {
    std::string family;
    long long m, headDim;
    std::vector<double> g;  // the method name's g tokens / 100 (the first is c_0 for "full")
    bool full;
    double jetMax;
  };
  const std::vector<Want> wants = {
      {"jordan-m3-jetmix", 3, 12, {0.10, 0.05}, false, 1.0},              // _m3_c150_g010_g005
      {"jordan-m4-jetmix", 4, 16, {0.30, 0.10, 0.05}, false, 1.0},        // _m4_c150_g030_g010_g005
      {"jordan-m4-jetmix-full", 4, 16, {1.0, 0.5, 0.3, 0.2}, true, 2.0},  // full_m4_..._g020
      {"jordan-m3-jetmix-alibi", 3, 12, {0.10, 0.05}, false, 1.0},
      {"jordan-m4-jetmix-full-alibi", 4, 16, {1.0, 0.5, 0.3, 0.2}, true, 2.0},
  };
  for (const Want& w : wants) {
    JetmixBuilt b = buildJetmix(w.family, H, w.headDim, L);
    const long long nb = w.headDim / (2 * w.m);
    ASSERT_TRUE(b.params.count("gamma_raw")) << w.family;
    EXPECT_EQ(b.params.at("gamma_raw").sizes().vec(), (std::vector<int64_t>{H, nb})) << w.family;
    expectAllInJetmix(b.params.at("gamma_raw"), invSoftplus(1.5 / L), 1e-6,
                      w.family + " gamma_raw");
    EXPECT_EQ(b.params.count("eta_raw"), 0u) << w.family << ": the reference forces eta = 0";
    ASSERT_TRUE(b.params.count("jet_raw")) << w.family;
    const at::Tensor jet = b.params.at("jet_raw");
    EXPECT_EQ(jet.sizes().vec(), (std::vector<int64_t>{w.m - 1, H, nb})) << w.family;
    const size_t first = w.full ? 1 : 0;
    for (long long r = 1; r < w.m; ++r)
      expectAllInJetmix(jet[r - 1], std::atanh(w.g[first + r - 1] / w.jetMax), 1e-6,
                        w.family + " jet_raw[" + std::to_string(r - 1) + "]");
    EXPECT_EQ(b.params.count("jet0_raw"), w.full ? 1u : 0u) << w.family;
    if (w.full) {
      EXPECT_EQ(b.params.at("jet0_raw").sizes().vec(), (std::vector<int64_t>{H, nb}));
      expectAllInJetmix(b.params.at("jet0_raw"), std::atanh(w.g[0] / w.jetMax), 1e-6,
                        w.family + " jet0");
    }
    // The snapshot reports the constrained jets per head and block.
    const auto snap = b.module->snapshot();
    for (long long r = 1; r < w.m; ++r) {
      const auto& v = snap.at("jet" + std::to_string(r));
      ASSERT_EQ(v.size(), static_cast<size_t>(H * nb)) << w.family;
      for (double x : v) EXPECT_NEAR(x, w.g[first + r - 1], 1e-6) << w.family << " jet" << r;
    }
    if (w.family.find("alibi") != std::string::npos)
      EXPECT_EQ(b.module->encoding().heads(), H) << w.family << ": one ALiBi slope per head";
  }
}

// jordan-scaled-alibi starts as jordan_exact_c150_eta010_alibi: gamma from 1.5 / L (floor 0),
// eta from 0.010 with cap 0.1, one value per head and block.
TEST(JetMix, ScaledAlibiStartsAtTheReferencesC150Eta010) {
  constexpr long long H = 4, D = 8, L = 64;
  JetmixBuilt b = buildJetmix("jordan-scaled-alibi", H, D, L);
  EXPECT_EQ(b.params.at("gamma_raw").sizes().vec(), (std::vector<int64_t>{H, D / 4}));
  expectAllInJetmix(b.params.at("gamma_raw"), invSoftplus(1.5 / L), 1e-6, "gamma_raw");
  expectAllInJetmix(b.params.at("eta_raw"), std::atanh(0.010 / 0.1), 1e-6, "eta_raw");
}

// The ALiBi compositions add exactly -m_h d to the base family's logits, in both forms.
TEST(JetMix, AlibiCompositionsAddTheSlopes) {
  const std::map<std::string, double> p = {{"heads", 4}, {"L", 20}, {"c", 0.5}};
  struct Pair {
    std::string composed, base;
    long long D;
  };
  for (const Pair& pr : {Pair{"jordan-m3-jetmix-alibi", "jordan-m3-jetmix", 12},
                         Pair{"jordan-m4-jetmix-full-alibi", "jordan-m4-jetmix-full", 16},
                         Pair{"jordan-scaled-alibi", "jordan-scaled", 8}}) {
    std::map<std::string, double> withD = p, baseP = p;
    withD["head_dim"] = baseP["head_dim"] = static_cast<double>(pr.D);
    baseP.erase("heads");
    if (pr.base == "jordan-scaled") baseP["eta"] = withD["eta"] = 0.3;
    auto composed = makeEncoding(pr.composed, withD);
    auto base = makeEncoding(pr.base, baseP);
    at::Tensor q = randomQK(1, 4, 16, pr.D, at::kDouble, 45);
    at::Tensor k = randomQK(1, 4, 16, pr.D, at::kDouble, 46);
    at::Tensor pos = positions(2, 16);
    for (Form form : {Form::Direct, Form::Factorized}) {
      at::Tensor diff = attentionLogits(*composed, q, k, pos, pos, form) -
                        attentionLogits(*base, q, k, pos, pos, form);
      for (long long h = 0; h < 4; ++h)
        for (long long i = 0; i < 16; ++i)
          for (long long j = 0; j <= i; ++j)
            EXPECT_NEAR(diff[0][h][i][j].item<double>(), -kSlopes4[h] * (i - j), 1e-12)
                << pr.composed << " h" << h << " i" << i << " j" << j;
    }
  }
}

// Gradients of the learned jets (and c_0, gamma) through the factorized and the direct form
// against central differences of the float64 loss sum w * logits.
TEST(JetMix, JetGradientsMatchFiniteDifferences) {
  constexpr long long H = 2, D = 16, T = 14;
  JetmixBuilt b = buildJetmix("jordan-m4-jetmix-full", H, D, /*L=*/12);
  b.module->to(torch::kDouble);
  {
    torch::NoGradGuard guard;
    torch::manual_seed(5);
    for (auto& p : b.module->named_parameters(false))
      p.value().add_(0.3 * torch::randn_like(p.value()));
  }
  at::Tensor q = randomQK(1, H, T, D, at::kDouble, 47);
  at::Tensor k = randomQK(1, H, T, D, at::kDouble, 48);
  at::Tensor w = randomQK(1, H, T, T, at::kDouble, 49);
  at::Tensor pos = positions(4, T);
  for (bool factorized : {true, false}) {
    auto loss = [&] {
      at::Tensor l = b.module->scorer(q, k, pos, factorized)(0, T, 0, T);
      return at::where(at::isfinite(l), l * w, at::zeros_like(w)).sum();
    };
    for (const char* name : {"jet_raw", "jet0_raw", "gamma_raw"}) {
      at::Tensor param = b.module->named_parameters(false)[name];
      param.mutable_grad() = at::Tensor();
      loss().backward();
      const at::Tensor grad = param.grad().clone().flatten();
      torch::NoGradGuard guard;
      at::Tensor flat = param.view({-1});
      for (int64_t n = 0; n < flat.numel(); ++n) {
        const double h = 1e-6, x0 = flat[n].item<double>();
        flat[n] = x0 + h;
        const double up = loss().item<double>();
        flat[n] = x0 - h;
        const double down = loss().item<double>();
        flat[n] = x0;
        const double fd = (up - down) / (2 * h);
        EXPECT_NEAR(grad[n].item<double>(), fd, 1e-6 * (1 + std::abs(fd)))
            << name << "[" << n << "]" << (factorized ? " factorized" : " direct");
      }
    }
  }
}

// A jet at or past its cap cannot be learned as jet_max tanh(raw): refused with the fix.
TEST(JetMix, JetOutsideTheCapIsRefused) {
  EXPECT_THROW(makeEncoding("jordan-m3-jetmix", {{"jet1", 1.0}}), InvalidArgument);
  EXPECT_NO_THROW(makeEncoding("jordan-m3-jetmix", {{"jet1", 1.0}, {"jet_max", 2}}));
  EXPECT_THROW(makeEncoding("jordan-m4-jetmix-full", {{"jet0", 2.5}}), InvalidArgument);
}

}  // namespace
}  // namespace poslab
