// NTK-RoPE + affine (MATH 1.2.6): NTK-aware RoPE (trained as plain RoPE, scaled past L) with the
// PJ paper's affine recency sector, one learned slope per head,
//     l(i,j) = Σ_c Re(conj(q_c) k_c e^(i theta_c d)) / sqrt(D) - a_h max(d, 0) / L,
// a_h = softplus(slope_raw_h), starting at `slope` (2.0: the reference byte-LM's init). The PJ
// paper's best long-context method (experiments/byte_lm_smoke.py's rope_ntk_affine: PJ-bias with
// only the affine sector, so its gate is 1).
#include <ATen/ATen.h>

#include "encodings/alibi.h"
#include "encodings/common_params.h"
#include "encodings/families.h"
#include "encodings/rope_like.h"
#include "encodings/schedules.h"
#include "encodings/trainable.h"
#include "util/error.h"

namespace poslab {

namespace {
class RopeNtkAffine : public RopeExtensionEncoding {
 public:
  RopeNtkAffine(const FamilyInfo& info, ParamSet p, std::vector<double> theta, Extension ext)
      : RopeExtensionEncoding(info, std::move(p), theta, std::vector<double>(theta.size(), 0.0),
                              1.0, std::move(ext)) {
    requireShownHeadExists(params(), id());
    // The explorer's bias is ALiBi's with slopes a / L: -a (i - j) / L for j <= i.
    slopesPerPosition_.assign(params().getInt("heads"), params().get("slope") / params().get("L"));
  }
  long long heads() const override { return static_cast<long long>(slopesPerPosition_.size()); }
  LagBasis basis(const std::vector<double>& lags) const override {
    return rotaryPlusAlibiBasis(RopeLikeEncoding::basis(lags), slopesPerPosition_,
                                params().getInt("head") - 1);
  }
  at::Tensor bias(long long numHeads, const at::Tensor& qPos, const at::Tensor& kPos,
                  at::ScalarType dtype) const override {
    return alibiBias(slopesPerPosition_, numHeads, qPos, kPos, dtype, id());
  }
  double referenceLogit(const double* q, const double* k, long long i, long long j,
                        long long head) const override {
    return referenceScaledScore(q, k, i, j) - slopesPerPosition_[head] * static_cast<double>(i - j);
  }
  std::unique_ptr<TrainableForm> trainable(const TrainableContext& ctx) const override;

 private:
  std::vector<double> slopesPerPosition_;  // a_h / L per head, the explorer's values
};

// The rotary form of NTK-RoPE plus the learned affine slope (H).
class NtkAffineForm : public TrainableForm {
 public:
  NtkAffineForm(std::unique_ptr<TrainableForm> rotary, const TrainableContext& ctx, double slope,
                double L)
      : rotary_(std::move(rotary)),
        heads_(ctx.heads),
        slope_(slope),
        L_(L),
        learned_(!ctx.pinned.count("slope")) {}

  std::vector<Learnable> learnables() const override {
    std::vector<Learnable> out = rotary_->learnables();
    const at::Tensor raw = at::full({heads_}, inverseSoftplus(slope_),
                                    at::TensorOptions().dtype(at::kFloat));  // (H)
    out.push_back({"slope_raw", raw, learned_, "slope"});
    return out;
  }

  TrainedScore score(const RawTensors& raw, const at::Tensor& q, const at::Tensor& k,
                     const at::Tensor& pos, bool allowFactorized) const override {
    TrainedScore out = rotary_->score(raw, q, k, pos, allowFactorized);
    const at::Tensor slopeRaw = raw.at("slope_raw");
    const double L = L_;
    out.bias = [slopeRaw, L](const at::Tensor& qp, const at::Tensor& kp, at::ScalarType dtype) {
      at::Tensor d = (qp.unsqueeze(1) - kp.unsqueeze(0)).clamp_min(0).to(dtype) / L;    // (Tq, Tk)
      at::Tensor a = at::softplus(slopeRaw).to(d.device()).to(dtype).view({-1, 1, 1});  // (H,1,1)
      return -a * d.unsqueeze(0);  // (H, Tq, Tk)
    };
    return out;
  }

  std::map<std::string, std::vector<double>> snapshot(const RawTensors& raw) const override {
    auto out = rotary_->snapshot(raw);
    out["slope"] = tensorValues(at::softplus(raw.at("slope_raw").to(at::kDouble)));
    return out;
  }

 private:
  std::unique_ptr<TrainableForm> rotary_;
  long long heads_;
  double slope_, L_;
  bool learned_;
};

std::unique_ptr<TrainableForm> RopeNtkAffine::trainable(const TrainableContext& ctx) const {
  return std::make_unique<NtkAffineForm>(RopeExtensionEncoding::trainable(ctx), ctx,
                                         params().get("slope"), params().get("L"));
}
}  // namespace

const FamilyInfo& RopeNtkAffineInfo() {
  static const FamilyInfo info{
      "rope-ntk-affine",
      "NTK-RoPE + affine",
      "l(i,j) = Σ_c Re( q̄_c k_c e^{iθ'_c d} )/√D − a_h d/L,  base' = base · s^{D/(D−2)}",
      "NTK-aware RoPE (plain RoPE inside the training length) plus the PJ paper's affine "
      "recency sector: a learned linear penalty a_h d/L per head. The PJ paper's best "
      "long-context method.",
      {common::base(),
       common::headDim(),
       common::scale(),
       common::extensionTrainLength(),
       common::heads(),
       common::head(),
       {"slope", 2, 0.001, 100, false, "a_h: affine slope on d/L (the model's start; learned)"}}};
  return info;
}

std::unique_ptr<Encoding> makeRopeNtkAffine(ParamSet p) {
  const long long D = p.getInt("head_dim");
  if (D <= 2)
    throw InvalidArgument("head_dim must exceed 2 for rope-ntk-affine (base' uses D/(D-2))");
  const double base = p.get("base"), L = p.get("L");
  auto theta = ropeFrequencies(D, ntkBase(D, base, p.get("scale")));
  auto extension = [D, base, L](long long T) {
    return std::make_pair(ropeFrequencies(D, ntkBase(D, base, static_cast<double>(T) / L)), 1.0);
  };
  return std::make_unique<RopeNtkAffine>(RopeNtkAffineInfo(), std::move(p), theta, extension);
}

}  // namespace poslab
