// The CUDA fused causal attention's autograd function and its dispatch (fused_attention_cuda.h);
// the kernels are in fused_attention_kernels.cu. Built only with a CUDA LibTorch.
#include "model/fused_attention_cuda.h"

#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/csrc/autograd/custom_function.h>

#include "cuda/fused_attention_kernels.h"

namespace poslab {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

cuda::AttentionShape shapeOf(const at::Tensor& a, const at::Tensor& v) {
  cuda::AttentionShape s;
  s.batch = v.size(0);
  s.heads = v.size(1);
  s.length = v.size(2);
  s.features = a.size(3);
  s.headSize = v.size(3);
  return s;
}

template <typename Scalar>
const Scalar* ptr(const at::Tensor& t) {
  return t.defined() ? t.data_ptr<Scalar>() : nullptr;
}
template <typename Scalar>
Scalar* mutablePtr(const at::Tensor& t) {
  return t.defined() ? t.data_ptr<Scalar>() : nullptr;
}

// O (B, H, T, hs) and lse (B, H, T) from a, b (B, H, T, F), v (B, H, T, hs), lag (H, T) or
// undefined.
std::pair<at::Tensor, at::Tensor> runForward(const at::Tensor& a, const at::Tensor& b,
                                             const at::Tensor& v, const at::Tensor& lag, int tile) {
  c10::cuda::CUDAGuard guard(v.device());
  const cuda::AttentionShape s = shapeOf(a, v);
  at::Tensor out = at::empty_like(v);
  at::Tensor lse = at::empty({s.batch, s.heads, s.length}, v.options());
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  if (v.scalar_type() == at::kFloat)
    cuda::fusedAttentionForward<float>(s, tile, ptr<float>(a), ptr<float>(b), ptr<float>(v),
                                       ptr<float>(lag), mutablePtr<float>(out),
                                       mutablePtr<float>(lse), stream);
  else
    cuda::fusedAttentionForward<double>(s, tile, ptr<double>(a), ptr<double>(b), ptr<double>(v),
                                        ptr<double>(lag), mutablePtr<double>(out),
                                        mutablePtr<double>(lse), stream);
  return {out, lse};
}

class CudaAttentionFunction : public torch::autograd::Function<CudaAttentionFunction> {
 public:
  // inputs: a, b, v and, with a bias, lag (H, T); returns O (B, H, T, hs).
  static at::Tensor forward(AutogradContext* ctx, at::TensorList inputs, int64_t tile) {
    const at::Tensor lag = inputs.size() > 3 ? inputs[3] : at::Tensor();
    auto [out, lse] = runForward(inputs[0], inputs[1], inputs[2], lag, static_cast<int>(tile));
    std::vector<at::Tensor> saved(inputs.begin(), inputs.end());
    saved.push_back(out);
    saved.push_back(lse);
    ctx->save_for_backward(saved);
    ctx->saved_data["tile"] = tile;
    return out;
  }

  static variable_list backward(AutogradContext* ctx, variable_list gradOutputs) {
    const variable_list saved = ctx->get_saved_variables();
    const bool hasLag = saved.size() == 6;
    const at::Tensor &a = saved[0], &b = saved[1], &v = saved[2];
    const at::Tensor lag = hasLag ? saved[3] : at::Tensor();
    const at::Tensor &out = saved[saved.size() - 2], &lse = saved[saved.size() - 1];
    const int tile = static_cast<int>(ctx->saved_data["tile"].toInt());
    c10::cuda::CUDAGuard guard(v.device());
    at::Tensor dO = gradOutputs[0].contiguous();
    at::Tensor rowDot = (dO * out).sum(-1).contiguous();  // (B, H, T)
    at::Tensor dA = at::empty_like(a), dB = at::empty_like(b), dV = at::empty_like(v);
    at::Tensor dLag = hasLag ? at::zeros_like(lag) : at::Tensor();
    const cuda::AttentionShape s = shapeOf(a, v);
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    if (v.scalar_type() == at::kFloat)
      cuda::fusedAttentionBackward<float>(
          s, tile, ptr<float>(a), ptr<float>(b), ptr<float>(v), ptr<float>(lag), ptr<float>(lse),
          ptr<float>(rowDot), ptr<float>(dO), mutablePtr<float>(dA), mutablePtr<float>(dB),
          mutablePtr<float>(dV), mutablePtr<float>(dLag), stream);
    else
      cuda::fusedAttentionBackward<double>(
          s, tile, ptr<double>(a), ptr<double>(b), ptr<double>(v), ptr<double>(lag),
          ptr<double>(lse), ptr<double>(rowDot), ptr<double>(dO), mutablePtr<double>(dA),
          mutablePtr<double>(dB), mutablePtr<double>(dV), mutablePtr<double>(dLag), stream);
    variable_list grads = {dA, dB, dV};
    if (hasLag) grads.push_back(dLag);
    grads.emplace_back();  // the tile
    return grads;
  }
};

// The bias as a lag table (H, T): entry d is b(pos[T-1], pos[T-1-d]) = b at lag d, built under
// the caller's grad mode so that its gradient reaches the family's parameters; undefined when the
// family has no bias. Every relative bias PosLab has is a function of qPos - kPos (ALiBi, RoPE +
// ALiBi, PJ-bias: docs/MATH.md), and the model's positions are an arange (unit steps), so row
// T - 1 holds every lag. Nothing is read back to the host: the step stays asynchronous. A family
// whose bias were not a function of the lag would fail test_fused_attention_cuda's comparison
// with the float64 reference.
at::Tensor lagTable(const TrainedScore& score, const at::Tensor& pos, int64_t heads,
                    at::ScalarType dtype) {
  if (!score.bias) return {};
  const int64_t T = pos.size(0);
  at::Tensor row = score.bias(pos.narrow(0, T - 1, 1), pos, dtype);  // (H, 1, T)
  if (!row.defined()) return {};
  return row.select(1, 0).flip({-1}).expand({heads, T}).contiguous();  // (H, T)
}

}  // namespace

bool cudaAttentionKernelsBuilt() {
  return true;
}

std::string cudaAttentionRefusal(const TrainedScore& score, const at::Tensor& pos,
                                 const at::Tensor& v) {
  if (!v.is_cuda()) return "the tensors are not on a CUDA device";
  if (!score.fq.defined()) return "the direct form (the CUDA kernel takes the factorized form)";
  if (v.scalar_type() != at::kFloat && v.scalar_type() != at::kDouble)
    return "dtype is neither float32 nor float64";
  if (score.fq.scalar_type() != v.scalar_type() || score.fk.scalar_type() != v.scalar_type())
    return "fq, fk and v differ in dtype";
  if (v.size(2) == 0) return "an empty sequence";
  const cuda::AttentionShape s = shapeOf(score.fq, v);
  if (cuda::fusedAttentionTile(s, static_cast<int>(v.element_size())) == 0)
    return "feature size " + std::to_string(s.features) + " and head size " +
           std::to_string(s.headSize) + " exceed the kernel's shared memory";
  if (s.batch * s.heads > 65535) return "batch * heads is over 65535";
  return "";
}

at::Tensor cudaFusedCausalAttention(const TrainedScore& score, double scale, const at::Tensor& pos,
                                    const at::Tensor& v) {
  if (!v.is_cuda() || !score.fq.defined()) return {};
  if (v.scalar_type() != at::kFloat && v.scalar_type() != at::kDouble) return {};
  if (score.fq.scalar_type() != v.scalar_type() || score.fk.scalar_type() != v.scalar_type())
    return {};
  if (v.size(2) == 0 || v.size(0) * v.size(1) > 65535) return {};
  at::Tensor a = (scale == 1.0 ? score.fq : score.fq * scale).contiguous();  // (B, H, T, F)
  at::Tensor b = score.fk.contiguous();
  at::Tensor vc = v.contiguous();
  const int tile = cuda::fusedAttentionTile(shapeOf(a, vc), static_cast<int>(vc.element_size()));
  if (tile == 0) return {};
  at::Tensor lag = lagTable(score, pos.to(v.device()), v.size(1), v.scalar_type());
  std::vector<at::Tensor> inputs = {a, b, vc};
  if (lag.defined()) inputs.push_back(lag);
  bool anyGrad = false;
  for (const at::Tensor& t : inputs) anyGrad = anyGrad || t.requires_grad();
  if (!at::GradMode::is_enabled() || !anyGrad) return runForward(a, b, vc, lag, tile).first;
  return CudaAttentionFunction::apply(at::TensorList(inputs), static_cast<int64_t>(tile));
}

}  // namespace poslab
