// One entry per encoding family (docs/MATH.md 1); each is defined in its own file.
#pragma once

#include <memory>

#include "encodings/encoding.h"

namespace poslab {

#define POSLAB_DECLARE_FAMILY(name) \
  const FamilyInfo& name##Info();   \
  std::unique_ptr<Encoding> make##name(ParamSet params);

POSLAB_DECLARE_FAMILY(Nope)
POSLAB_DECLARE_FAMILY(Rope)
POSLAB_DECLARE_FAMILY(RopePi)
POSLAB_DECLARE_FAMILY(RopeNtk)
POSLAB_DECLARE_FAMILY(RopeYarn)
POSLAB_DECLARE_FAMILY(RopeNtkAffine)
POSLAB_DECLARE_FAMILY(Xpos)
POSLAB_DECLARE_FAMILY(Alibi)
POSLAB_DECLARE_FAMILY(RopeAlibi)
POSLAB_DECLARE_FAMILY(DampedRope)
POSLAB_DECLARE_FAMILY(DirectSum)
POSLAB_DECLARE_FAMILY(JordanExact)
POSLAB_DECLARE_FAMILY(JordanStabilized)
POSLAB_DECLARE_FAMILY(JordanStabilizedAbs)
POSLAB_DECLARE_FAMILY(JordanScaled)
POSLAB_DECLARE_FAMILY(JordanM3)
POSLAB_DECLARE_FAMILY(JordanM4)
POSLAB_DECLARE_FAMILY(JordanM3Exact)
POSLAB_DECLARE_FAMILY(JordanM4Exact)
POSLAB_DECLARE_FAMILY(JordanM3Scaled)
POSLAB_DECLARE_FAMILY(JordanM4Scaled)
POSLAB_DECLARE_FAMILY(JordanM3Jetmix)
POSLAB_DECLARE_FAMILY(JordanM4Jetmix)
POSLAB_DECLARE_FAMILY(JordanM4JetmixFull)
POSLAB_DECLARE_FAMILY(JordanScaledAlibi)
POSLAB_DECLARE_FAMILY(JordanM3JetmixAlibi)
POSLAB_DECLARE_FAMILY(JordanM4JetmixFullAlibi)
POSLAB_DECLARE_FAMILY(PjBias)
POSLAB_DECLARE_FAMILY(PjRotary)
POSLAB_DECLARE_FAMILY(Pope)

#undef POSLAB_DECLARE_FAMILY

}  // namespace poslab
