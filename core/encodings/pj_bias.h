// Building PJ-bias heads from a family's parameters (shared by the family and the diagnostics).
#pragma once

#include <vector>

#include <memory>

#include "encodings/encoding.h"
#include "encodings/params.h"
#include "encodings/pj_kernel.h"

namespace poslab {

PjShape pjShapeFromParams(const ParamSet& p);
// The initial order logits over r = 0..R (MATH 2.3.1): all 0 (uniform) for peak < 0 or peak > R,
// else -2 everywhere and +2 at order `peak`, as the PJ reference's order_init "auto".
std::vector<double> pjInitialOrderLogits(long long R, long long peak);
// softmax(pjInitialOrderLogits(R, peak)): the initial alpha_r.
std::vector<double> pjInitialOrderWeights(long long R, long long peak);
// Per-head coefficients at their initial values (MATH 1.8.2): alpha from alpha_peak (uniform by
// default), zeta = 1,
// gates g_s / sum g, omega_h = 2 pi linspace(1, 17, H)[h] / L unless pin_omega.
std::vector<PjHead> pjHeadsFromParams(const ParamSet& p);

// PJ-bias's trainable form (pj_bias_trainable.cpp): gates, orders, coefficients, kappa, slope.
std::unique_ptr<TrainableForm> makePjBiasForm(const Encoding& enc, const TrainableContext& ctx);

}  // namespace poslab
