// NoPE (MATH 1.1): no positional signal; s(i,j) = q . k. The causal mask alone orders tokens.
#include "encodings/common_params.h"
#include "encodings/content_encoding.h"
#include "encodings/families.h"

namespace poslab {

namespace {
class Nope : public ContentEncoding {
 public:
  using ContentEncoding::ContentEncoding;
  LagBasis basis(const std::vector<double>& lags) const override {
    LagBasis b;
    b.lags = lags;
    b.add("1", std::vector<double>(lags.size(), 1.0));
    return b;
  }
  double referenceLogit(const double* q, const double* k, long long, long long,
                        long long) const override {
    return referenceContent(q, k);
  }
};
}  // namespace

const FamilyInfo& NopeInfo() {
  static const FamilyInfo info{"nope",
                               "NoPE",
                               "s(i,j) = q·k",
                               "No positional encoding: only the causal mask tells positions "
                               "apart. The baseline every family is measured against.",
                               {common::headDim()}};
  return info;
}

std::unique_ptr<Encoding> makeNope(ParamSet p) {
  return std::make_unique<Nope>(NopeInfo(), std::move(p));
}

}  // namespace poslab
