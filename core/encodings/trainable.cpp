#include "encodings/trainable.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "util/error.h"

namespace poslab {

void TrainableForm::setAblation(const RawTensors&, size_t index, double) const {
  throw InvalidArgument("ablation " + std::to_string(index) + " does not exist",
                        "this family has " + std::to_string(ablations().size()) + " ablations");
}

at::Tensor finishLogits(const at::Tensor& s, double scale, const BiasFn& bias,
                        const at::Tensor& qPos, const at::Tensor& kPos) {
  at::Tensor logits = scale == 1.0 ? s : s * scale;
  if (bias) {
    at::Tensor b = bias(qPos, kPos, s.scalar_type());
    if (b.defined()) logits = logits + b.unsqueeze(0);
  }
  at::Tensor future = qPos.unsqueeze(1) < kPos.unsqueeze(0);  // (Tq, Tk): j > i
  return logits.masked_fill(future, -std::numeric_limits<double>::infinity());
}

BlockScorer blockScorer(TrainedScore score, double scale, const at::Tensor& pos) {
  BiasFn bias = std::move(score.bias);
  if (score.fq.defined()) {
    at::Tensor fq = score.fq * scale;  // scale the (T, F) side, not the (T, T) scores
    at::Tensor fk = score.fk;
    return [fq, fk, bias, pos](int64_t q0, int64_t qn, int64_t k0, int64_t kn) {
      at::Tensor s = at::matmul(fq.narrow(2, q0, qn), fk.narrow(2, k0, kn).transpose(-1, -2));
      return finishLogits(s, 1.0, bias, pos.narrow(0, q0, qn), pos.narrow(0, k0, kn));
    };
  }
  auto direct = std::move(score.direct);
  return [direct, bias, pos, scale](int64_t q0, int64_t qn, int64_t k0, int64_t kn) {
    return finishLogits(direct(q0, qn, k0, kn), scale, bias, pos.narrow(0, q0, qn),
                        pos.narrow(0, k0, kn));
  };
}

std::vector<double> tensorValues(const at::Tensor& t) {
  at::Tensor c = t.detach().to(at::kCPU, at::kDouble).contiguous().flatten();
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

double inverseSoftplus(double y) {
  y = std::max(y, 1e-8);
  return y > 30 ? y : std::log(std::expm1(y));
}

}  // namespace poslab
