// RoPE + ALiBi (docs/MATH.md 1.4): RoPE's rotation and ALiBi's linear bias together,
//     l(i,j) = Σ_c Re(conj(q_c) k_c e^(i theta_c d)) / sqrt(D) - m_h d.
// The strongest natural-language baseline of the Jordan-RoPE paper.
#include "encodings/alibi.h"
#include "encodings/common_params.h"
#include "encodings/families.h"
#include "encodings/rope_like.h"
#include "encodings/schedules.h"
#include "util/error.h"

namespace poslab {

namespace {
class RopeAlibi : public RopeLikeEncoding {
 public:
  RopeAlibi(const FamilyInfo& info, ParamSet p, std::vector<double> theta)
      : RopeLikeEncoding(info, std::move(p), theta, std::vector<double>(theta.size(), 0.0)),
        slopes_(alibiSlopes(params().getInt("heads"))) {
    requireShownHeadExists(params(), id());
  }
  long long heads() const override { return static_cast<long long>(slopes_.size()); }
  // Kernel: unit-content rotary kernel plus the shown head's bias.
  LagBasis basis(const std::vector<double>& lags) const override {
    return rotaryPlusAlibiBasis(RopeLikeEncoding::basis(lags), slopes_,
                                params().getInt("head") - 1);
  }
  LagBasis probeBasis(const std::vector<double>& lags, double omega) const override {
    LagBasis b = RopeLikeEncoding::probeBasis(lags, omega);
    LagBasis alibi;
    alibi.lags = lags;
    appendAlibiBasis(alibi, slopes_, 0);
    for (size_t c = 0; c < alibi.names.size(); ++c) b.add(alibi.names[c], alibi.columns[c]);
    return b;
  }
  at::Tensor bias(long long numHeads, const at::Tensor& qPos, const at::Tensor& kPos,
                  at::ScalarType dtype) const override {
    return alibiBias(slopes_, numHeads, qPos, kPos, dtype, id());
  }
  double referenceLogit(const double* q, const double* k, long long i, long long j,
                        long long head) const override {
    return referenceScaledScore(q, k, i, j) - slopes_[head] * static_cast<double>(i - j);
  }

 private:
  std::vector<double> slopes_;
};
}  // namespace

const FamilyInfo& RopeAlibiInfo() {
  static const FamilyInfo info{
      "rope-alibi",
      "RoPE + ALiBi",
      "l(i,j) = Σ_c Re( q̄_c k_c e^{iθ_c d} )/√D − m_h d",
      "RoPE's phase and ALiBi's linear recency penalty at once: the strongest natural-language "
      "baseline in the Jordan-RoPE paper.",
      {common::base(), common::heads(), common::head(), common::headDim()}};
  return info;
}

std::unique_ptr<Encoding> makeRopeAlibi(ParamSet p) {
  auto theta = ropeFrequencies(p.getInt("head_dim"), p.get("base"));
  return std::make_unique<RopeAlibi>(RopeAlibiInfo(), std::move(p), theta);
}

}  // namespace poslab
