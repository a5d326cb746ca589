// Feature-norm profile of a family's factorized form: ||q'(p)|| / ||q|| and ||k'(p)|| / ||k|| for a
// fixed random vector at positions 0..N, the logit scale max_{j<=p} |l(p, j)| (q = k = that
// vector, direct form), and where float32 (and float64) first overflow or lose precision.
#pragma once

#include <string>
#include <vector>

#include "analysis/lightcone_chart.h"
#include "encodings/encoding.h"

namespace poslab {

struct NormRow {
  long long position = 0;
  double log10QueryRatio = 0;  // log10(||q'(p)|| / ||q||); log10 keeps huge growth printable
  double log10KeyRatio = 0;
  double logitScale = 0;  // max_{j<=p} |l(p, j)|
  // The same vector under the light-cone chart transform (MATH 4.3.1) at the family's L.
  double log10ChartQueryRatio = 0;
  double log10ChartKeyRatio = 0;
};

struct NormProfile {
  std::string family;
  bool factorized = false;  // false: q, k are not transformed (ratios are 1), direct form only
  std::vector<NormRow> rows;
  PrecisionReport float32;  // of the factorized form up to maxPos
  PrecisionReport float64;
  LightConeChart chart;       // lightConeChartFor(the family)
  double chartNormBound = 0;  // lightConeNormBound(chart): no position exceeds it
};

// The chart beside a family's profile: its L (1024 when it has none), base, D, order 2 blocks
// (order 1 when D is not divisible by 4), eta 1.
LightConeChart lightConeChartFor(const Encoding& enc);

// 0, 1, ..., then `perDecade` log-spaced positions per decade, ending exactly at maxPos.
std::vector<long long> logPositionGrid(long long maxPos, int perDecade = 12);

// Throws InvalidArgument for maxPos < 1 or above 1e7 (the logit scale reads O(maxPos) keys).
// lagShortcut: for a relative family (logits depend on the lag only) compute the logit scale
// from one query row at maxPos and a running max over the lag, instead of one row per position
// (about 6x fewer keys on a log grid; the GUI's norms view). false: the row-per-position
// reference, which tests compare against.
NormProfile featureNormProfile(const Encoding& enc, const std::vector<long long>& positions,
                               unsigned seed = 0, bool lagShortcut = true);

}  // namespace poslab
