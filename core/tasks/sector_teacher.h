// Sector teachers (PJ-RoPE; MATH 3.4): the kernel-LM layout (bits, then QUERY) with the label set
// by a teacher kernel K(d) from one sector of the PJ kernel (core/encodings/pj_kernel.h), so that a
// PJ model's learned gates can be checked against the sector that made the data.
// u = d/L (L = trainLength), w = omega (default 2 pi * 4 / L: four periods over the context):
//   phase      cos(w d)                                  FJ, order 0
//   jet1       u cos(w d)                                FJ, order 1
//   jet2       (u^2 / 2) cos(w d)                        FJ, order 2
//   jet3       (u^3 / 6) cos(w d)                        FJ, order 3
//   affine     -u                                        affine
//   recency    -u + 0.25 u cos(w d)                      affine, with a weak first jet (FJ)
//   lc         cos(w phi_L(d)),  phi_L(d) = L asinh(u)   LC
//   lc-affine  0.5 cos(w phi_L(d)) - 0.5 asinh(u)        LC + affine
#pragma once

#include <string>
#include <vector>

namespace poslab {

// phase, jet1, jet2, jet3, affine, recency, lc, lc-affine.
std::vector<std::string> sectorTeacherNames();
// The sector that carries the teacher (the largest part of it): "FJ", "affine", "LC" or
// "LC+affine". "Recency" is MATH 1.8.1's name for the affine sector's coordinate rho(d) = d/L,
// so the recency teacher is affine with a weak FJ jet on top. Throws InvalidArgument if unknown.
std::string sectorOfTeacher(const std::string& name);
// K(d) of the teacher, float64, from the table above. Throws InvalidArgument for an unknown name.
double sectorTeacherKernel(const std::string& name, double omega, double L, double d);

}  // namespace poslab
