#include "encodings/pj_sector_sets.h"

#include "util/error.h"

namespace poslab {

const std::vector<std::string>& pjSectorSetChoices() {
  static const std::vector<std::string> names = {"",
                                                 "none",
                                                 "affine",
                                                 "fj",
                                                 "fj_affine",
                                                 "lc_affine",
                                                 "full",
                                                 "grape_m_rope",
                                                 "grape_a_alibi",
                                                 "grape_ma_rope_alibi"};
  return names;
}

PjSectorSet pjSectorSet(const std::string& name) {
  PjSectorSet s;
  s.orderZero = name == "grape_m_rope" || name == "grape_ma_rope_alibi";
  s.fj = name == "fj" || name == "fj_affine" || name == "full" || s.orderZero;
  s.affine = name == "affine" || name == "fj_affine" || name == "lc_affine" || name == "full" ||
             name == "grape_a_alibi" || name == "grape_ma_rope_alibi";
  s.lc = name == "lc_affine" || name == "full";
  if (!s.fj && !s.affine && !s.lc)
    throw InvalidArgument("unknown PJ sector set '" + name + "'",
                          "known: affine, fj, fj_affine, lc_affine, full, grape_m_rope, "
                          "grape_a_alibi, grape_ma_rope_alibi");
  return s;
}

}  // namespace poslab
