#include "encodings/content_encoding.h"

#include <ATen/ATen.h>

namespace poslab {

at::Tensor ContentEncoding::directScores(const at::Tensor& q, const at::Tensor& k,
                                         const at::Tensor& qPos, const at::Tensor& kPos) const {
  at::Tensor s = at::matmul(q, k.transpose(-1, -2));
  at::Tensor future = (qPos.unsqueeze(1) < kPos.unsqueeze(0)).to(q.device());
  return s.masked_fill(future, 0.0);
}

namespace {
class ContentForm : public TrainableForm {
 public:
  explicit ContentForm(const Encoding& enc) : enc_(enc) {}
  TrainedScore score(const RawTensors&, const at::Tensor& q, const at::Tensor& k, const at::Tensor&,
                     bool) const override {
    TrainedScore out;
    out.fq = q;
    out.fk = k;
    out.bias = enc_.biasFn(q.size(1));
    return out;
  }

 private:
  const Encoding& enc_;
};
}  // namespace

std::unique_ptr<TrainableForm> ContentEncoding::trainable(const TrainableContext&) const {
  return std::make_unique<ContentForm>(*this);
}

double ContentEncoding::referenceContent(const double* q, const double* k) const {
  double s = 0;
  for (long long c = 0; c < headDim(); ++c) s += q[c] * k[c];
  return scoreScale() * s;
}

}  // namespace poslab
