// A family written in PyTorch behind the encoding seam (docs/ENCODINGS.md). Its forms are the
// module's methods: factorize gives the factorized form, scores the direct form, bias the
// additive bias, kernel the kernel view. Without factorize and scores the score is the plain
// content product q . k (a bias-only family), which is its own factorized form.
#include "encodings/torchscript_encoding.h"

#include <ATen/ATen.h>

#include <cmath>

#include "util/error.h"

namespace poslab {

namespace {

// s with the entries j > i set to 0 (the seam's direct form). s (B, H, Tq, Tk).
at::Tensor zeroFuture(const at::Tensor& s, const at::Tensor& qPos, const at::Tensor& kPos) {
  return s.masked_fill(qPos.unsqueeze(1) < kPos.unsqueeze(0), 0.0);
}

class ScriptEncoding : public Encoding {
 public:
  ScriptEncoding(const ScriptFamily& family, ParamSet p)
      : Encoding(family.info, std::move(p)),
        meta_(family.meta),
        calls_(family.module.deepcopy(), family.where) {
    torch::jit::Module& m = calls_.module();
    m.to(at::kDouble);  // parameters and buffers in float64, as the built-in families' are
    m.eval();
    applyScriptParams(m, meta_, params().values(), heads(), headDim(), family.where);
  }

  long long heads() const override { return params().getInt("heads"); }
  bool isRelative() const override { return meta_.relative; }
  const ScriptMeta& meta() const { return meta_; }
  const ScriptCalls& calls() const { return calls_; }
  torch::jit::Module& module() const { return calls_.module(); }

  LagBasis basis(const std::vector<double>& lags) const override {
    if (!meta_.hasKernel)
      throw Error(id() + " has no kernel(lags) method: the kernel view is not available",
                  "add kernel(self, lags) -> float64 (N) or (H, N) to the module");
    at::Tensor t = at::tensor(lags, at::TensorOptions().dtype(at::kDouble));
    at::Tensor K = calls_.kernel(t);
    if (K.dim() == 2) K = K[std::min<long long>(params().getInt("head"), K.size(0)) - 1];
    LagBasis b;
    b.lags = lags;
    K = K.contiguous();
    b.kernel.assign(K.data_ptr<double>(), K.data_ptr<double>() + K.numel());
    return b;  // the kernel alone: the module declares no basis functions to show beside it
  }

  // The probe fits a learned kernel in the span of this family's K(d) (and the constant it adds):
  // K is its one basis function there, named "K" (a key outside basisLabel's grammar).
  LagBasis probeBasis(const std::vector<double>& lags, double /*omega*/) const override {
    LagBasis b = basis(lags);
    b.add("K", b.kernel);
    return b;
  }

  bool hasFactorized() const override { return meta_.hasFactorize || !meta_.hasScores; }

  FactorizedQK factorize(const at::Tensor& q, const at::Tensor& k, const at::Tensor& qPos,
                         const at::Tensor& kPos) const override {
    if (meta_.hasFactorize) return calls_.factorize(q, k, qPos, kPos);
    if (!meta_.hasScores) return {q, k};
    return Encoding::factorize(q, k, qPos, kPos);
  }

  at::Tensor directScores(const at::Tensor& q, const at::Tensor& k, const at::Tensor& qPos,
                          const at::Tensor& kPos) const override {
    if (meta_.hasScores) return zeroFuture(calls_.scores(q, k, qPos, kPos), qPos, kPos);
    const FactorizedQK f = factorize(q, k, qPos, kPos);
    return zeroFuture(at::matmul(f.q, f.k.transpose(-1, -2)), qPos, kPos);
  }

  at::Tensor bias(long long numHeads, const at::Tensor& qPos, const at::Tensor& kPos,
                  at::ScalarType dtype) const override {
    if (!meta_.hasBias) return {};
    return calls_.bias(qPos, kPos, numHeads).to(dtype);
  }

  // The module itself in float64 at one pair of positions: a loaded family has no formula of its
  // own to check it against (tests/torchscript compares the examples with the built-ins).
  double referenceLogit(const double* q, const double* k, long long i, long long j,
                        long long head) const override {
    const long long H = heads(), D = headDim();
    auto f64 = at::TensorOptions().dtype(at::kDouble);
    at::Tensor qt = at::from_blob(const_cast<double*>(q), {1, 1, 1, D}, f64).expand({1, H, 1, D});
    at::Tensor kt = at::from_blob(const_cast<double*>(k), {1, 1, 1, D}, f64).expand({1, H, 1, D});
    const at::Tensor qPos = at::full({1}, static_cast<int64_t>(i), at::kLong);
    const at::Tensor kPos = at::full({1}, static_cast<int64_t>(j), at::kLong);
    at::NoGradGuard noGrad;
    at::Tensor s = directScores(qt.contiguous(), kt.contiguous(), qPos, kPos);
    double logit = scoreScale() * s[0][head][0][0].item<double>();
    at::Tensor b = bias(H, qPos, kPos, at::kDouble);
    if (b.defined()) logit += b[head][0][0].item<double>();
    return logit;
  }

  double featureLogNormGain(const std::vector<double>& x, long long p, bool query) const override {
    if (!meta_.hasFactorize) return 0.0;
    const long long H = heads(), D = headDim();
    at::Tensor xt = at::tensor(x, at::TensorOptions().dtype(at::kDouble))
                        .view({1, 1, 1, D})
                        .expand({1, H, 1, D})
                        .contiguous();
    const at::Tensor pos = at::full({1}, static_cast<int64_t>(p), at::kLong);
    at::NoGradGuard noGrad;
    const FactorizedQK f = calls_.factorize(xt, xt, pos, pos);
    const long long head = std::min(params().getInt("head"), H) - 1;
    const at::Tensor v = (query ? f.q : f.k)[0][head][0];
    return std::log(v.pow(2).sum().item<double>()) -
           std::log(xt[0][0][0].pow(2).sum().item<double>());
  }

  std::unique_ptr<TrainableForm> trainable(const TrainableContext& ctx) const override;

 private:
  const ScriptMeta& meta_;
  ScriptCalls calls_;
};

// The module's parameters are the learnables: the model registers the very tensors the module
// holds, so an optimiser step, a device move or a checkpoint load is what the module computes
// with. One encoding (and so one module copy) per layer: PositionModule builds its own.
class ScriptTrainable : public TrainableForm {
 public:
  ScriptTrainable(const ScriptEncoding& enc, const TrainableContext& ctx)
      : enc_(enc), pinned_(ctx.pinned) {}

  std::vector<Learnable> learnables() const override {
    std::vector<Learnable> out;
    for (const auto& np : enc_.module().named_parameters(/*recurse=*/true)) {
      std::string key = np.name;  // torch::nn::Module names may not hold dots
      for (size_t at = key.find('.'); at != std::string::npos; at = key.find('.'))
        key.replace(at, 1, "__");
      const bool learned = !pinned_.count(np.name);
      at::Tensor t = np.value;
      if (!learned) t.set_requires_grad(false);
      out.push_back({key, t, learned, np.name});
    }
    return out;
  }

  TrainedScore score(const RawTensors&, const at::Tensor& q, const at::Tensor& k,
                     const at::Tensor& pos, bool allowFactorized) const override {
    TrainedScore out;
    const ScriptMeta& meta = enc_.meta();
    const ScriptCalls* calls = &enc_.calls();
    const bool factorizedOnly = !meta.hasScores;
    if (enc_.hasFactorized() && (allowFactorized || factorizedOnly)) {
      FactorizedQK f = enc_.factorize(q, k, pos, pos);
      // A form that overflows at these positions (a growing decay) falls back to scores.
      const bool finite = factorizedOnly || (at::isfinite(f.q).all().item<bool>() &&
                                             at::isfinite(f.k).all().item<bool>());
      if (finite && allowFactorized) {
        out.fq = f.q;
        out.fk = f.k;
      } else if (factorizedOnly) {
        out.direct = [f, pos](int64_t q0, int64_t qn, int64_t k0, int64_t kn) {
          return zeroFuture(
              at::matmul(f.q.narrow(2, q0, qn), f.k.narrow(2, k0, kn).transpose(-1, -2)),
              pos.narrow(0, q0, qn), pos.narrow(0, k0, kn));
        };
      }
    }
    if (!out.fq.defined() && !out.direct) {
      out.direct = [calls, q, k, pos](int64_t q0, int64_t qn, int64_t k0, int64_t kn) {
        const at::Tensor qp = pos.narrow(0, q0, qn), kp = pos.narrow(0, k0, kn);
        return zeroFuture(calls->scores(q.narrow(2, q0, qn), k.narrow(2, k0, kn), qp, kp), qp, kp);
      };
    }
    if (meta.hasBias) {
      const long long heads = q.size(1);
      out.bias = [calls, heads](const at::Tensor& qp, const at::Tensor& kp, at::ScalarType dtype) {
        return calls->bias(qp, kp, heads).to(dtype);
      };
    }
    return out;
  }

  // Every parameter's values (up to 64 each: the live plots show per-head values).
  std::map<std::string, std::vector<double>> snapshot(const RawTensors&) const override {
    constexpr int64_t kMaxShown = 64;
    std::map<std::string, std::vector<double>> out;
    for (const auto& np : enc_.module().named_parameters(/*recurse=*/true))
      if (np.value.numel() <= kMaxShown) out[np.name] = tensorValues(np.value);
    return out;
  }

 private:
  const ScriptEncoding& enc_;
  std::set<std::string> pinned_;
};

std::unique_ptr<TrainableForm> ScriptEncoding::trainable(const TrainableContext& ctx) const {
  if (ctx.heads != heads())
    throw InvalidArgument("family " + id() + " was built with heads = " + std::to_string(heads()) +
                              " but the model has " + std::to_string(ctx.heads),
                          "set heads to the model's head count");
  return std::make_unique<ScriptTrainable>(*this, ctx);
}

}  // namespace

std::unique_ptr<Encoding> makeScriptEncoding(const ScriptFamily& family, ParamSet params) {
  return std::make_unique<ScriptEncoding>(family, std::move(params));
}

}  // namespace poslab
