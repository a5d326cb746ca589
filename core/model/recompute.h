// Activation recomputation (gradient checkpointing) for the model's blocks.
//
// recomputedInBackward(fn, x, params) returns fn(x) but keeps none of fn's intermediate tensors:
// the forward runs under no-grad and stores only x; the backward runs fn(x) again under autograd
// and back-propagates through that copy. Peak memory of a training step then holds one block's
// activations at a time instead of every block's, for one more forward pass of compute.
// Values and gradients equal the plain path's: fn runs the same operations on the same inputs.
#pragma once

#include <ATen/core/Tensor.h>

#include <functional>
#include <vector>

namespace poslab {

// fn: a deterministic function of x and of the tensors in params (and of nothing else that
//   requires grad); it may itself use custom autograd functions (the fused attention).
// x: any shape; params: every tensor fn reads that may need a gradient (a block's parameters).
// Returns fn(x), differentiable in x and params when grad mode is on and any of them requires
// grad; otherwise simply fn(x).
at::Tensor recomputedInBackward(std::function<at::Tensor(const at::Tensor&)> fn,
                                const at::Tensor& x, const std::vector<at::Tensor>& params);

}  // namespace poslab
