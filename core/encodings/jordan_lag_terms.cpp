// The Jordan-block direct form as lag-weighted products (jordan_blocks.h, MATH 2.6). For a group
// of blocks of order m, block b's score is
//     e^(-gamma_b d) sum_{r<m} (a_b t(d))^r / r! Re sum_l conj(q'_l) k'_(l+r),
// with q', k' the components turned by the unit phase e^(-i omega_b p). For each r the content
// sum is one product over all blocks of the group (columns: blocks x (re, im) x components), the
// decay is per column, and t(d)^r / r! is one lag weight shared by every column: a
// LagWeightedTerm.
#include <ATen/ATen.h>

#include "encodings/jordan_block_parts.h"
#include "encodings/jordan_blocks.h"

namespace poslab {

namespace {

using jordan_parts::factorial;
using jordan_parts::perHead;
using jordan_parts::requireHeads;
using jordan_parts::rotateUnit;

// (Hg, nb) -> (Hg, nb * width): each block's value over its `width` columns.
at::Tensor perColumn(const at::Tensor& perBlock, int64_t width) {
  const int64_t Hg = perBlock.size(0), nb = perBlock.size(1);
  return perBlock.unsqueeze(-1).expand({Hg, nb, width}).reshape({Hg, nb * width});
}

bool hasLagFunction(const JordanGroup& g) {
  if (g.order == 1) return true;  // no shear: only the decay, which the term carries
  return !g.jet.defined() && g.kind != ShearKind::AbsoluteSaturating;
}

}  // namespace

std::vector<LagWeightedTerm> jordanLagWeightedTerms(const JordanLayout& layout, const at::Tensor& q,
                                                    const at::Tensor& k, const at::Tensor& pos) {
  for (const auto& g : layout.groups)
    if (!hasLagFunction(g)) return {};
  const int64_t H = q.size(1), T = q.size(2);
  const auto f64 = at::TensorOptions().dtype(at::kDouble).device(q.device());
  at::Tensor lags = at::arange(T, f64);  // d = 0 .. T - 1

  // Order 0 of every group and the plain dims: one term, its pieces side by side.
  std::vector<at::Tensor> fq0, fk0, decay0;  // decay0 (Hg, F) each; undefined: no decay
  std::vector<LagWeightedTerm> shearTerms;
  at::Tensor covered = at::zeros({layout.dim}, at::TensorOptions().dtype(at::kBool));
  for (const auto& g : layout.groups) covered.narrow(0, g.offset, g.dims()).fill_(true);
  at::Tensor plainIdx = at::nonzero(covered.logical_not()).flatten().to(q.device());
  if (plainIdx.numel() > 0) {
    fq0.push_back(q.index_select(-1, plainIdx));
    fk0.push_back(k.index_select(-1, plainIdx));
    decay0.push_back(at::zeros({1, plainIdx.numel()}, f64));
  }
  for (const auto& g : layout.groups) {
    requireHeads(g, H);
    auto [qRe, qIm] = rotateUnit(g, q, pos);  // (B, H, T, nb, m)
    auto [kRe, kIm] = rotateUnit(g, k, pos);
    at::Tensor gamma = perHead(g.gamma.to(f64.device()));  // (Hg, nb) float64
    at::Tensor shear = perHead(g.shear.to(f64.device()));  // (Hg, nb)
    at::Tensor time = g.kind == ShearKind::Saturating ? lags / (1.0 + lags / g.L) : lags;
    for (long long r = 0; r < g.order; ++r) {
      const long long n = g.order - r;
      // Components l < n of q against l + r of k, re then im, block by block: (B, H, T, nb, 2n).
      at::Tensor fq = at::cat({qRe.narrow(-1, 0, n), qIm.narrow(-1, 0, n)}, -1);
      at::Tensor fk = at::cat({kRe.narrow(-1, r, n), kIm.narrow(-1, r, n)}, -1);
      if (r > 0) {
        at::Tensor ar = shear.pow(static_cast<double>(r));  // (Hg, nb): a_b^r
        fq = fq * ar.to(q.scalar_type()).unsqueeze(0).unsqueeze(2).unsqueeze(-1);
      }
      fq = fq.flatten(3);  // (B, H, T, nb * 2n)
      fk = fk.flatten(3);
      at::Tensor decay = perColumn(gamma, 2 * n);
      if (r == 0) {
        fq0.push_back(fq);
        fk0.push_back(fk);
        decay0.push_back(decay);
      } else {
        shearTerms.push_back({fq, fk, decay, time.pow(static_cast<double>(r)) / factorial(r)});
      }
    }
  }
  // The decay rows of the order-0 pieces: one per head where any piece has one per head.
  int64_t Hg = 1;
  for (const auto& d : decay0) Hg = std::max<int64_t>(Hg, d.size(0));
  for (auto& d : decay0) d = d.expand({Hg, d.size(1)});
  std::vector<LagWeightedTerm> out;
  out.push_back({at::cat(fq0, -1), at::cat(fk0, -1), at::cat(decay0, -1), at::Tensor()});
  for (auto& t : shearTerms) out.push_back(std::move(t));
  return out;
}

}  // namespace poslab
