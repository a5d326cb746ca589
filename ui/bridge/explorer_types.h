// Value types between the explorer window and its worker thread: one request (family, parameter
// values, the view's settings) and one result per view. Plain data, copied across threads.
#pragma once

#include <QMetaType>

#include <map>
#include <string>
#include <vector>

#include "analysis/kernel_probe.h"  // ProbeReport: plain data, no torch
#include "encodings/lag_basis.h"    // LagBasis: plain data, no torch

namespace poslab::ui {

enum class ExplorerView { Kernel, Attention, Norms, Probe, Diagnostics };

struct KernelSettings {
  long long lagCount = 256;  // lags first..first+lagCount-1
  bool logLag = false;       // log lag axis: lags start at 1 (log 0 is undefined)
  // Other families whose K(d) is drawn over the current family's (at most kMaxKernelOverlays).
  // Each takes the panel's value of every parameter it shares with the current family and its
  // own defaults for the rest.
  std::vector<std::string> overlay;
  // The basis functions on their own right-hand axis, so that K(d) keeps the left axis to itself
  // when the basis is much larger (the Jordan shear's d·e^(−γd) cos ωd grows with d).
  bool basisOwnAxis = false;
};
inline constexpr int kMaxKernelOverlays = 3;
struct AttentionSettings {
  long long T = 128;   // map is T x T
  long long head = 1;  // 1..H
};
struct NormsSettings {
  long long maxPos = 32768;  // grid 0..maxPos, log-spaced
};
struct ProbeSettingsUi {
  std::string target = "mixed";  // the toy study's (x cos(omega d)), as `poslab-cli probe`
  bool familyOnly = false;       // false: the paper's default set; true: the current family alone
};
struct DiagnosticsSettings {
  std::string target = "mixed_raw";  // a kernel-LM target, or a sector target (adaptive recovery)
};

struct ExplorerRequest {
  long long id = 0;  // increasing; results of older ids are stale
  ExplorerView view = ExplorerView::Kernel;
  std::string family;
  std::map<std::string, double> params;     // every parameter of the family (panel values)
  std::map<std::string, double> overrides;  // only those that differ from the defaults
  KernelSettings kernel;
  AttentionSettings attention;
  NormsSettings norms;
  ProbeSettingsUi probe;
  DiagnosticsSettings diagnostics;
};

struct AttentionResult {
  long long T = 0;
  long long head = 1;            // 1-based
  long long heads = 1;           // heads the family distinguishes
  std::vector<double> weights;   // T x T row-major, 0 above the diagonal
  double toeplitzDeviation = 0;  // max |l(i,j) - l(i+1,j+1)|
};

struct PrecisionSummary {
  bool ok = true;
  long long firstBadPosition = -1;
  std::string problem;  // "overflow", "underflow", "precision loss"
  std::string detail;
};

struct NormsResult {
  bool factorized = false;
  std::vector<double> positions;  // as doubles for plotting
  std::vector<double> log10QueryRatio, log10KeyRatio, logitScale;
  std::vector<double> log10ChartQueryRatio, log10ChartKeyRatio;  // the light-cone chart's
  double chartL = 0, chartNormBound = 0;
  PrecisionSummary float32, float64;
};

struct DiagnosticRow {
  std::string sector;  // "FJ", "affine", "LC"
  long long order = 0;
  double massShare = 0, energy = 0, loo = 0;
};
struct DiagnosticsResult {
  std::string target;
  double omega = 0;      // the head's frequency (the target's)
  double kernelMse = 0;  // of the fit (adaptive: the extrapolation MSE over d < evalLength)
  std::vector<DiagnosticRow> rows;  // adaptive: sector "FJ+LC", one row per order
  // A sector target: core's PJ adaptive recovery (runPjAdaptive, the reference's defaults).
  bool adaptive = false;
  long long trainLength = 0, evalLength = 0;
  double trainMse = 0, trainR2 = 0, evalR2 = 0;
  double gates[3] = {0, 0, 0};  // FJ, affine, LC
};

// One overlay family's kernel K(d) on the same lags as the current family's, computed by the same
// core function (Encoding::basis(lags).kernel, unnormalised for every family alike).
struct KernelOverlay {
  std::string family;
  std::vector<double> kernel;
  // Shared parameters it could not take from the panel (its check refused them), as
  // "gamma = 12 (rejected: ...)"; they are at the family's defaults.
  std::vector<std::string> fellBack;
};

struct ExplorerResult {
  long long id = 0;
  ExplorerView view = ExplorerView::Kernel;
  std::string family;
  std::string error;  // non-empty: the computation failed; the other fields are empty
  LagBasis kernel;
  std::vector<KernelOverlay> overlays;    // in request.kernel.overlay order, skipped ones left out
  std::vector<std::string> overlayNotes;  // why an overlay is skipped or fell back, one per line
  AttentionResult attention;
  NormsResult norms;
  ProbeReport probe;
  DiagnosticsResult diagnostics;
};

}  // namespace poslab::ui

Q_DECLARE_METATYPE(poslab::ui::ExplorerRequest)
Q_DECLARE_METATYPE(poslab::ui::ExplorerResult)
Q_DECLARE_METATYPE(poslab::ui::ExplorerView)
