#include "encodings/registry.h"

#include "encodings/families.h"
#include "encodings/torchscript_family.h"
#include "util/error.h"

namespace poslab {

namespace {
struct Entry {
  const FamilyInfo& (*info)();
  std::unique_ptr<Encoding> (*make)(ParamSet);
};

const std::vector<Entry>& entries() {
  static const std::vector<Entry> kEntries = {
      {NopeInfo, makeNope},
      {RopeInfo, makeRope},
      {RopePiInfo, makeRopePi},
      {RopeNtkInfo, makeRopeNtk},
      {RopeYarnInfo, makeRopeYarn},
      {RopeNtkAffineInfo, makeRopeNtkAffine},
      {XposInfo, makeXpos},
      {AlibiInfo, makeAlibi},
      {RopeAlibiInfo, makeRopeAlibi},
      {DampedRopeInfo, makeDampedRope},
      {DirectSumInfo, makeDirectSum},
      {JordanExactInfo, makeJordanExact},
      {JordanStabilizedInfo, makeJordanStabilized},
      {JordanStabilizedAbsInfo, makeJordanStabilizedAbs},
      {RealJordanInfo, makeRealJordan},
      {JordanNoGammaInfo, makeJordanNoGamma},
      {JordanScaledInfo, makeJordanScaled},
      {JordanM3Info, makeJordanM3},
      {JordanM4Info, makeJordanM4},
      {JordanM3ExactInfo, makeJordanM3Exact},
      {JordanM4ExactInfo, makeJordanM4Exact},
      {JordanM3ScaledInfo, makeJordanM3Scaled},
      {JordanM4ScaledInfo, makeJordanM4Scaled},
      {JordanM3JetmixInfo, makeJordanM3Jetmix},
      {JordanM4JetmixInfo, makeJordanM4Jetmix},
      {JordanM4JetmixFullInfo, makeJordanM4JetmixFull},
      {JordanScaledAlibiInfo, makeJordanScaledAlibi},
      {JordanM3JetmixAlibiInfo, makeJordanM3JetmixAlibi},
      {JordanM4JetmixFullAlibiInfo, makeJordanM4JetmixFullAlibi},
      {PjBiasInfo, makePjBias},
      {PjRotaryInfo, makePjRotary},
      {PopeInfo, makePope},
  };
  return kEntries;
}

const Entry& findEntry(const std::string& id) {
  for (const auto& e : entries())
    if (e.info().id == id) return e;
  std::string known;
  for (const auto& e : entries()) known += (known.empty() ? "" : ", ") + e.info().id;
  throw InvalidArgument("unknown family '" + id + "'",
                        "known families: " + known + "; or file:PATH.pt (docs/ENCODINGS.md)");
}
}  // namespace

const std::vector<const FamilyInfo*>& allFamilies() {
  static const std::vector<const FamilyInfo*> kAll = [] {
    std::vector<const FamilyInfo*> all;
    for (const auto& e : entries()) all.push_back(&e.info());
    return all;
  }();
  return kAll;
}

const FamilyInfo& familyInfo(const std::string& id) {
  if (isFileFamilyId(id)) return fileFamilyInfo(id);
  return findEntry(id).info();
}

std::unique_ptr<Encoding> makeEncoding(const std::string& id,
                                       const std::map<std::string, double>& overrides) {
  if (isFileFamilyId(id))
    return makeFileFamily(id, ParamSet(fileFamilyInfo(id).params, overrides, id));
  const Entry& e = findEntry(id);
  return e.make(ParamSet(e.info().params, overrides, id));
}

}  // namespace poslab
