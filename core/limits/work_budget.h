// One work model for every request: before any computation starts, a command or view estimates
// its cost (multiply-adds and bytes of working memory) from its arguments and compares it with
// the budget of the machine, so that a request that is legal by its ranges but far beyond what
// the machine can do (task-kernel --length 1e9, norms --max-pos 1e7, response --length 20000) is
// refused at once, naming the option, the estimate and the budget, instead of running for
// minutes or exhausting memory. docs/LIMITS.md lists the budgets and the estimates.
#pragma once

#include <string>
#include <vector>

#include "train/train_config.h"

namespace poslab {

struct WorkCost {
  double multiplyAdds = 0;  // or the equivalent: a transcendental function counts as several
  double bytes = 0;         // peak working memory, estimated
};

// The budget of one interactive request (a CLI analysis command, a GUI view): about 10-30 s of a
// loaded 2-core CPU (measured: 1.4e11 float32 multiply-adds of evaluation take 15-54 s there) and
// a quarter of a small desktop's memory. Evaluations during training and `eval` have their own,
// larger budget (train/run_limits.h: they show progress); a single forward pass without progress
// is held to this one.
constexpr double kRequestWorkBudget = 5e10;                 // multiply-adds
constexpr double kRequestMemoryBudget = 2.0 * (1LL << 30);  // bytes
// The budget of a long request that prints progress with an ETA and ends at SIGINT/SIGTERM
// (diagnose's recoveries; a CPU's evaluation, train/run_limits.h): minutes of that CPU.
constexpr double kProgressWorkBudget = 2e12;  // multiply-adds

// Every budget (these and run_limits.h's) is multiplied by this factor: 1 by default, set once by
// a front end from its explicit option (poslab-cli --budget FACTOR, --no-budget: infinity).
void setWorkBudgetScale(double factor);
double workBudgetScale();

// Throws InvalidArgument, one line: "WHAT needs about 3.2e+13 multiply-adds, over the budget of
// 5e+10 (... --budget 640 raises it, --no-budget lifts it)", the same for bytes. `what` names the
// option and its value ("--length 1000000000"). `workBudget`/`memoryBudget` are unscaled.
void checkWorkFits(const WorkCost& cost, const std::string& what,
                   double workBudget = kRequestWorkBudget,
                   double memoryBudget = kRequestMemoryBudget);

// What a refusal of a request `ratio` times over its (scaled) budget says to raise it: "pass
// --budget 50 to allow it (--no-budget lifts every budget)"; empty past any sensible factor.
std::string budgetFactorHint(double ratio);

// --- Estimates, one per kind of request -------------------------------------------------------

// Multiply-adds of formatting and printing `count` numbers as text (a CSV file, a table).
double formattedNumbersCost(double count);

// A task's target kernel at `length` lags, normalised over `trainLength` lags (task-kernel; the
// task itself sums the kernel over the training lags when it is built), printed as a table.
WorkCost taskKernelCost(long long length, long long trainLength);

// What a front end makes of a lag table besides its values (the lags, each column and the
// kernel, float64): `kernel`'s text table (a std::string per cell, all rows held until printed),
// `kernel --json` (a JSON number per cell, then the document's text), `kernel --csv` alone
// (streamed to the file: no memory, the formatting's work), or the window's kernel view (a (key,
// value) point per lag on each curve, the result's copy that crosses to the window, and up to three
// overlays' kernels).
enum class LagTableOutput { Text, Json, Csv, Plot };

// A family's basis table over `lags` lags with `columns` columns (kernel, the GUI's kernel view),
// with what `output` allocates for it.
WorkCost lagTableCost(long long lags, long long columns, LagTableOutput output);

// The feature-norm profile up to maxPos (norms, the GUI's norms view): a logit row of maxPos + 1
// keys per profiled position (one for a relative family) and the precision scans up to maxPos.
WorkCost featureNormCost(long long maxPos, long long gridPositions, bool relative, long long heads,
                         long long headDim);

// A T x T positional attention map of one head (attention, the GUI's attention view), written as
// text.
WorkCost attentionMapCost(long long T, long long heads, long long headDim);

// The kernel probe (probe): for each of `families` families and `channels` frequency channels a
// ridge fit of a basis of a few columns on d < L, evaluated out to 8L.
WorkCost kernelProbeCost(long long families, long long channels, long long trainLength);

// A trained model's forward passes over `sequences` sequences of `length` tokens, `batch` of them
// at once (response: (lags + 1) rows per sample; pope-usage; inspection views).
WorkCost forwardCost(const ModelConfig& model, long long vocab, long long length,
                     long long sequences, long long batch);

// The PJ adaptive recovery (diagnose --target SECTOR; analysis/pj_adaptive.h): for each of
// `targets` targets and `restarts` restarts, `steps` Adam steps over (maxOrder + 1) x trainLength
// tensors, then the evaluation of the kernel and its per-order parts over evalLength lags.
WorkCost pjAdaptiveCost(long long targets, long long restarts, long long steps,
                        long long trainLength, long long evalLength, long long maxOrder);

// The fixed kernel basis recovery (diagnose --fixed-kernel; analysis/fixed_kernel_recovery.h):
// for each of `omegas` frequencies and `targets` targets, every fixed basis of orders 1..maxOrder
// built over trainLength lags and fitted, then built again over each evaluation length.
WorkCost fixedRecoveryCost(long long targets, long long omegas, long long trainLength,
                           const std::vector<long long>& evalLengths, long long maxOrder);

// The PJ-bias fit of the diagnostics (diagnose, the GUI's diagnostics view): a basis of `columns`
// columns over `lags` lags, its least-squares fit and scaled condition number (float64), and one
// leave-one-out kernel per column.
WorkCost pjFitCost(long long lags, long long columns);
// The PJ-bias fit to a lag-kernel target (diagnose --target KERNEL, the window's diagnostics
// view): pjFitCost over lags 1 .. L - 1 of the basis of order R, FJ and LC cos/sin per order
// (2 (R + 1) each) and the affine column.
WorkCost pjTargetFitCost(long long L, long long order);

}  // namespace poslab
