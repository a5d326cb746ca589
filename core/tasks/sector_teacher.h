// Sector teachers (PJ-RoPE paper, synthetic query LM; docs/MATH.md 3.4): the bits-then-QUERY layout
// with the label set by a teacher kernel K(d) from one sector of the PJ kernel
// (core/encodings/pj_kernel.h), so that a PJ model's learned gates can be checked against the
// sector that made the data.
//
// The reference teachers are those of the paper's code (ybzhang-nxu/Poincare_Rope,
// experiments/synthetic_query_lm.py, teacher_kernel_by_position), under its names. With
// x = d/L (L = the training length) and w = omega (default 2 pi 17 / L, 17 cycles over L):
//   phase             cos(w d)                                                 FJ, order 0
//   first_jet         x cos(w d)                                               FJ, order 1
//   second_jet        x^2 e^(-0.1 x) cos(w d)                                  FJ, order 2
//   third_jet         x^3 e^(-0.1 x) cos(w d)                                  FJ, order 3
//   affine            -0.4 x                                                   affine
//   recency_weak_jet  -0.4 x + 0.15 x^2 cos(w d)                               affine + weak jet
//   lc_core           cos(w phi_L(d)) (1 + 0.4 beta_L(d) + 0.2 beta_L(d)^2)    LC
//   lc_affine         lc_core - 0.25 eta_L(d)                                  LC + affine
// with the light-cone chart of pjrope/torch_backend.py: eta_L(d) = asinh(d/L), phi_L(d) =
// L eta_L(d), beta_L(d) = d / sqrt(d^2 + L^2).
//
// PosLab's own earlier teachers that differ from every reference one stay as variants named
// "poslab-..." (default w = 2 pi 4 / L, four periods over L, as they were defined):
//   poslab-jet2       (x^2 / 2) cos(w d)                                       FJ
//   poslab-jet3       (x^3 / 6) cos(w d)                                       FJ
//   poslab-affine     -x                                                       affine
//   poslab-recency    -x + 0.25 x cos(w d)                                     affine + first jet
//   poslab-lc         cos(w phi_L(d))                                          LC
//   poslab-lc-affine  0.5 cos(w phi_L(d)) - 0.5 eta_L(d)                       LC + affine
// (PosLab's old "phase" and "jet1" are the reference phase and first_jet and were removed.)
#pragma once

#include <string>
#include <vector>

namespace poslab {

// The eight reference teachers in the reference's order, then the poslab- variants.
std::vector<std::string> sectorTeacherNames();
// The sector that carries the teacher (the largest part of it): "FJ", "affine", "LC" or
// "LC+affine". Throws InvalidArgument for an unknown name.
std::string sectorOfTeacher(const std::string& name);
// The sector the PJ reference expects a teacher to select (its preferred_sector): "lc" for lc_core
// and lc_affine, "affine" for affine and for recency_weak_jet under the attention teacher, "fj"
// for every other (recency_weak_jet under the signed teacher included). The poslab- variants map by
// sectorOfTeacher (LC+affine to "lc"). Throws InvalidArgument for an unknown name.
std::string preferredSectorOfTeacher(const std::string& name, bool attentionTeacher);
// The jet order the PJ reference expects (its preferred_order): phase 0, first_jet 1, second_jet
// 2, third_jet 3, recency_weak_jet 2, every other 0; poslab-jet2 2, poslab-jet3 3.
long long preferredOrderOfTeacher(const std::string& name);
// The teacher's default frequency for context scale L: 2 pi 17 / L for the reference teachers (the
// reference's --omega-cycles 17), 2 pi 4 / L for the poslab- variants. Throws for an unknown name.
double defaultTeacherOmega(const std::string& name, double L);
// K(d) of the teacher, float64, from the tables above. Throws InvalidArgument for an unknown name.
double sectorTeacherKernel(const std::string& name, double omega, double L, double d);

}  // namespace poslab
