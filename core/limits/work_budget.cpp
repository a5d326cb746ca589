#include "limits/work_budget.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "train/attention_blocks.h"
#include "util/error.h"

namespace poslab {

namespace {
double scale = 1;

std::string shortNumber(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2g", v);
  return text;
}

std::string bytesText(double bytes) {
  if (bytes >= (1LL << 30)) return shortNumber(bytes / (1LL << 30)) + " GiB";
  return shortNumber(bytes / (1 << 20)) + " MiB";
}

// The --budget factor that admits `ratio` times the budget: a round number above it.
std::string factorFor(double ratio) {
  if (!std::isfinite(ratio) || ratio > 1e15) return "";
  const double factor = std::pow(10.0, std::ceil(std::log10(ratio * 1.0001)));
  const double chosen = ratio <= factor / 2 ? factor / 2 : factor;
  char text[32];  // "500", not "5e+02": the factor is typed as an option's value
  std::snprintf(text, sizeof text, chosen >= 1 && chosen < 1e7 ? "%.0f" : "%.0e", chosen);
  if (chosen < 1) std::snprintf(text, sizeof text, "%g", chosen);
  return text;
}

[[noreturn]] void refuse(const std::string& what, const std::string& quantity,
                         const std::string& budget, double ratio) {
  const std::string factor = budgetFactorHint(ratio);
  throw InvalidArgument(
      what + " needs about " + quantity + ", over the budget of " + budget,
      factor.empty() ? std::string("ask for less") : "ask for less, or " + factor);
}

// Each printed cell costs a std::string (or a JSON number) on top of its double.
constexpr double kBytesPerCell = 64;
// A lag table's cell as the front ends hold it (LagTableOutput): a std::string with its
// characters in place and the row vector's share; a JSON value; a JSON number's text (17
// significant digits, sign, exponent, separator); QCustomPlot's (key, value) point.
constexpr double kBytesPerTextCell = 40;
constexpr double kBytesPerJsonValue = 16;
constexpr double kCharactersPerJsonNumber = 24;
constexpr double kBytesPerPlotPoint = 16;
constexpr double kMaxOverlayCurves =
    3;  // the kernel view's overlays (lessons/window_state_check.h)
// Formatting a number as text and printing it (snprintf's digits, the table's std::string, the
// column alignment, the stream) counts as this many multiply-adds: measured 0.9 us a cell for
// `kernel --lags 0:200000` (3.6 million cells, 3.1 s at load 8 on the 2-core machine), where a
// multiply-add of the budgets' scale is 0.2-0.6 ns. It was 64, and a table of 2 million lags
// (14x under the budget by that count) printed for over 30 s without a word.
constexpr double kPerFormattedNumber = 2000;
// A lag kernel or basis value (exp, sin, cos, a power) counts as this many multiply-adds.
constexpr double kPerFunctionValue = 32;
// What one Adam step of the adaptive recovery costs besides its arithmetic: about 60 small
// LibTorch operations and their autograd nodes (measured, docs/LIMITS.md).
constexpr double kAdaptiveStepOverhead = 3e6;
// One basis column at one lag of the fixed recovery, built in plain loops (measured).
constexpr double kPerLagColumn = 2000;
}  // namespace

std::string budgetFactorHint(double ratio) {
  const std::string factor = factorFor(ratio * scale);
  return factor.empty()
             ? factor
             : "pass --budget " + factor + " to allow it (--no-budget lifts every budget)";
}

void setWorkBudgetScale(double factor) {
  if (!(factor > 0)) throw InvalidArgument("--budget must be a positive factor");
  scale = factor;
}

double workBudgetScale() {
  return scale;
}

void checkWorkFits(const WorkCost& cost, const std::string& what, double workBudget,
                   double memoryBudget) {
  const double work = workBudget * scale, memory = memoryBudget * scale;
  if (cost.multiplyAdds > work || !std::isfinite(cost.multiplyAdds))
    refuse(what, shortNumber(cost.multiplyAdds) + " multiply-adds",
           shortNumber(work) + (scale == 1 ? " on this machine" : ""),
           cost.multiplyAdds / workBudget / scale);
  if (cost.bytes > memory || !std::isfinite(cost.bytes))
    refuse(what, bytesText(cost.bytes) + " of memory", bytesText(memory),
           cost.bytes / memoryBudget / scale);
}

WorkCost taskKernelCost(long long length, long long trainLength) {
  const double n = static_cast<double>(length), l = static_cast<double>(trainLength);
  return {(n + l) * kPerFunctionValue, n * (8 + 2 * kBytesPerCell)};
}

WorkCost lagTableCost(long long lags, long long columns, LagTableOutput output) {
  const double n = static_cast<double>(lags);
  const double cells = n * (static_cast<double>(columns) + 2);  // the lag, each column, the kernel
  WorkCost cost{cells * kPerFunctionValue, cells * 8};          // the values, float64
  switch (output) {
    case LagTableOutput::Text:  // a short std::string per cell (in place: up to 15 characters)
      cost.multiplyAdds += cells * kPerFormattedNumber;
      cost.bytes += cells * kBytesPerTextCell;
      break;
    case LagTableOutput::Json:  // a JSON number per cell, then up to 24 characters of text
      cost.multiplyAdds += cells * kPerFormattedNumber;
      cost.bytes += cells * (kBytesPerJsonValue + 2 * kCharactersPerJsonNumber);
      break;
    case LagTableOutput::Csv:  // streamed to the file: no memory, but every cell is formatted
      cost.multiplyAdds += cells * kPerFormattedNumber;
      break;
    case LagTableOutput::Plot:  // each curve's points, the result's copy; the overlays' kernels
      cost.bytes +=
          cells * (kBytesPerPlotPoint + 8) + n * kMaxOverlayCurves * (8 + kBytesPerPlotPoint);
      cost.multiplyAdds += n * kMaxOverlayCurves * kPerFunctionValue;
      break;
  }
  return cost;
}

WorkCost featureNormCost(long long maxPos, long long gridPositions, bool relative, long long heads,
                         long long headDim) {
  const double keys = static_cast<double>(maxPos) + 1;
  const double rows = relative ? 1 : static_cast<double>(gridPositions);
  const double perKey = static_cast<double>(heads) * static_cast<double>(headDim);
  // The logit rows, and the float32 and float64 precision scans over every position.
  const double work = (rows + 2) * keys * perKey * kPerFunctionValue;
  const double bytes = 4 * keys * perKey * 8;  // a few (H, maxPos + 1, D) float64 tensors
  return {work, bytes};
}

double formattedNumbersCost(double count) {
  return count * kPerFormattedNumber;
}

WorkCost attentionMapCost(long long T, long long heads, long long headDim) {
  const double t = static_cast<double>(T);
  const double perPair = static_cast<double>(heads) * static_cast<double>(headDim);
  return {t * t * perPair, t * t * (3 * 8 + 16)};  // logits, weights, the text of each cell
}

WorkCost kernelProbeCost(long long families, long long channels, long long trainLength) {
  constexpr double kColumns = 16;  // a family's basis at one channel, the constant included
  const double lags = 8 * static_cast<double>(trainLength);
  const double fits = static_cast<double>(families) * static_cast<double>(channels);
  // Basis values, the normal equations and the residual over every lag, per fit.
  const double perFit = lags * kColumns * (kColumns + kPerFunctionValue);
  return {fits * perFit, lags * kColumns * 8 * 3};
}

WorkCost forwardCost(const ModelConfig& model, long long vocab, long long length,
                     long long sequences, long long batch) {
  const double T = static_cast<double>(length), C = static_cast<double>(model.dModel);
  const double V = static_cast<double>(std::max<long long>(vocab, 1));
  const double S = static_cast<double>(sequences), L = static_cast<double>(model.layers);
  const double mlp = static_cast<double>(model.mlpRatio);
  // Per layer and token: the causal QK^T and PV products (T C over a token's keys, halved, twice),
  // the projections (4 C^2) and the MLP (2 mlp C^2); the output head V C per token.
  const double work = S * T * (L * (T * C + (4 + 2 * mlp) * C * C) + V * C);
  const double B = static_cast<double>(std::max<long long>(1, batch));
  const double scores =
      static_cast<double>(model.heads) * std::min(T, static_cast<double>(kEvalAttentionBlock));
  const double bytes = B * T * (scores + V + 8 * C) * 4;  // float32
  return {work, bytes};
}

WorkCost pjAdaptiveCost(long long targets, long long restarts, long long steps,
                        long long trainLength, long long evalLength, long long maxOrder) {
  const double orders = static_cast<double>(maxOrder) + 1;
  const double L = static_cast<double>(trainLength), T = static_cast<double>(evalLength);
  const double runs = static_cast<double>(targets) * static_cast<double>(restarts);
  // An Adam step: about 40 elementwise operations over the (R + 1, L) tensors, forward and
  // backward, and the damping's exp over L; plus what each of its ~60 LibTorch operations costs
  // however small (measured, docs/LIMITS.md: kAdaptiveStepOverhead).
  const double step = orders * L * 40 + L * kPerFunctionValue + kAdaptiveStepOverhead;
  // The evaluation (float64 loops): each order's FJ and LC values and their products over the
  // evaluation lags (at least the training lags), and the target.
  const double lags = std::max(L, T);
  const double evaluation = lags * (orders * (4 * kPerFunctionValue + 8) + kPerFunctionValue);
  const double work = runs * (static_cast<double>(steps) * step + evaluation);
  // The training tensors (R + 1, L), about 30 of them with the autograd graph's, and the
  // evaluation's per-order vectors over the evaluation lags (float64).
  const double bytes = 30 * orders * L * 8 + 6 * orders * lags * 8;
  return {work, bytes};
}

WorkCost fixedRecoveryCost(long long targets, long long omegas, long long trainLength,
                           const std::vector<long long>& evalLengths, long long maxOrder) {
  const double R = static_cast<double>(maxOrder);
  // The columns of every basis of orders 1..R (fixedRecoveryBasisNames): rope 2, alibi 1,
  // alibi_lc 1, rope_alibi 3; per order r jordan 2(r+1), scaled 2(r+1), scaled affine 2(r+1)+1;
  // lc 2(R+1) and lc affine 2(R+1)+1. The squares of their designs' widths (the columns and the
  // intercept), for the fits.
  double columns = 7 + 2 * (2 * (R + 1)) + 1, squares = 9 + 4 + 4 + 16;
  for (double r = 1; r <= R; ++r) {
    columns += 3 * 2 * (r + 1) + 1;
    squares += 2 * std::pow(2 * (r + 1) + 1, 2) + std::pow(2 * (r + 1) + 2, 2);
  }
  squares += std::pow(2 * (R + 1) + 1, 2) + std::pow(2 * (R + 1) + 2, 2);
  double lags = static_cast<double>(trainLength), longest = lags;
  for (long long t : evalLengths) {
    lags += static_cast<double>(t);
    longest = std::max(longest, static_cast<double>(t));
  }
  const double fits = static_cast<double>(targets) * static_cast<double>(omegas);
  // Each basis value is built one lag at a time (a power, an exp, a cos or sin: kPerLagColumn),
  // copied into a tensor and standardised; each fit is an SVD and a least-squares solve of the
  // training design (6 L m^2 over the bases); the target once per lag.
  const double work = fits * (lags * (columns * kPerLagColumn + kPerFunctionValue) +
                              6 * static_cast<double>(trainLength) * squares);
  // The widest basis over the longest length: its columns, the tensor, the standardised copy
  // and the one with the intercept (float64).
  const double bytes = 4 * longest * (2 * (R + 1) + 2) * 8;
  return {work, bytes};
}

WorkCost pjFitCost(long long lags, long long columns) {
  const double n = static_cast<double>(lags), c = static_cast<double>(columns);
  // The basis and each component's values (two function values per cell), the normal equations
  // and the SVD of the scaled basis (2 n c^2 each), the leave-one-out kernels (n per column).
  const double work = n * c * (2 * kPerFunctionValue + 4 * c + 1);
  return {work, 4 * n * c * 8};  // the basis, the component values, the SVD's copies (float64)
}

WorkCost pjTargetFitCost(long long L, long long order) {
  return pjFitCost(std::max<long long>(L - 1, 0), 4 * (order + 1) + 1);
}

}  // namespace poslab
