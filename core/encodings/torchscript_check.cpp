// The probe a TorchScript family passes before PosLab uses it (docs/ENCODINGS.md, "Checked on
// load"). Small inputs: B = 2, the given heads and head_dim, T = 12 positions starting at 3.
// Tolerances: blocks, shifts and float64 recomputations agree to 1e-9 of the largest score;
// float32 agrees with float64 to 1e-3 of it (a float32 rotation loses about 1e-6 relative; a
// method that is wrong in one dtype is off by O(1)).
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <torch/csrc/autograd/autograd.h>

#include <cmath>

#include "encodings/torchscript_module.h"
#include "util/error.h"

namespace poslab {

namespace {

constexpr int64_t kProbeBatch = 2;
constexpr int64_t kProbeLength = 12;
constexpr int64_t kProbeFirstPosition = 3;
constexpr int64_t kProbeShift = 7;
constexpr double kExactTolerance = 1e-9;
constexpr double kFloat32Tolerance = 1e-3;

// Largest |a - b| relative to max(1, max |b|).
double relativeGap(const at::Tensor& a, const at::Tensor& b) {
  const double scale = std::max(1.0, b.abs().max().item<double>());
  return (a.to(at::kDouble) - b.to(at::kDouble)).abs().max().item<double>() / scale;
}

struct Probe {
  at::Tensor q, k, pos;  // (B, H, T, D) float64, (T) int64
};

class Checker {
 public:
  Checker(torch::jit::Module& module, const ScriptMeta& meta, long long heads, long long headDim,
          const std::string& where)
      : calls_(module, where), meta_(meta), heads_(heads) {
    auto f64 = at::TensorOptions().dtype(at::kDouble);
    probe_.q = at::randn({kProbeBatch, heads, kProbeLength, headDim}, generator_, f64);
    probe_.k = at::randn({kProbeBatch, heads, kProbeLength, headDim}, generator_, f64);
    probe_.pos = at::arange(kProbeFirstPosition, kProbeFirstPosition + kProbeLength, at::kLong);
  }

  void run() {
    at::Tensor s;
    {
      at::NoGradGuard noGrad;
      if (meta_.hasFactorize) s = checkFactorize();
      if (meta_.hasScores) {
        at::Tensor direct = checkScores();
        if (s.defined() && relativeGap(causal(direct), causal(s)) > kExactTolerance)
          calls_.fail("scores", "disagrees with factorize's q'.k' by " +
                                    gapText(relativeGap(causal(direct), causal(s))));
        s = direct;
      }
      if (meta_.hasBias) checkBias();
      if (meta_.hasKernel) checkKernel();
    }
    checkGradients();
  }

 private:
  static std::string gapText(double gap) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3g of the largest value", gap);
    return buf;
  }
  // Entries with j > i set to 0 (what the seam's direct form promises).
  at::Tensor causal(const at::Tensor& s) const {
    return s.tril();  // positions are consecutive: j > i is above the diagonal
  }
  void requireFinite(const std::string& method, const at::Tensor& t) const {
    if (!at::isfinite(t).all().item<bool>())
      calls_.fail(method, "returned NaN or infinite values on the probe input");
  }
  void requireClose(const std::string& method, const at::Tensor& a, const at::Tensor& b,
                    double tolerance, const std::string& what) const {
    const double gap = relativeGap(a, b);
    if (!(gap <= tolerance)) calls_.fail(method, what + " (differs by " + gapText(gap) + ")");
  }

  at::Tensor dot(const FactorizedQK& f) const { return at::matmul(f.q, f.k.transpose(-1, -2)); }

  at::Tensor checkFactorize() {
    const auto& [q, k, pos] = probe_;
    FactorizedQK full = calls_.factorize(q, k, pos, pos);
    requireFinite("factorize", full.q);
    requireFinite("factorize", full.k);
    // Per position: a block of positions gives the same rows as the whole.
    const int64_t a = 4, n = 5;
    FactorizedQK part = calls_.factorize(q.narrow(2, a, n), k.narrow(2, a, n), pos.narrow(0, a, n),
                                         pos.narrow(0, a, n));
    requireClose("factorize", part.q, full.q.narrow(2, a, n), kExactTolerance,
                 "q' at a position depends on other positions' inputs");
    requireClose("factorize", part.k, full.k.narrow(2, a, n), kExactTolerance,
                 "k' at a position depends on other positions' inputs");
    const at::Tensor s = dot(full);
    requireClose("factorize",
                 causal(dot(calls_.factorize(q.to(at::kFloat), k.to(at::kFloat), pos, pos))),
                 causal(s), kFloat32Tolerance, "float32 and float64 disagree");
    if (meta_.relative) {
      const at::Tensor shifted = pos + kProbeShift;
      requireClose("factorize", causal(dot(calls_.factorize(q, k, shifted, shifted))), causal(s),
                   kExactTolerance,
                   "the metadata says relative, but q'.k' changes when every position moves by " +
                       std::to_string(kProbeShift));
    }
    return s;
  }

  at::Tensor checkScores() {
    const auto& [q, k, pos] = probe_;
    const at::Tensor s = calls_.scores(q, k, pos, pos);
    requireFinite("scores", causal(s));
    // Tiles: a block of queries against a block of keys gives the same scores as the whole
    // (the fused kernel calls scores per tile), and no query row sees keys past it.
    const int64_t q0 = 6, qn = 6, k0 = 2, kn = 7;
    const at::Tensor tile = calls_.scores(q.narrow(2, q0, qn), k.narrow(2, k0, kn),
                                          pos.narrow(0, q0, qn), pos.narrow(0, k0, kn));
    const at::Tensor mask = (pos.narrow(0, q0, qn).unsqueeze(1) >= pos.narrow(0, k0, kn))
                                .to(at::kDouble);  // (qn, kn): j <= i
    requireClose("scores", tile * mask, s.narrow(2, q0, qn).narrow(3, k0, kn) * mask,
                 kExactTolerance,
                 "a score depends on more than its own query and key (not causal or not "
                 "computable per tile)");
    requireClose("scores", causal(calls_.scores(q.to(at::kFloat), k.to(at::kFloat), pos, pos)),
                 causal(s), kFloat32Tolerance, "float32 and float64 disagree");
    if (meta_.relative) {
      const at::Tensor shifted = pos + kProbeShift;
      requireClose("scores", causal(calls_.scores(q, k, shifted, shifted)), causal(s),
                   kExactTolerance,
                   "the metadata says relative, but the scores change when every position moves "
                   "by " +
                       std::to_string(kProbeShift));
    }
    return s;
  }

  void checkBias() {
    const at::Tensor& pos = probe_.pos;
    const at::Tensor b = calls_.bias(pos, pos, heads_);
    requireFinite("bias", causal(b));
    const int64_t q0 = 5, qn = 7, k0 = 1, kn = 6;
    const at::Tensor mask =
        (pos.narrow(0, q0, qn).unsqueeze(1) >= pos.narrow(0, k0, kn)).to(at::kDouble);
    requireClose("bias", calls_.bias(pos.narrow(0, q0, qn), pos.narrow(0, k0, kn), heads_) * mask,
                 b.narrow(1, q0, qn).narrow(2, k0, kn) * mask, kExactTolerance,
                 "a block of positions gives other values than the whole");
    if (meta_.relative) {
      const at::Tensor shifted = pos + kProbeShift;
      requireClose("bias", causal(calls_.bias(shifted, shifted, heads_)), causal(b),
                   kExactTolerance,
                   "the metadata says relative, but the bias changes when every position moves "
                   "by " +
                       std::to_string(kProbeShift));
    }
  }

  void checkKernel() {
    const at::Tensor lags = at::arange(0, 64, at::TensorOptions().dtype(at::kDouble));
    requireFinite("kernel", calls_.kernel(lags));
  }

  // Gradients reach every learnable parameter from the causal logits.
  void checkGradients() {
    std::vector<at::Tensor> params;
    std::vector<std::string> names;
    for (const auto& np : calls_.module().named_parameters(/*recurse=*/true)) {
      if (!np.value.requires_grad()) continue;
      params.push_back(np.value);
      names.push_back(np.name);
    }
    if (params.empty()) return;
    const auto& [q, k, pos] = probe_;
    at::Tensor logits = at::zeros({kProbeBatch, heads_, kProbeLength, kProbeLength}, q.options());
    if (meta_.hasScores)
      logits = logits + calls_.scores(q, k, pos, pos);
    else if (meta_.hasFactorize)
      logits = logits + dot(calls_.factorize(q, k, pos, pos));
    if (meta_.hasBias) logits = logits + calls_.bias(pos, pos, heads_).to(at::kDouble);
    const at::Tensor weights = at::randn(logits.sizes(), generator_, logits.options());
    const at::Tensor loss = (causal(logits) * weights).sum();
    if (!loss.requires_grad())
      calls_.fail("gradients", "parameter '" + names.front() +
                                   "' gets no gradient from the scores or the bias (no "
                                   "parameter enters them)");
    std::vector<at::Tensor> grads;
    try {
      grads = torch::autograd::grad({loss}, params, {}, /*retain_graph=*/false,
                                    /*create_graph=*/false, /*allow_unused=*/true);
    } catch (const std::exception& e) {
      calls_.fail("gradients", std::string("backward raised: ") + e.what());
    }
    for (size_t n = 0; n < params.size(); ++n) {
      if (!grads[n].defined())
        calls_.fail("gradients",
                    "parameter '" + names[n] + "' gets no gradient from the scores or the bias");
      if (!at::isfinite(grads[n]).all().item<bool>())
        calls_.fail("gradients", "parameter '" + names[n] + "' gets a NaN or infinite gradient");
    }
  }

  // Its own seeded generator: loading a family never moves the global one (a run's seed).
  at::Generator generator_ = at::detail::createCPUGenerator(/*seed_val=*/0);
  ScriptCalls calls_;
  const ScriptMeta& meta_;
  long long heads_;
  Probe probe_;
};

}  // namespace

void checkScriptModule(torch::jit::Module& module, const ScriptMeta& meta, long long heads,
                       long long headDim, const std::string& where) {
  Checker(module, meta, heads, headDim, where).run();
}

}  // namespace poslab
