// Jordan-RoPE of order m = 3 and m = 4 (docs/MATH.md 1.7.8): blocks of m complex dims (2m reals),
//     G = e^(lambda d) sum_{r<m} (eta t)^r / r! N^r,
// adding the jets t^r e^(i omega d), r < m, to the basis. Three shear times, each its own family:
//   jordan-m3, jordan-m4           the reference code's jordan_m3 / jordan_m4: the bounded
//                                  absolute shear t = tau(i) - tau(j), tau(p) = p / (1 + |p|/L),
//                                  eta cap 0.1 (factorized, not relative);
//   jordan-m3-exact, -m4-exact     the exact raw shear t = d (group law, factorized and direct);
//   jordan-m3-scaled, -m4-scaled   the scaled-exact form t = d / L, gamma from c / L, eta cap 1.
// The orders and shear times share this file because they differ only in m and t.
#include "encodings/common_params.h"
#include "encodings/families.h"
#include "encodings/jordan_family.h"

namespace poslab {

namespace {
FamilyInfo boundedInfo(long long m, double defaultHeadDim) {
  const std::string ms = std::to_string(m);
  return FamilyInfo{
      "jordan-m" + ms,
      "Jordan-RoPE (order " + ms + ", bounded absolute shear)",
      "s_b = Re( q_b^H e^{λd} Σ_{r<" + ms +
          "} \\frac{(η (τ(i) − τ(j)))^r}{r!} N^r k_b ),  τ(p) = \\frac{p}{1 + |p|/L}",
      "A complex Jordan block of order " + ms +
          " as the reference code trains it: the score "
          "gains the jets τ^r e^{iωd} for r < " +
          ms +
          ", with the shear saturated per absolute "
          "position so the cheap factorized form stays bounded (the score is not relative). "
          "Each block takes " +
          std::to_string(2 * m) + " reals of the head.",
      {common::gamma(), common::omega(), common::eta(), common::contextScale(), common::pinOmega(),
       common::base(), common::headDim(defaultHeadDim)}};
}

FamilyInfo exactInfo(long long m, double defaultHeadDim) {
  const std::string ms = std::to_string(m);
  return FamilyInfo{"jordan-m" + ms + "-exact",
                    "Jordan-RoPE (order " + ms + ", exact raw shear)",
                    "s_b = Re( q_b^H e^{λd} Σ_{r<" + ms + "} \\frac{(ηd)^r}{r!} N^r k_b )",
                    "A complex Jordan block of order " + ms +
                        " with the exact shear d: the score gains the "
                        "jets d^r e^{iωd} for r < " +
                        ms +
                        ", a polynomial-in-distance envelope on every "
                        "frequency, and keeps the group law. Each block takes " +
                        std::to_string(2 * m) + " reals of the head.",
                    {common::gamma(), common::omega(), common::eta(), common::pinOmega(),
                     common::base(), common::headDim(defaultHeadDim)}};
}

FamilyInfo scaledInfo(long long m, double defaultHeadDim) {
  const std::string ms = std::to_string(m);
  std::vector<ParamSpec> params = jordanScaledParams();
  for (auto& spec : params) {
    if (spec.name == "head_dim") spec = common::headDim(defaultHeadDim);
    if (spec.name == "eta_max") spec.defaultValue = 1.0;  // the reference's scaled m3/m4: cap 1
  }
  return FamilyInfo{
      "jordan-m" + ms + "-scaled", "Jordan-RoPE (order " + ms + ", scaled d/L)",
      "s_b = Re( q_b^H e^{(−c/L + iω)d} Σ_{r<" + ms + "} \\frac{(η d/L)^r}{r!} N^r k_b )",
      "A complex Jordan block of order " + ms +
          " in units of the context scale: decay c/L and "
          "shear time d/L with the learned shear capped at 1. Keeps the group law. Each block "
          "takes " +
          std::to_string(2 * m) + " reals of the head.",
      params};
}

std::unique_ptr<Encoding> makeBounded(const FamilyInfo& info, long long m, ParamSet p) {
  const JordanSpec spec = jordanBoundedShearSpec(p, m);
  return std::make_unique<JordanEncoding>(info, std::move(p), spec);
}

std::unique_ptr<Encoding> makeExact(const FamilyInfo& info, long long m, ParamSet p) {
  JordanSpec spec;
  spec.order = m;
  spec.kind = ShearKind::Linear;
  spec.gamma = p.get("gamma");
  spec.shear = spec.viewShear = p.get("eta");
  spec.timeName = "d";
  spec.learn = {/*gammaGroup=*/0, /*etaGroup=*/0, /*etaMax=*/0.1, /*shearPerL=*/false};
  return std::make_unique<JordanEncoding>(info, std::move(p), spec);
}

std::unique_ptr<Encoding> makeScaled(const FamilyInfo& info, long long m, ParamSet p) {
  JordanSpec spec = jordanScaledSpec(p, m);
  return std::make_unique<JordanEncoding>(info, std::move(p), spec);
}
}  // namespace

// Head dims by default: one block of order 3 takes 6 reals, of order 4 takes 8.
const FamilyInfo& JordanM3Info() {
  static const FamilyInfo info = boundedInfo(3, /*defaultHeadDim=*/12);
  return info;
}
const FamilyInfo& JordanM4Info() {
  static const FamilyInfo info = boundedInfo(4, /*defaultHeadDim=*/16);
  return info;
}
const FamilyInfo& JordanM3ExactInfo() {
  static const FamilyInfo info = exactInfo(3, 12);
  return info;
}
const FamilyInfo& JordanM4ExactInfo() {
  static const FamilyInfo info = exactInfo(4, 16);
  return info;
}
const FamilyInfo& JordanM3ScaledInfo() {
  static const FamilyInfo info = scaledInfo(3, 12);
  return info;
}
const FamilyInfo& JordanM4ScaledInfo() {
  static const FamilyInfo info = scaledInfo(4, 16);
  return info;
}
std::unique_ptr<Encoding> makeJordanM3(ParamSet p) {
  return makeBounded(JordanM3Info(), 3, std::move(p));
}
std::unique_ptr<Encoding> makeJordanM4(ParamSet p) {
  return makeBounded(JordanM4Info(), 4, std::move(p));
}
std::unique_ptr<Encoding> makeJordanM3Exact(ParamSet p) {
  return makeExact(JordanM3ExactInfo(), 3, std::move(p));
}
std::unique_ptr<Encoding> makeJordanM4Exact(ParamSet p) {
  return makeExact(JordanM4ExactInfo(), 4, std::move(p));
}
std::unique_ptr<Encoding> makeJordanM3Scaled(ParamSet p) {
  return makeScaled(JordanM3ScaledInfo(), 3, std::move(p));
}
std::unique_ptr<Encoding> makeJordanM4Scaled(ParamSet p) {
  return makeScaled(JordanM4ScaledInfo(), 4, std::move(p));
}

}  // namespace poslab
