// ALiBi (docs/MATH.md 1.3): b(i,j) = -m_h d, slopes m_h = 2^(-8h/H) for H a power of two, else the
// slopes of the largest power of two c below H, then every other slope of the 2c set.
// Press et al., "Train Short, Test Long".
#include "encodings/alibi.h"

#include <ATen/ATen.h>

#include "encodings/common_params.h"
#include "encodings/content_encoding.h"
#include "encodings/families.h"
#include "encodings/schedules.h"
#include "util/error.h"

namespace poslab {

at::Tensor alibiBias(const std::vector<double>& slopes, long long numHeads, const at::Tensor& qPos,
                     const at::Tensor& kPos, at::ScalarType dtype, const std::string& family) {
  if (static_cast<long long>(slopes.size()) != numHeads) {
    throw InvalidArgument("q has " + std::to_string(numHeads) + " heads but " + family +
                              " was built with heads = " + std::to_string(slopes.size()),
                          "set heads to the model's head count");
  }
  at::Tensor m =
      at::tensor(slopes, at::TensorOptions().dtype(at::kDouble)).to(qPos.device()).view({-1, 1, 1});
  at::Tensor d = (qPos.unsqueeze(1) - kPos.unsqueeze(0)).to(at::kDouble);  // (Tq, Tk)
  at::Tensor b = -m * d.clamp_min(0).unsqueeze(0);
  return b.to(dtype);
}

void appendAlibiBasis(LagBasis& basis, const std::vector<double>& slopes, long long head) {
  const auto& lags = basis.lags;
  basis.kernel.assign(lags.size(), 0.0);
  for (size_t h = 0; h < slopes.size(); ++h) {
    std::vector<double> col(lags.size());
    for (size_t n = 0; n < lags.size(); ++n) col[n] = -slopes[h] * lags[n];
    if (static_cast<long long>(h) == head) basis.kernel = col;
    basis.add("bias_h" + std::to_string(h + 1), std::move(col));
  }
}

LagBasis rotaryPlusAlibiBasis(const LagBasis& rotary, const std::vector<double>& slopes,
                              long long head) {
  LagBasis b;
  b.lags = rotary.lags;
  appendAlibiBasis(b, slopes, head);
  for (size_t n = 0; n < b.lags.size(); ++n) b.kernel[n] += rotary.kernel[n];
  for (size_t c = 0; c < rotary.names.size(); ++c) b.add(rotary.names[c], rotary.columns[c]);
  return b;
}

namespace {
class Alibi : public ContentEncoding {
 public:
  Alibi(const FamilyInfo& info, ParamSet p) : ContentEncoding(info, std::move(p)) {
    slopes_ = alibiSlopes(params().getInt("heads"));
    requireShownHeadExists(params(), id());
  }
  long long heads() const override { return static_cast<long long>(slopes_.size()); }
  LagBasis basis(const std::vector<double>& lags) const override {
    LagBasis b;
    b.lags = lags;
    appendAlibiBasis(b, slopes_, params().getInt("head") - 1);
    return b;
  }
  at::Tensor bias(long long numHeads, const at::Tensor& qPos, const at::Tensor& kPos,
                  at::ScalarType dtype) const override {
    return alibiBias(slopes_, numHeads, qPos, kPos, dtype, id());
  }
  double referenceLogit(const double* q, const double* k, long long i, long long j,
                        long long head) const override {
    const double d = static_cast<double>(i - j);
    return referenceContent(q, k) - slopes_[head] * d;
  }

 private:
  std::vector<double> slopes_;
};
}  // namespace

const FamilyInfo& AlibiInfo() {
  static const FamilyInfo info{
      "alibi",
      "ALiBi",
      "b_h(i,j) = −m_h d,  m_h = 2^{−8h/H}",
      "Attention with linear biases: no rotation, a per-head penalty linear in the distance. "
      "Each head looks back over its own horizon 1/m_h; extrapolates well, but carries no phase.",
      {common::heads(), common::head(), common::headDim()}};
  return info;
}

std::unique_ptr<Encoding> makeAlibi(ParamSet p) {
  return std::make_unique<Alibi>(AlibiInfo(), std::move(p));
}

}  // namespace poslab
