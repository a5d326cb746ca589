#include "model/threaded_linear.h"

#include <ATen/ATen.h>
#include <torch/csrc/autograd/custom_function.h>

#include <algorithm>

#include "util/parallel_for.h"

namespace poslab {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// Runs body(begin, end) on `parts` equal slices of [0, n), one per intra-op thread.
template <typename Body>
void forSlices(int64_t n, const Body& body) {
  const int64_t parts = std::min<int64_t>(n, at::get_num_threads());
  const int64_t step = (n + parts - 1) / parts;
  parallelFor(0, parts, /*grain=*/1, [&](int64_t first, int64_t last) {
    for (int64_t p = first; p < last; ++p) {
      const int64_t begin = p * step, end = std::min(n, begin + step);
      if (begin < end) body(begin, end);
    }
  });
}

class ThreadedLinearFunction : public torch::autograd::Function<ThreadedLinearFunction> {
 public:
  // inputs: x (N, in) contiguous, weight (out, in), and bias (out) when there is one (an
  // undefined tensor cannot be an input of a custom function) -> (N, out).
  static at::Tensor forward(AutogradContext* ctx, at::TensorList inputs) {
    const at::Tensor &x = inputs[0], &weight = inputs[1];
    const at::Tensor bias = inputs.size() > 2 ? inputs[2] : at::Tensor();
    ctx->save_for_backward({x, weight});
    ctx->saved_data["bias"] = bias.defined();
    const at::Tensor wt = weight.t();  // (in, out)
    at::Tensor y = at::empty({x.size(0), weight.size(0)}, x.options());
    forSlices(x.size(0), [&](int64_t r0, int64_t r1) {
      at::Tensor rows = y.narrow(0, r0, r1 - r0);
      if (bias.defined())
        at::addmm_out(rows, bias, x.narrow(0, r0, r1 - r0), wt);
      else
        at::mm_out(rows, x.narrow(0, r0, r1 - r0), wt);
    });
    return y;
  }

  static variable_list backward(AutogradContext* ctx, variable_list gradOutputs) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor &x = saved[0], &weight = saved[1];
    const at::Tensor dy = gradOutputs[0].contiguous();  // (N, out)
    at::Tensor dx, dw, db;
    if (ctx->needs_input_grad(0)) {
      dx = at::empty_like(x);
      forSlices(x.size(0), [&](int64_t r0, int64_t r1) {  // dx = dy W, by rows
        at::Tensor rows = dx.narrow(0, r0, r1 - r0);
        at::mm_out(rows, dy.narrow(0, r0, r1 - r0), weight);
      });
    }
    if (ctx->needs_input_grad(1)) {
      dw = at::empty_like(weight);
      forSlices(weight.size(0), [&](int64_t o0, int64_t o1) {  // dW = dy^T x, by output features
        at::Tensor rows = dw.narrow(0, o0, o1 - o0);
        at::mm_out(rows, dy.narrow(1, o0, o1 - o0).t(), x);
      });
    }
    if (!ctx->saved_data["bias"].toBool()) return {dx, dw};
    if (ctx->needs_input_grad(2)) db = dy.sum(0);
    return {dx, dw, db};
  }
};

}  // namespace

bool linearRunsThreaded(const at::Tensor& x, int64_t in, int64_t out) {
  if (!parallelLoopsRunInParallel()) return false;  // the slices would run one after the other
  const int64_t rows = in > 0 ? x.numel() / in : 0;
  return x.device().is_cpu() && at::get_num_threads() > 1 &&
         rows * in * out >= kThreadedLinearMinMacs;
}

at::Tensor threadedLinear(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias) {
  const int64_t in = weight.size(1), out = weight.size(0);
  const int64_t rows = x.numel() / in;
  std::vector<int64_t> shape = x.sizes().vec();
  shape.back() = out;
  std::vector<at::Tensor> inputs = {x.reshape({rows, in}).contiguous(), weight};
  if (bias.defined()) inputs.push_back(bias);
  at::Tensor y = ThreadedLinearFunction::apply(at::TensorList(inputs));
  return y.view(shape);
}

at::Tensor applyLinear(torch::nn::Linear& layer, const at::Tensor& x) {
  if (!linearRunsThreaded(x, layer->weight.size(1), layer->weight.size(0)))
    return layer->forward(x);
  return threadedLinear(x, layer->weight, layer->bias);
}

}  // namespace poslab
