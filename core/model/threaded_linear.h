// A linear layer whose matrix products use every intra-op thread.
//
// PosLab pins OpenBLAS to one thread (util/threads.h: an OpenBLAS pool beside torch's threads
// oversubscribes the cores), so at::linear runs its product on one core however many threads
// torch has. threadedLinear splits the rows of x over torch's intra-op threads instead, each
// product on its thread's single-threaded BLAS, forward and backward (a custom autograd function:
// dx by rows, dW by output features, so every element of either is one product over its whole
// inner dimension, the same split whatever the thread count).
#pragma once

#include <torch/nn/modules/linear.h>

#include <cstdint>

namespace poslab {

// Products smaller than this many multiply-adds (N * in * out) run as at::linear: the threads'
// start-up would cost more than they save.
constexpr int64_t kThreadedLinearMinMacs = int64_t{1} << 22;

// True when threadedLinear splits the product for x (..., in) and a weight (out, in): a build
// whose parallel loops run in parallel (OpenMP), more than one intra-op thread, a CPU tensor and
// at least kThreadedLinearMinMacs multiply-adds.
bool linearRunsThreaded(const at::Tensor& x, int64_t in, int64_t out);

// y = x W^T + b over the threads (always, whatever the size: the caller decided).
//   x (..., in); weight (out, in); bias (out), or undefined for none. Returns (..., out).
at::Tensor threadedLinear(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias);

// The layer applied to x (..., in) -> (..., out): threadedLinear when linearRunsThreaded, else
// the layer's own forward (bit for bit what it gave before, at one thread).
at::Tensor applyLinear(torch::nn::Linear& layer, const at::Tensor& x);

}  // namespace poslab
