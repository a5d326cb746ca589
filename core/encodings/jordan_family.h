// Shared body of the Jordan-RoPE families (MATH 1.7) and PJ-rotary (MATH 1.8.3): the head is cut in
// blocks of `order` complex dims (2*order reals), block b rotating at omega_b = base^(-2b/D) (or
// base^(-b/nb)) unless pin_omega, decaying at gamma, shearing with coefficient a along the shear
// time t.
#pragma once

#include <string>
#include <vector>

#include "encodings/rotary_encoding.h"

namespace poslab {

struct JordanSpec {
  long long order = 2;  // m complex components per block
  ShearKind kind = ShearKind::Linear;
  double gamma = 0;            // decay of every block (affine blocks excepted)
  double shear = 0;            // a: shear time = a * (d | tau(d) | tau(i) - tau(j))
  double L = 256;              // context scale of tau
  long long affineBlocks = 0;  // trailing blocks with lambda = 0 (PJ-rotary's affine sector)
  std::string timeName = "d";  // how the kernel view names the shear time
  double viewTimeUnit = 1;     // kernel view time = t * unit (1/L for the scaled variants)
  double viewShear = 0;        // the kernel view's nilpotent coefficient for that time
  RotaryLearnables learn;      // which of gamma, eta the model learns (one group: group 0)
  // Frequency schedule: omega_b = base^(-2b/D) (RoPE's, false) or base^(-b/nb) over the nb blocks
  // (PJ-rotary's reference schedule, true).
  bool perBlockSchedule = false;
  // Every block's omega = 0 (the reference's real_jordan, force_zero_omega): real eigenvalues.
  bool realEigenvalues = false;
};

// The scaled-exact form (jordan_scaled.cpp), shared by jordan-scaled and the scaled higher
// orders: its parameters and its spec at `order`.
std::vector<ParamSpec> jordanScaledParams();
JordanSpec jordanScaledSpec(const ParamSet& p, long long order);
// The reference's trainable Jordan-RoPE (jordan_stabilized_abs.cpp), shared by
// jordan-stabilized-abs and the bounded higher orders: the absolute bounded shear
// tau(i) - tau(j), gamma and eta learned (eta cap 0.1), at `order`. Without a "gamma" parameter
// (jordan-no-gamma): gamma = 0, not learned.
JordanSpec jordanBoundedShearSpec(const ParamSet& p, long long order);

class JordanEncoding : public RotaryEncoding {
 public:
  JordanEncoding(const FamilyInfo& info, ParamSet params, JordanSpec spec);

  // One block at the user's (gamma, omega): t^r e^(-gamma d) cos/sin(omega d), r < order.
  LagBasis basis(const std::vector<double>& lags) const override;
  double referenceLogit(const double* q, const double* k, long long i, long long j,
                        long long head) const override;

 private:
  JordanSpec spec_;
  std::vector<double> omega_;  // per block
  std::vector<double> gamma_;  // per block
};

}  // namespace poslab
