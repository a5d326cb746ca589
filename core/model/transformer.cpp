#include "model/transformer.h"

#include <cmath>

#include "model/recompute.h"
#include "model/threaded_linear.h"

namespace poslab {

RMSNormImpl::RMSNormImpl(int64_t dim) {
  weight = register_parameter("weight", torch::ones({dim}));
}

torch::Tensor RMSNormImpl::forward(const torch::Tensor& x) {
  return x * torch::rsqrt(x.pow(2).mean(-1, /*keepdim=*/true) + 1e-6) * weight;
}

namespace {
torch::nn::Linear makeLinear(const ModelConfig& cfg, int64_t in, int64_t out) {
  return torch::nn::Linear(torch::nn::LinearOptions(in, out).bias(cfg.bias));
}

// A finite stand-in for -inf on the diagonal when a query may not attend to itself: every kept
// logit is far above it, so its weight is exactly 0 in float32 and float64, and a row with no
// other key (position 0) stays finite (its output is then set to 0, as the reference's masked
// softmax gives).
constexpr double kSelfMaskedLogit = -1e30;

// The family's bias plus kSelfMaskedLogit where key == query: (H, qn, kn).
BiasFn excludingSelf(BiasFn inner, int64_t heads) {
  return [inner = std::move(inner), heads](const at::Tensor& qPos, const at::Tensor& kPos,
                                           at::ScalarType dtype) {
    at::Tensor self = qPos.unsqueeze(1) == kPos.unsqueeze(0);  // (qn, kn)
    at::Tensor mask =
        at::zeros(self.sizes(), qPos.options().dtype(dtype)).masked_fill(self, kSelfMaskedLogit);
    at::Tensor b = inner ? inner(qPos, kPos, dtype) : at::Tensor();
    return b.defined() ? b + mask.unsqueeze(0)
                       : mask.unsqueeze(0).expand({heads, mask.size(0), mask.size(1)}).contiguous();
  };
}

torch::nn::AnyModule makeNorm(const ModelConfig& cfg) {
  if (cfg.norm == "layer")
    return torch::nn::AnyModule(torch::nn::LayerNorm(torch::nn::LayerNormOptions({cfg.dModel})));
  return torch::nn::AnyModule(RMSNorm(cfg.dModel));
}
}  // namespace

torch::Tensor causalAttention(const BlockScorer& scorer, const torch::Tensor& v, int64_t block,
                              torch::Tensor* weightsOut) {
  const int64_t T = v.size(2);
  if (T <= block) {
    torch::Tensor w = torch::softmax(scorer(0, T, 0, T), -1);  // (B, H, T, T)
    if (weightsOut) *weightsOut = w;
    return torch::matmul(w, v);
  }
  std::vector<torch::Tensor> outs;
  for (int64_t q0 = 0; q0 < T; q0 += block) {
    const int64_t qn = std::min(block, T - q0);
    torch::Tensor m, l, acc;
    // Key chunks from 0: the first one holds key 0 <= i for every row, so m is finite after it.
    for (int64_t k0 = 0; k0 < q0 + qn; k0 += block) {
      const int64_t kn = std::min(block, q0 + qn - k0);
      torch::Tensor s = scorer(q0, qn, k0, kn);           // (B, H, qn, kn)
      torch::Tensor smax = std::get<0>(s.max(-1, true));  // (B, H, qn, 1)
      torch::Tensor vc = v.narrow(2, k0, kn);
      if (!m.defined()) {
        m = smax;
        torch::Tensor p = torch::exp(s - m);
        l = p.sum(-1, true);
        acc = torch::matmul(p, vc);
      } else {
        torch::Tensor mNew = torch::maximum(m, smax);
        torch::Tensor corr = torch::exp(m - mNew);
        torch::Tensor p = torch::exp(s - mNew);
        l = l * corr + p.sum(-1, true);
        acc = acc * corr + torch::matmul(p, vc);
        m = mNew;
      }
    }
    outs.push_back(acc / l);
  }
  return torch::cat(outs, 2);
}

AttentionImpl::AttentionImpl(const ModelConfig& cfg, long long trainLength)
    : heads(cfg.heads),
      headSize(cfg.headDim()),
      includeSelf(cfg.includeSelf),
      path(parseAttentionPath(defaultAttentionPathName())) {
  qkv = register_module("qkv", makeLinear(cfg, cfg.dModel, 3 * cfg.dModel));
  proj = register_module("proj", makeLinear(cfg, cfg.dModel, cfg.dModel));
  position = register_module("position", PositionModule(cfg, trainLength));
}

void AttentionImpl::freezeQueryKey() {
  const int64_t qkRows = 2 * heads * headSize;
  auto zeroRows = [qkRows](const torch::Tensor& g) {
    torch::Tensor out = g.clone();
    out.narrow(0, 0, qkRows).zero_();
    return out;
  };
  torch::NoGradGuard guard;
  for (torch::Tensor* p : {&qkv->weight, &qkv->bias}) {
    if (!p->defined()) continue;
    p->narrow(0, 0, qkRows).zero_();
    p->register_hook(zeroRows);
  }
}

std::array<torch::Tensor, 3> AttentionImpl::project(const torch::Tensor& x) {
  const int64_t B = x.size(0), T = x.size(1);
  auto parts = applyLinear(qkv, x).view({B, T, 3, heads, headSize}).permute({2, 0, 3, 1, 4});
  return {parts[0], parts[1], parts[2]};
}

torch::Tensor AttentionImpl::forward(const torch::Tensor& x, const torch::Tensor& pos) {
  const int64_t B = x.size(0), T = x.size(1), C = x.size(2);
  auto [q, k, v] = project(x);  // (B, H, T, hs)
  torch::Tensor y;
  TrainedScore score = position->trainedScore(q, k, pos, allowFactorized);
  if (!includeSelf) score.bias = excludingSelf(std::move(score.bias), heads);
  // One tile holds the whole sequence: nothing to stream, so the materialised path (O(T^2) =
  // O(tile^2) memory, no recomputation) is faster; measured 0.82x for the fused kernel at T = 12.
  if (path != AttentionPath::kReference && !recordWeights && T > fusedTile) {
    std::vector<at::Tensor> params = position->parameters();
    y = fusedCausalAttention(score, position->scoreScale(), pos, q, k, v, params, fusedTile, path);
  } else {
    BlockScorer scorer = blockScorer(std::move(score), position->scoreScale(), pos);
    y = causalAttention(scorer, v, block, recordWeights ? &lastWeights : nullptr);
  }
  if (!includeSelf) {
    // Position 0 has no key before it: its output (and recorded weights) are 0.
    torch::Tensor keep = (pos > 0).to(y.scalar_type()).view({1, 1, T, 1});
    y = y * keep;
    if (recordWeights) lastWeights = lastWeights * keep;
  }
  return applyLinear(proj, y.transpose(1, 2).reshape({B, T, C}));
}

BlockImpl::BlockImpl(const ModelConfig& cfg, long long trainLength) {
  norm1 = makeNorm(cfg);
  norm2 = makeNorm(cfg);
  register_module("norm1", norm1.ptr());
  register_module("norm2", norm2.ptr());
  attn = register_module("attn", Attention(cfg, trainLength));
  fc1 = register_module("fc1", makeLinear(cfg, cfg.dModel, cfg.mlpRatio * cfg.dModel));
  fc2 = register_module("fc2", makeLinear(cfg, cfg.mlpRatio * cfg.dModel, cfg.dModel));
}

torch::Tensor BlockImpl::forward(const torch::Tensor& x, const torch::Tensor& pos) {
  torch::Tensor h = x + attn->forward(norm1.forward(x), pos);
  return h + applyLinear(fc2, torch::gelu(applyLinear(fc1, norm2.forward(h))));
}

TinyTransformerImpl::TinyTransformerImpl(const ModelConfig& cfg, long long trainLength)
    : config(cfg) {
  cfg.validate();
  embed = register_module("embed", torch::nn::Embedding(cfg.vocab, cfg.dModel));
  for (long long i = 0; i < cfg.layers; ++i)
    blocks.push_back(register_module("block" + std::to_string(i), Block(cfg, trainLength)));
  finalNorm = makeNorm(cfg);
  register_module("final_norm", finalNorm.ptr());
  if (!cfg.tieEmbedding)
    head = register_module("head", makeLinear(cfg, cfg.dModel, outputLogits()));
  // init "pytorch": the layers keep LibTorch's defaults, which are PyTorch's (the references').
  if (cfg.init == "gpt2") {
    // GPT-2-style initialisation: small normal weights, zero biases. The position modules keep
    // the initial values their family gives (encodings/trainable.h).
    const std::set<const c10::TensorImpl*> positionParams = positionParameterSet();
    for (auto& p : named_parameters()) {
      const auto& name = p.key();
      if (positionParams.count(p.value().unsafeGetTensorImpl())) continue;
      torch::NoGradGuard g;
      if (name.find("bias") != std::string::npos)
        p.value().zero_();
      else if (p.value().dim() == 2)
        p.value().normal_(0.0, 0.02);
    }
  }
  if (cfg.freezeQk)
    for (auto& b : blocks) b->attn->freezeQueryKey();
}

torch::Tensor TinyTransformerImpl::forward(const torch::Tensor& tokens) {
  const int64_t T = tokens.size(1);
  torch::Tensor pos =
      torch::arange(T, torch::TensorOptions().dtype(torch::kLong).device(tokens.device()));
  torch::Tensor x = embed->forward(tokens);
  for (auto& b : blocks) {
    if (recomputeBlocks && torch::GradMode::is_enabled()) {
      x = recomputedInBackward(
          [block = b.ptr(), pos](const at::Tensor& in) { return block->forward(in, pos); }, x,
          b->parameters());
    } else {
      x = b->forward(x, pos);
    }
  }
  x = finalNorm.forward(x);
  if (head) return applyLinear(head, x);
  // Tied: the embedding rows of the logits the model outputs.
  return torch::matmul(x, embed->weight.narrow(0, 0, outputLogits()).t());
}

int64_t TinyTransformerImpl::outputLogits() const {
  return config.answerLogits > 0 ? config.answerLogits : config.vocab;
}

void TinyTransformerImpl::configureAttention(bool allowFactorized, int64_t block,
                                             bool recordWeights) {
  for (auto& b : blocks) {
    b->attn->allowFactorized = allowFactorized;
    b->attn->block = block;
    b->attn->recordWeights = recordWeights;
  }
}

void TinyTransformerImpl::useAttentionPath(AttentionPath path, int64_t tile) {
  for (auto& b : blocks) {
    b->attn->path = path;
    b->attn->fusedTile = tile;
  }
}

void TinyTransformerImpl::useFusedAttention(bool fused, int64_t tile) {
  useAttentionPath(fused ? AttentionPath::kFused : AttentionPath::kReference, tile);
}

std::vector<std::pair<torch::Tensor, torch::Tensor>> TinyTransformerImpl::layerQueriesKeys(
    const torch::Tensor& tokens) {
  const int64_t T = tokens.size(1);
  torch::Tensor pos =
      torch::arange(T, torch::TensorOptions().dtype(torch::kLong).device(tokens.device()));
  torch::Tensor x = embed->forward(tokens);
  std::vector<std::pair<torch::Tensor, torch::Tensor>> out;
  for (size_t i = 0; i < blocks.size(); ++i) {
    auto [q, k, v] = blocks[i]->attn->project(blocks[i]->norm1.forward(x));
    out.emplace_back(q, k);
    if (i + 1 < blocks.size()) x = blocks[i]->forward(x, pos);  // the next layer's input
  }
  return out;
}

std::vector<torch::Tensor> TinyTransformerImpl::attentionWeights() const {
  std::vector<torch::Tensor> out;
  for (const auto& b : blocks) out.push_back(b->attn->lastWeights);
  return out;
}

std::vector<PositionModule> TinyTransformerImpl::positionModules() const {
  std::vector<PositionModule> out;
  for (const auto& b : blocks) out.push_back(b->attn->position);
  return out;
}

std::set<const c10::TensorImpl*> TinyTransformerImpl::positionParameterSet() const {
  std::set<const c10::TensorImpl*> out;
  for (const auto& m : positionModules())
    for (const auto& p : m->parameters()) out.insert(p.unsafeGetTensorImpl());
  return out;
}

int64_t TinyTransformerImpl::parameterCount() const {
  int64_t n = 0;
  for (const auto& p : parameters()) n += p.numel();
  return n;
}

}  // namespace poslab
