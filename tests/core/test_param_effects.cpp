// Every "no effect" claim a family makes about its parameters (ParamSpec::noEffectWhen, shown by
// the GUI as a disabled control with the reason) holds numerically: under the stated setting,
// changing the parameter changes no float64 reference logit (score and bias, every head) and no
// kernel-view basis function or kernel.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <cmath>

#include "encodings/registry.h"
#include "util/error.h"

namespace poslab {
namespace {

const ParamSpec* findSpec(const FamilyInfo& f, const std::string& name) {
  for (const auto& p : f.params)
    if (p.name == name) return &p;
  return nullptr;
}

// Values of `spec` other than its default that stay inside its range.
std::vector<double> alternatives(const ParamSpec& spec) {
  if (spec.integer) {
    std::vector<double> out;
    for (double v : {spec.defaultValue + 1, spec.defaultValue - 1})
      if (v >= spec.min && v <= spec.max) out.push_back(v);
    return out;
  }
  return {spec.defaultValue + 0.37 * (spec.max - spec.defaultValue),
          spec.defaultValue - 0.21 * (spec.defaultValue - spec.min)};
}

// Reference logits for fixed random q, k over a grid of (i, j) and every head, then the basis.
std::vector<double> everythingComputed(const Encoding& enc) {
  std::vector<double> out;
  const long long D = enc.headDim();
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(3);
  at::Tensor qk = at::randn({2, D}, gen, at::TensorOptions().dtype(at::kDouble)).contiguous();
  const double* q = qk.data_ptr<double>();
  const double* k = q + D;
  for (long long head = 0; head < enc.heads(); ++head)
    for (long long i : {0LL, 3LL, 17LL, 40LL})
      for (long long j = 0; j <= i; j += 3) out.push_back(enc.referenceLogit(q, k, i, j, head));
  const LagBasis b = enc.basis(lagRange(0, 64));
  for (const auto& column : b.columns) out.insert(out.end(), column.begin(), column.end());
  out.insert(out.end(), b.kernel.begin(), b.kernel.end());
  return out;
}

TEST(ParamEffects, EveryNoEffectClaimHoldsNumerically) {
  int claimsChecked = 0;
  for (const FamilyInfo* f : allFamilies()) {
    for (const ParamSpec& spec : f->params) {
      for (const ParamNoEffect& claim : spec.noEffectWhen) {
        if (!findSpec(*f, claim.other)) continue;  // a shared spec; this family lacks `other`
        SCOPED_TRACE(f->id + ": " + spec.name + " while " + claim.other + " = " +
                     std::to_string(claim.value));
        EXPECT_FALSE(claim.reason.empty());
        std::map<std::string, double> base{{claim.other, claim.value}};
        std::vector<double> expected;
        try {
          expected = everythingComputed(*makeEncoding(f->id, base));
        } catch (const InvalidArgument&) {
          continue;  // the setting itself is not valid for this family's defaults
        }
        for (double v : alternatives(spec)) {
          std::map<std::string, double> changed = base;
          changed[spec.name] = v;
          std::unique_ptr<Encoding> enc;
          try {
            enc = makeEncoding(f->id, changed);
          } catch (const InvalidArgument&) {
            continue;  // e.g. head = 2 with one head: no other valid value to try
          }
          const std::vector<double> got = everythingComputed(*enc);
          ASSERT_EQ(got.size(), expected.size()) << spec.name << " = " << v;
          for (size_t n = 0; n < got.size(); ++n)
            ASSERT_NEAR(got[n], expected[n], 1e-12 * (1 + std::abs(expected[n])))
                << spec.name << " = " << v << " changes output " << n;
          ++claimsChecked;
        }
      }
    }
  }
  EXPECT_GE(claimsChecked, 10);  // base under pin ω in every rotary family, the PJ sector gates
}

// The relations name real parameters: each claim's `other` belongs to at least one family that
// also has the parameter, and it is a value inside the other parameter's range there.
TEST(ParamEffects, ClaimsNameParametersThatExist) {
  for (const FamilyInfo* f : allFamilies())
    for (const ParamSpec& spec : f->params)
      for (const ParamNoEffect& claim : spec.noEffectWhen)
        if (const ParamSpec* other = findSpec(*f, claim.other)) {
          EXPECT_GE(claim.value, other->min) << f->id << " " << spec.name;
          EXPECT_LE(claim.value, other->max) << f->id << " " << spec.name;
        }
}

TEST(ParamEffects, SymbolsForTheGreekParameters) {
  EXPECT_EQ(paramSymbol("gamma"), "γ");
  EXPECT_EQ(paramSymbol("g_fj"), "g_{FJ}");
  EXPECT_EQ(paramSymbol("no_such"), "no_such");
  ParamSpec base{"base", 10000, 2, 1e9, false, "", {{"pin_omega", 1, "why"}}};
  EXPECT_EQ(noEffectReason(base, {{"pin_omega", 1}}), "why");
  EXPECT_EQ(noEffectReason(base, {{"pin_omega", 0}}), "");
  EXPECT_EQ(noEffectReason(base, {}), "");
}

}  // namespace
}  // namespace poslab
