// "+ ALiBi" compositions of the Jordan families (docs/MATH.md 1.7.10), as the Jordan-RoPE reference
// code composes them on text (model.py: a method name ending in "_alibi" adds ALiBiBias with the
// fixed slopes m_h to the factorized Jordan score; configs high_jet_wikitext103_jetmix_alibi_*):
//     l(i, j) = s_Jordan(i, j) / sqrt(D) - m_h d,
//   jordan-scaled-alibi          jordan_exact_c150_eta010_alibi (order 2, t = d/L, c = 1.5,
//                                eta from 0.01, cap 0.1)
//   jordan-m3-jetmix-alibi       jordan_jetmix_m3_c150_g010_g005_alibi
//   jordan-m4-jetmix-full-alibi  jordan_jetmixfull_m4_c150_g100_g050_g030_g020_alibi
// The score and its learnables are the base family's; the bias is ALiBi's (alibi.h), unlearned.
#include <utility>

#include "encodings/alibi.h"
#include "encodings/common_params.h"
#include "encodings/families.h"
#include "encodings/jordan_family.h"
#include "encodings/jordan_jetmix.h"
#include "encodings/schedules.h"

namespace poslab {

namespace {
// A rotary family plus ALiBi's bias: the base's score, basis and trainable form, the bias added
// where every family's bias meets the logit (finishLogits).
template <class Base>
class WithAlibi : public Base {
 public:
  template <class... Args>
  explicit WithAlibi(Args&&... args)
      : Base(std::forward<Args>(args)...), slopes_(alibiSlopes(this->params().getInt("heads"))) {
    requireShownHeadExists(this->params(), this->id());
  }
  long long heads() const override { return static_cast<long long>(slopes_.size()); }
  LagBasis basis(const std::vector<double>& lags) const override {
    LagBasis b = Base::basis(lags);
    LagBasis alibi;
    alibi.lags = lags;
    appendAlibiBasis(alibi, slopes_, this->params().getInt("head") - 1);
    for (size_t n = 0; n < lags.size(); ++n) b.kernel[n] += alibi.kernel[n];
    for (size_t c = 0; c < alibi.names.size(); ++c) b.add(alibi.names[c], alibi.columns[c]);
    return b;
  }
  at::Tensor bias(long long numHeads, const at::Tensor& qPos, const at::Tensor& kPos,
                  at::ScalarType dtype) const override {
    return alibiBias(slopes_, numHeads, qPos, kPos, dtype, this->id());
  }
  double referenceLogit(const double* q, const double* k, long long i, long long j,
                        long long head) const override {
    return Base::referenceLogit(q, k, i, j, head) - slopes_[head] * static_cast<double>(i - j);
  }

 private:
  std::vector<double> slopes_;
};

std::vector<ParamSpec> withHeads(std::vector<ParamSpec> params) {
  params.push_back(common::heads());
  params.push_back(common::head());
  return params;
}

// jordan_exact_c150_eta010: c = 1.5 and eta from 0.010, in the explorer and the model alike.
std::vector<ParamSpec> scaledAlibiParams() {
  std::vector<ParamSpec> params = jordanScaledParams();
  for (auto& spec : params) {
    if (spec.name == "c") spec.defaultValue = 1.5;
    if (spec.name == "eta") {
      spec.defaultValue = 0.01;
      spec.trainedInit = 0.01;
    }
  }
  return withHeads(params);
}

}  // namespace

const FamilyInfo& JordanScaledAlibiInfo() {
  static const FamilyInfo info{
      "jordan-scaled-alibi", "Jordan-RoPE (scaled-exact) + ALiBi",
      "l(i,j) = Σ_b Re( q_b^H e^{(−c/L + iω)d}(I + η (d/L) N) k_b )/√D − m_h d",
      "The scaled-exact Jordan block (decay c/L, shear time d/L) with ALiBi's linear recency "
      "penalty added, as the reference code runs it on text (jordan_exact_c150_eta010_alibi).",
      scaledAlibiParams()};
  return info;
}
const FamilyInfo& JordanM3JetmixAlibiInfo() {
  static const FamilyInfo info{
      "jordan-m3-jetmix-alibi", "Jordan-RoPE (order 3, jet mix) + ALiBi",
      "l(i,j) = Σ_b Re( q_b^H e^{λd} P(−T_i)^{−1} P(−T_j) k_b )/√D − m_h d,  T_p = τ(p)/L",
      "The order-3 jet mix (independent learned jet weights, bounded shear time) with ALiBi's "
      "linear recency penalty added, as the reference code runs it on text "
      "(jordan_jetmix_m3_c150_g010_g005_alibi). Not relative.",
      withHeads(jetMixParams(jetMixM3Defaults()))};
  return info;
}
const FamilyInfo& JordanM4JetmixFullAlibiInfo() {
  static const FamilyInfo info{
      "jordan-m4-jetmix-full-alibi", "Jordan-RoPE (order 4, jet mix, learned c_0) + ALiBi",
      "l(i,j) = Σ_b Re( q_b^H e^{λd} P(−T_i)^{−1} P(−T_j) k_b )/√D − m_h d,  T_p = τ(p)/L",
      "The order-4 jet mix with a learned c_0 (cap 2) and ALiBi's linear recency penalty "
      "added, as the reference code runs it on text "
      "(jordan_jetmixfull_m4_c150_g100_g050_g030_g020_alibi). Not relative.",
      withHeads(jetMixParams(jetMixM4FullDefaults()))};
  return info;
}

std::unique_ptr<Encoding> makeJordanScaledAlibi(ParamSet p) {
  JordanSpec spec = jordanScaledSpec(p, 2);
  return std::make_unique<WithAlibi<JordanEncoding>>(JordanScaledAlibiInfo(), std::move(p), spec);
}
std::unique_ptr<Encoding> makeJordanM3JetmixAlibi(ParamSet p) {
  return std::make_unique<WithAlibi<JordanJetEncoding>>(JordanM3JetmixAlibiInfo(), std::move(p),
                                                        3LL);
}
std::unique_ptr<Encoding> makeJordanM4JetmixFullAlibi(ParamSet p) {
  return std::make_unique<WithAlibi<JordanJetEncoding>>(JordanM4JetmixFullAlibiInfo(), std::move(p),
                                                        4LL);
}

}  // namespace poslab
