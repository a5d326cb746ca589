// How a kernel-view basis function is shown to a reader: its name (LagBasis::names, e.g.
// "d*exp*cos", a stable key of CSV files and tests) as a formula in PosLab's markup
// (util/formula_text.h), e.g. "d e^{−γd} cos ωd". The names follow one small grammar, written by
// the families' basis() functions (jordan_blocks.cpp, rope_like.cpp, pope.cpp, direct_sum.cpp,
// pj_kernel.cpp, alibi.cpp, pj_rotary.cpp); tests/core/test_basis_label.cpp holds every family's
// names to a label.
#pragma once

#include <string>

namespace poslab {

// The label of a basis name; a name outside the grammar is returned as it is.
std::string basisLabel(const std::string& name);

}  // namespace poslab
