// Families written in PyTorch (docs/ENCODINGS.md) against the built-in families they restate,
// and hostile files refused with one line. The modules are written at test time by
// write_modules.py (CTest fixture torchscript.write_modules) into POSLAB_TS_DIR.
//
// Tolerance 1e-10 relative to the largest value: both sides compute in float64 from the same
// formula by different code (the built-ins' complex blocks and tables, the modules' torch ops); a
// wrong frequency, sign or decay moves values by 1e-3 or more.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <cstdlib>

#include "encodings/registry.h"
#include "encodings/torchscript_family.h"
#include "model/position_module.h"
#include "model/transformer.h"
#include "util/error.h"

namespace poslab {
namespace {

constexpr double kTolerance = 1e-10;

std::string moduleId(const std::string& name) {
  const char* dir = std::getenv("POSLAB_TS_DIR");
  if (!dir) throw std::runtime_error("POSLAB_TS_DIR is not set (the CTest fixture sets it)");
  return std::string(kFileFamilyPrefix) + dir + "/" + name + ".pt";
}

double relativeGap(const at::Tensor& a, const at::Tensor& b) {
  const double scale = std::max(1.0, b.abs().max().item<double>());
  return (a - b).abs().max().item<double>() / scale;
}

double relativeGap(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  auto f64 = at::TensorOptions().dtype(at::kDouble);
  return relativeGap(at::tensor(a, f64), at::tensor(b, f64));
}

// One loaded family beside the built-in it restates, at the same parameter values.
struct Pair {
  std::string file;                          // the module written by write_modules.py
  std::string builtin;                       // the built-in family id
  std::map<std::string, double> fileParams;  // the loaded family's values
  std::map<std::string, double> builtinParams;
};

std::vector<Pair> pairs() {
  return {
      {"rope", "rope", {{"base", 500.0}, {"head_dim", 16}}, {{"base", 500.0}, {"head_dim", 16}}},
      {"alibi", "alibi", {{"heads", 4}, {"head", 2}}, {{"heads", 4}, {"head", 2}}},
      {"damped",
       "damped-rope",
       {{"gamma", 0.05}, {"base", 300.0}, {"head_dim", 16}},
       {{"gamma", 0.05}, {"base", 300.0}, {"head_dim", 16}}},
  };
}

struct QK {
  at::Tensor q, k, pos;
};
QK randomInputs(long long heads, long long D, long long T, uint64_t seed) {
  torch::manual_seed(seed);
  auto f64 = at::TensorOptions().dtype(at::kDouble);
  return {at::randn({2, heads, T, D}, f64), at::randn({2, heads, T, D}, f64),
          at::arange(5, static_cast<int64_t>(5 + T), at::kLong)};
}

TEST(TorchScriptFamily, LogitsEqualTheBuiltInsInBothForms) {
  for (const Pair& p : pairs()) {
    SCOPED_TRACE(p.file);
    auto mine = makeEncoding(moduleId(p.file), p.fileParams);
    auto theirs = makeEncoding(p.builtin, p.builtinParams);
    const QK in = randomInputs(4, mine->headDim(), 20, 3);
    const at::Tensor want = attentionLogits(*theirs, in.q, in.k, in.pos, in.pos, Form::Direct);
    const at::Tensor causal = in.pos.unsqueeze(1) >= in.pos.unsqueeze(0);
    for (Form form : {Form::Factorized, Form::Direct}) {
      at::Tensor got = attentionLogits(*mine, in.q, in.k, in.pos, in.pos, form);
      EXPECT_LT(relativeGap(got.masked_select(causal), want.masked_select(causal)), kTolerance);
    }
    // The seam's float64 reference of a loaded family is its module at one pair.
    std::vector<double> q(in.q[0][1][7].data_ptr<double>(),
                          in.q[0][1][7].data_ptr<double>() + mine->headDim());
    std::vector<double> k(in.k[0][1][3].data_ptr<double>(),
                          in.k[0][1][3].data_ptr<double>() + mine->headDim());
    EXPECT_NEAR(mine->referenceLogit(q.data(), k.data(), 12, 8, 1),
                theirs->referenceLogit(q.data(), k.data(), 12, 8, 1), 1e-10);
  }
}

TEST(TorchScriptFamily, KernelsEqualTheBuiltIns) {
  const std::vector<double> lags = lagRange(0, 200);
  auto rope = makeEncoding(moduleId("rope"));  // the module's kernel is at D = 16, base 10000
  EXPECT_LT(relativeGap(rope->basis(lags).kernel, makeEncoding("rope")->basis(lags).kernel),
            kTolerance);
  auto alibi = makeEncoding(moduleId("alibi"), {{"heads", 4}, {"head", 3}});
  EXPECT_LT(relativeGap(alibi->basis(lags).kernel,
                        makeEncoding("alibi", {{"heads", 4}, {"head", 3}})->basis(lags).kernel),
            kTolerance);
  // Damped RoPE's kernel at D = 16 written here from MATH 1.5: the mean over the D/4 blocks of
  // e^(-gamma d) cos(omega_b d), omega_b = base^(-2b/D).
  auto damped = makeEncoding(moduleId("damped"), {{"gamma", 0.02}, {"base", 10000}});
  std::vector<double> want;
  for (double d : lags) {
    double sum = 0;
    for (int b = 0; b < 4; ++b) sum += std::exp(-0.02 * d) * std::cos(std::pow(1e4, -b / 8.0) * d);
    want.push_back(sum / 4);
  }
  EXPECT_LT(relativeGap(damped->basis(lags).kernel, want), kTolerance);
}

TEST(TorchScriptFamily, FeatureNormsEqualTheBuiltIns) {
  for (const Pair& p : pairs()) {
    SCOPED_TRACE(p.file);
    auto mine = makeEncoding(moduleId(p.file), p.fileParams);
    auto theirs = makeEncoding(p.builtin, p.builtinParams);
    std::vector<double> x(static_cast<size_t>(mine->headDim()));
    for (size_t n = 0; n < x.size(); ++n) x[n] = std::sin(1.0 + n);
    for (long long pos : {0LL, 7LL, 100LL})
      for (bool query : {true, false})
        EXPECT_NEAR(mine->featureLogNormGain(x, pos, query),
                    theirs->featureLogNormGain(x, pos, query), 1e-9)
            << "position " << pos << (query ? " query" : " key");
  }
}

// One training step's gradients: the whole model (float64, same seed, same tokens) with the
// loaded family and with the built-in, on the fused kernel (tile 8 < T) and the reference path.
TEST(TorchScriptFamily, TrainingStepGradientsEqualTheBuiltIns) {
  for (const Pair& p : pairs()) {
    for (bool fused : {true, false}) {
      SCOPED_TRACE(p.file + (fused ? " fused" : " reference"));
      auto gradients = [&](const std::string& family, const std::map<std::string, double>& fp) {
        ModelConfig cfg;
        cfg.family = family;
        cfg.familyParams = fp;
        cfg.familyParams.erase("head_dim");
        cfg.familyParams.erase("heads");
        cfg.familyParams.erase("head");
        cfg.vocab = 11;
        cfg.dModel = 64;
        cfg.heads = 4;
        cfg.layers = 2;
        torch::manual_seed(7);
        TinyTransformer model(cfg, /*trainLength=*/24);
        model->to(torch::kDouble);
        model->useFusedAttention(fused, /*tile=*/8);
        torch::manual_seed(8);
        const torch::Tensor tokens = torch::randint(0, 11, {2, 24}, torch::kLong);
        const torch::Tensor logits = model->forward(tokens);
        torch::nn::functional::cross_entropy(logits.reshape({-1, 11}), tokens.reshape({-1}))
            .backward();
        std::map<std::string, at::Tensor> grads;
        const auto positional = model->positionParameterSet();
        for (const auto& np : model->named_parameters())
          if (!positional.count(np.value().unsafeGetTensorImpl()))
            grads[np.key()] = np.value().grad().clone();
        return grads;
      };
      auto mine = gradients(moduleId(p.file), p.fileParams);
      auto theirs = gradients(p.builtin, p.builtinParams);
      ASSERT_EQ(mine.size(), theirs.size());
      for (const auto& [name, g] : theirs) {
        ASSERT_TRUE(mine.count(name)) << name;
        EXPECT_LT(relativeGap(mine[name], g), 1e-9) << name;
      }
    }
  }
}

// The decay's own gradient: d loss / d gamma_h of the loaded family equals the built-in's
// gradient of its raw parameters through gamma = softplus(raw) + 1e-4 (MATH 2.3), summed over
// the blocks that share the head's gamma here. Tolerance 1e-6: the built-in's map from raw to
// gamma runs in float32 (test_trained_logits.cpp), about 1e-7 relative; a wrong decay sign or
// factor is off by O(1).
TEST(TorchScriptFamily, LearnedDecayGradientEqualsTheBuiltIn) {
  const double raw = -3.0;
  const double gamma = std::log1p(std::exp(raw)) + 1e-4;
  ModelConfig cfg;
  cfg.heads = 4;
  cfg.dModel = 64;
  const QK in = randomInputs(4, 16, 24, 5);
  const at::Tensor w = at::randn({2, 4, 24, 24}, in.q.options());
  const at::Tensor causal = in.pos.unsqueeze(1) >= in.pos.unsqueeze(0);
  auto lossOf = [&](PositionModuleImpl& m) {
    const at::Tensor logits = m.scorer(in.q, in.k, in.pos, /*allowFactorized=*/true)(0, 24, 0, 24);
    return (logits.masked_fill(~causal, 0) * w).sum();
  };
  cfg.family = "damped-rope";
  PositionModuleImpl builtin(cfg, 24);
  {
    torch::NoGradGuard g;
    builtin.named_parameters()["gamma_raw"].fill_(raw);
  }
  lossOf(builtin).backward();
  const at::Tensor rawGrad = builtin.named_parameters()["gamma_raw"].grad();  // (H, blocks)
  const at::Tensor want = (rawGrad / at::sigmoid(at::full_like(rawGrad, raw))).sum(1);

  cfg.family = moduleId("damped");
  cfg.familyParams = {{"gamma", gamma}};
  PositionModuleImpl mine(cfg, 24);
  lossOf(mine).backward();
  const at::Tensor got = mine.named_parameters()["gamma"].grad().flatten();
  EXPECT_LT(relativeGap(got, want), 1e-6);
}

TEST(TorchScriptFamily, LoadedFamiliesAreListedWithTheirMetadata) {
  const FamilyInfo& info = familyInfo(moduleId("damped"));
  EXPECT_EQ(info.title, "Damped RoPE (TorchScript)");
  bool hasGamma = false;
  for (const auto& p : info.params) hasGamma = hasGamma || p.name == "gamma";
  EXPECT_TRUE(hasGamma);
  EXPECT_EQ(fileFamilyParamSymbol(moduleId("damped"), "gamma"), "γ");
  bool listed = false;
  for (const FamilyInfo* f : loadedFileFamilies()) listed = listed || f->id == moduleId("damped");
  EXPECT_TRUE(listed);
  EXPECT_EQ(fileFamilyHash(moduleId("damped")).size(), 16u);
}

// A family without kernel() says so in one line where the kernel view asks, and its other views
// work: a bias-only family's score is q . k, which is its own factorized form.
TEST(TorchScriptFamily, AMissingFormIsNamedNotACrash) {
  auto enc = makeEncoding(moduleId("linear_bias"), {{"heads", 2}});
  try {
    enc->basis(lagRange(0, 8));
    ADD_FAILURE() << "no kernel() but a kernel view";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("kernel view is not available"), std::string::npos);
  }
  EXPECT_TRUE(enc->hasFactorized());
  const QK in = randomInputs(2, 16, 6, 1);
  const at::Tensor logits = attentionLogits(*enc, in.q, in.k, in.pos, in.pos, Form::Factorized);
  const double want = (in.q[1][1][4] * in.k[1][1][2]).sum().item<double>() / 4.0 - 0.25 * 2;
  EXPECT_NEAR(logits[1][1][4][2].item<double>(), want, 1e-12);
}

struct Hostile {
  std::string file;
  std::vector<std::string> says;  // parts of the one-line message
};

TEST(TorchScriptFamily, HostileFilesAreRefusedWithOneLine) {
  const std::vector<Hostile> cases = {
      {"not_torchscript", {"is not a TorchScript module"}},
      {"bad_no_metadata", {"metadata", "no metadata() method"}},
      {"bad_signature", {"scores: wrong signature"}},
      {"bad_shape", {"scores: returned shape", "(B, H, Tq, Tk)"}},
      {"bad_nan", {"scores", "NaN"}},
      {"bad_noncausal", {"scores", "depends on more than its own query and key"}},
      {"bad_huge", {"factorize", "F <= 4 D"}},
      {"bad_raises", {"scores: raised", "this module refuses to score"}},
      {"bad_relative", {"bias", "relative"}},
      {"bad_unused_parameter", {"unused", "gets no gradient"}},
      {"does_not_exist", {"does_not_exist.pt"}},
  };
  for (const Hostile& h : cases) {
    SCOPED_TRACE(h.file);
    try {
      familyInfo(moduleId(h.file));
      ADD_FAILURE() << "loaded";
    } catch (const InvalidArgument& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
      for (const auto& part : h.says) EXPECT_NE(what.find(part), std::string::npos) << what;
    }
  }
}

// A checkpoint keeps the module's bytes: registered again under the same id without the file.
TEST(TorchScriptFamily, RegisteredBytesServeAnIdWithoutItsFile) {
  const std::string bytes = fileFamilyBytes(moduleId("rope"));
  const std::string id = std::string(kFileFamilyPrefix) + "/nonexistent/dir/rope_copy.pt";
  registerFileFamily(id, bytes);
  EXPECT_EQ(familyInfo(id).title, "RoPE (TorchScript)");
  EXPECT_EQ(fileFamilyHash(id), contentHash(bytes));
  EXPECT_THROW(registerFileFamily(id, "not a module"), InvalidArgument);
  EXPECT_EQ(familyInfo(id).title, "RoPE (TorchScript)");  // a refused copy changes nothing
}

}  // namespace
}  // namespace poslab
