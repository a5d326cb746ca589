// Jordan-RoPE of order m = 3 and m = 4 (docs/MATH.md 1.7.8): blocks of m complex dims (2m reals),
//     G(d) = e^(lambda d) sum_{r<m} (eta d)^r / r! N^r,
// adding the jets (eta d)^r / r! e^(i omega d), r < m, to the basis. Exact shear: factorized and
// direct. The two orders share this file because they differ only in m.
#include "encodings/common_params.h"
#include "encodings/families.h"
#include "encodings/jordan_family.h"

namespace poslab {

namespace {
FamilyInfo higherOrderInfo(long long m, double defaultHeadDim) {
  const std::string ms = std::to_string(m);
  return FamilyInfo{
      "jordan-m" + ms,
      "Jordan-RoPE (order " + ms + ")",
      "s_b = Re( q_b^H e^{λd} Σ_{r<" + ms + "} \\frac{(ηd)^r}{r!} N^r k_b )",
      "A complex Jordan block of order " + ms + ": the score gains the jets d^r e^{iωd} for r < " +
          ms + ", a polynomial-in-distance envelope on every frequency. Each block takes " +
          std::to_string(2 * m) + " reals of the head.",
      {common::gamma(), common::omega(), common::eta(), common::pinOmega(), common::base(),
       common::headDim(defaultHeadDim)}};
}

std::unique_ptr<Encoding> makeHigherOrder(const FamilyInfo& info, long long m, ParamSet p) {
  JordanSpec spec;
  spec.order = m;
  spec.kind = ShearKind::Linear;
  spec.gamma = p.get("gamma");
  spec.shear = spec.viewShear = p.get("eta");
  spec.timeName = "d";
  spec.learn = {/*gammaGroup=*/0, /*etaGroup=*/0, /*etaMax=*/0.1, /*shearPerL=*/false};
  return std::make_unique<JordanEncoding>(info, std::move(p), spec);
}
}  // namespace

const FamilyInfo& JordanM3Info() {
  static const FamilyInfo info = higherOrderInfo(3, /*defaultHeadDim=*/12);
  return info;
}
const FamilyInfo& JordanM4Info() {
  static const FamilyInfo info = higherOrderInfo(4, /*defaultHeadDim=*/16);
  return info;
}
std::unique_ptr<Encoding> makeJordanM3(ParamSet p) {
  return makeHigherOrder(JordanM3Info(), 3, std::move(p));
}
std::unique_ptr<Encoding> makeJordanM4(ParamSet p) {
  return makeHigherOrder(JordanM4Info(), 4, std::move(p));
}

}  // namespace poslab
