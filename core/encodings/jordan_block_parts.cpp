// The pieces of the Jordan-block engine shared by its direct forms (jordan_block_parts.h).
#include "encodings/jordan_block_parts.h"

#include <ATen/ATen.h>

#include <string>

#include "util/error.h"

namespace poslab::jordan_parts {

at::Tensor perHead(const at::Tensor& t) {
  return t.dim() == 1 ? t.unsqueeze(0) : t;
}

void requireHeads(const JordanGroup& g, int64_t heads) {
  for (const at::Tensor* t : {&g.gamma, &g.shear}) {
    if (t->dim() == 2 && t->size(0) != heads && t->size(0) != 1) {
      throw InvalidArgument("a Jordan group holds " + std::to_string(t->size(0)) +
                            " heads of decay or shear but the attention has " +
                            std::to_string(heads));
    }
  }
}

void complexMul(at::Tensor& re, at::Tensor& im, const at::Tensor& c, const at::Tensor& s) {
  at::Tensor r = re * c - im * s;
  im = re * s + im * c;
  re = r;
}

std::pair<at::Tensor, at::Tensor> splitGroup(const JordanGroup& g, const at::Tensor& x) {
  auto sizes = x.sizes();
  at::Tensor v = x.narrow(-1, g.offset, g.dims())
                     .reshape({sizes[0], sizes[1], sizes[2], g.blocks, g.order, 2});
  return {v.select(-1, 0), v.select(-1, 1)};
}

double factorial(long long r) {
  double f = 1;
  for (long long n = 2; n <= r; ++n) f *= static_cast<double>(n);
  return f;
}

std::pair<at::Tensor, at::Tensor> rotateUnit(const JordanGroup& g, const at::Tensor& x,
                                             const at::Tensor& pos) {
  at::Tensor p = pos.to(at::kDouble).unsqueeze(1);
  at::Tensor phase = -p * g.omega.to(p.device()).unsqueeze(0);  // (T, nb)
  auto asFactor = [&](const at::Tensor& t) {
    return t.to(x.device()).to(x.scalar_type()).unsqueeze(0).unsqueeze(0).unsqueeze(-1);
  };
  auto [re, im] = splitGroup(g, x);
  complexMul(re, im, asFactor(phase.cos()), asFactor(phase.sin()));
  return {re, im};
}

}  // namespace poslab::jordan_parts
