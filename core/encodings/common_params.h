// Parameter specs shared by several families, so that a name means the same thing everywhere.
#pragma once

#include <cmath>

#include "encodings/params.h"

namespace poslab::common {

// The mixed_raw kernel's frequency for the default head: base^(-2*3/D) with D = 16.
inline const double kDefaultOmega = std::pow(10000.0, -6.0 / 16.0);

inline ParamSpec headDim(double def = 16) {
  return {"head_dim", def, 2, 1024, true, "D, the head dimension (sets the frequency schedule)"};
}
inline ParamSpec base() {
  return {"base",
          10000,
          1.0001,
          1e9,
          false,
          "theta_c = base^(-2c/D), the RoPE frequency schedule",
          {{"pin_omega", 1, "every block rotates at ω while pin ω is on"}}};
}
inline ParamSpec gamma() {
  ParamSpec s{"gamma", 1e-4,  0,
              10,      false, "decay rate: lambda = -gamma + i omega, factor e^(-gamma d)"};
  s.trainedInit = 1e-4;  // MATH 2.3: the model starts every block at gamma = 1e-4
  return s;
}
inline ParamSpec omega() {
  return {"omega",
          kDefaultOmega,
          0,
          M_PI,
          false,
          "frequency of the kernel view (rad per position); pins every block when pin_omega = 1"};
}
inline ParamSpec pinOmega() {
  return {"pin_omega", 0,
          0,           1,
          true,        "1: every block rotates at omega; 0: blocks follow omega_b = base^(-2b/D)"};
}
inline ParamSpec eta() {
  ParamSpec s{"eta", 0.1,   -10,
              10,    false, "nilpotent (shear) strength: G(d) = e^(lambda d)(I + eta t(d) N)"};
  s.trainedInit = 0.0;  // MATH 2.3: the model starts the shear at eta = 0
  return s;
}
// The cap of a learned bounded shear (eta = eta_max tanh(raw)); the shear time tau(p) < L, so a
// trained model's eta (tau(i) - tau(j)) stays under eta_max L: 0.1 is the reference's eta_max (at
// its L 1024, up to 102).
inline ParamSpec boundedShearCap() {
  return {"eta_max",
          0.1,
          0.01,
          10,
          false,
          "cap of the learned shear, eta = eta_max tanh(raw) (the reference: 0.1); eta tau(d) "
          "stays under eta_max L"};
}
inline ParamSpec contextScale() {
  return {"L", 256, 1, 1e7, false, "context scale L (the training length): enters d/L and tau(d)"};
}
// PI's and NTK's L: where the trained model stops being plain RoPE (MATH 1.2.5).
inline ParamSpec extensionTrainLength() {
  return {
      "L",   256,
      1,     1e7,
      false, "L_train, the training length: the model is plain RoPE up to L and extends past it"};
}
inline ParamSpec heads() {
  return {"heads", 4, 1, 256, true, "number of attention heads H"};
}
inline ParamSpec head() {
  return {"head",
          1,
          1,
          256,
          true,
          "which head (1..H) the kernel view shows",
          {{"heads", 1, "there is only one head"}}};
}
inline ParamSpec scale() {
  return {"scale", 1, 1, 1024, false, "context-extension factor s = L_eval / L_train"};
}

}  // namespace poslab::common
