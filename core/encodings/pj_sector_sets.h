// The PJ reference's sector sets (docs/MATH.md 2.3.1): which of PJ-bias's three sectors a run
// enables, under the names of the reference's synthetic query LM (--sectors). Plain data.
//   none                 no position bias (plain causal attention: family nope)
//   affine               affine                          grape_a_alibi        affine (GRAPE-A)
//   fj                   FJ                              grape_m_rope         FJ at order 0 only
//   fj_affine            FJ + affine                     grape_ma_rope_alibi  FJ order 0 + affine
//   lc_affine            LC + affine
//   full                 FJ + affine + LC
// The GRAPE rows are the reference's exact special-case controls, not learned GRAPE.
#pragma once

#include <string>
#include <vector>

namespace poslab {

struct PjSectorSet {
  bool fj = false, affine = false, lc = false;
  bool orderZero = false;  // the GRAPE-M controls: the FJ sector at order 0 only
};

// "" (the family's own gates) then the sector set names above, in that order.
const std::vector<std::string>& pjSectorSetChoices();
// The sectors of a set other than "" and "none". Throws InvalidArgument for another name.
PjSectorSet pjSectorSet(const std::string& name);

}  // namespace poslab
