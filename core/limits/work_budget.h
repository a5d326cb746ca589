// One work model for every request: before any computation starts, a command or view estimates
// its cost (multiply-adds and bytes of working memory) from its arguments and compares it with
// the budget of the machine, so that a request that is legal by its ranges but far beyond what
// the machine can do (task-kernel --length 1e9, norms --max-pos 1e7, response --length 20000) is
// refused at once, naming the option, the estimate and the budget, instead of running for
// minutes or exhausting memory. docs/LIMITS.md lists the budgets and the estimates.
#pragma once

#include <string>

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

// A task's target kernel at `length` lags, normalised over `trainLength` lags (task-kernel; the
// task itself sums the kernel over the training lags when it is built), printed as a table.
WorkCost taskKernelCost(long long length, long long trainLength);

// A family's basis table over `lags` lags with `columns` columns (kernel, the GUI's kernel view).
WorkCost lagTableCost(long long lags, long long columns);

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

// The PJ-bias fit of the diagnostics (diagnose, the GUI's diagnostics view): a basis of `columns`
// columns over `lags` lags, its least-squares fit and scaled condition number (float64), and one
// leave-one-out kernel per column.
WorkCost pjFitCost(long long lags, long long columns);

}  // namespace poslab
