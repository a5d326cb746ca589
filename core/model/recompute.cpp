#include "model/recompute.h"

#include <ATen/ATen.h>
#include <torch/csrc/autograd/autograd.h>
#include <torch/csrc/autograd/custom_function.h>

namespace poslab {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// What the backward needs: the function and its inputs (x first, then the parameters).
struct Recomputation : torch::CustomClassHolder {
  std::function<at::Tensor(const at::Tensor&)> fn;
  std::vector<at::Tensor> inputs;
};

class RecomputedFunction : public torch::autograd::Function<RecomputedFunction> {
 public:
  static at::Tensor forward(AutogradContext* ctx, at::TensorList inputs,
                            const c10::intrusive_ptr<Recomputation>& r) {
    at::Tensor y;
    {
      at::NoGradGuard noGrad;
      y = r->fn(inputs[0]);
    }
    ctx->saved_data["recomputation"] = c10::IValue::make_capsule(r);
    return y;
  }

  static variable_list backward(AutogradContext* ctx, variable_list gradOutputs) {
    auto r = c10::static_intrusive_pointer_cast<Recomputation>(
        ctx->saved_data["recomputation"].toCapsule());
    at::AutoGradMode gradMode(true);
    // x enters the copy as a fresh leaf; the parameters are used as they are, so the graph of
    // fn's second run reaches them directly.
    at::Tensor x = r->inputs[0].detach().requires_grad_(r->inputs[0].requires_grad());
    at::Tensor y = r->fn(x);
    variable_list wrt;
    std::vector<size_t> slot;  // where each entry of wrt goes among the inputs
    if (x.requires_grad()) {
      wrt.push_back(x);
      slot.push_back(0);
    }
    for (size_t i = 1; i < r->inputs.size(); ++i) {
      if (!r->inputs[i].requires_grad()) continue;
      wrt.push_back(r->inputs[i]);
      slot.push_back(i);
    }
    variable_list grads(r->inputs.size() + 1);  // the inputs, then the capsule (none)
    if (wrt.empty() || !y.requires_grad()) return grads;
    variable_list g = torch::autograd::grad({y}, wrt, {gradOutputs[0]}, /*retain_graph=*/false,
                                            /*create_graph=*/false, /*allow_unused=*/true);
    for (size_t n = 0; n < g.size(); ++n) grads[slot[n]] = g[n];
    return grads;
  }
};

}  // namespace

at::Tensor recomputedInBackward(std::function<at::Tensor(const at::Tensor&)> fn,
                                const at::Tensor& x, const std::vector<at::Tensor>& params) {
  bool anyGrad = x.requires_grad();
  for (const at::Tensor& p : params) anyGrad = anyGrad || p.requires_grad();
  if (!at::GradMode::is_enabled() || !anyGrad) return fn(x);
  auto r = c10::make_intrusive<Recomputation>();
  r->fn = std::move(fn);
  r->inputs.push_back(x);
  r->inputs.insert(r->inputs.end(), params.begin(), params.end());
  return RecomputedFunction::apply(at::TensorList(r->inputs), r);
}

}  // namespace poslab
