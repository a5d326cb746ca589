// Measures a trained model's lag response (LagResponse in inspection.h) by flipping one bit at a
// time: samples * (lags + 1) forward passes of `length` tokens, batched.
#pragma once

#include <ATen/core/Tensor.h>

#include <functional>
#include <vector>

#include "limits/work_budget.h"
#include "train/inspection.h"
#include "util/error.h"

namespace poslab {

// The model's logits in evaluation mode, without gradient: tokens (B, T) int64 on any device ->
// (B, T, V) float64 on the CPU (inspection.cpp).
at::Tensor predictLogits(const InspectedModel& m, const at::Tensor& tokens);

// Called after each probe sequence with (sequences done, sequences in all); returning false
// cancels the probe, which then throws LagResponseCancelled.
using LagResponseProgress = std::function<bool(long long done, long long total)>;

class LagResponseCancelled : public Error {
 public:
  LagResponseCancelled() : Error("lag response cancelled") {}
};

// Throws InvalidArgument for a task without label weights, a length the task cannot generate, or
// samples / maxLags below 1: the request's own checks, cheap, before its cost is estimated.
void checkLagResponseRequest(const InspectedModel& m, long long length, long long samples,
                             long long maxLags);

// The work of measureLagResponse (limits/work_budget.h): each sample is (lags + 1) forward passes
// of `length` tokens, up to 64 rows at once.
WorkCost lagResponseCost(const InspectedModel& m, long long length, long long samples,
                         long long maxLags);

// Probes at most maxLags lags, evenly spread over [1, length-1] (all of them when they fit).
// Checks the request first (checkLagResponseRequest), then its cost against the request budget
// (lagResponseCost; `response`, the GUI's Learned kernel tab): nothing is computed over it.
LagResponse measureLagResponse(const InspectedModel& m, long long length, long long samples = 16,
                               long long maxLags = 128, const LagResponseProgress& progress = {});

// The response on given sequences: tokens (S, T) int64, bits at 0..T-2 and QUERY at T-1; for each
// lag d in [1, T-1], the mean over the S sequences of (m - m with the bit at T-1-d flipped) x / 2,
// m = logit(1) - logit(0) at T-1 (logit units).
std::vector<double> lagResponseOnTokens(const InspectedModel& m, const at::Tensor& tokens,
                                        const std::vector<long long>& lags,
                                        const LagResponseProgress& progress = {});

}  // namespace poslab
