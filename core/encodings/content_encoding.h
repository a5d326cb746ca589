// Base of the families that leave q and k untouched (NoPE, ALiBi, PJ-bias): the score is the plain
// content product q . k and any position signal is the additive bias b(i,j).
#pragma once

#include "encodings/encoding.h"

namespace poslab {

class ContentEncoding : public Encoding {
 public:
  using Encoding::Encoding;
  bool hasFactorized() const override { return true; }
  FactorizedQK factorize(const at::Tensor& q, const at::Tensor& k, const at::Tensor&,
                         const at::Tensor&) const override {
    return {q, k};
  }
  at::Tensor directScores(const at::Tensor& q, const at::Tensor& k, const at::Tensor& qPos,
                          const at::Tensor& kPos) const override;
  // Nothing to learn: s = q . k plus the family's fixed bias.
  std::unique_ptr<TrainableForm> trainable(const TrainableContext& ctx) const override;

 protected:
  // scoreScale * q . k for one pair of D-vectors, in float64.
  double referenceContent(const double* q, const double* k) const;
};

}  // namespace poslab
