// CUDA tensors in the factorized form go to PosLab's CUDA kernel where this build has it
// (fused_attention_cuda.h); the sdpa path (model/attention_path.h) sends the plain dot-product
// families to LibTorch 2.x's at::scaled_dot_product_attention; everything else runs the tiles
// below, on the tensors' device.
#include "model/fused_attention.h"

#include <ATen/ATen.h>
#include <torch/csrc/autograd/autograd.h>
#include <torch/csrc/autograd/custom_function.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "model/fused_attention_cuda.h"
#include "model/tile_terms.h"
#include "util/parallel_for.h"
#include "util/torch_compat.h"

namespace poslab {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// Elements of one batch slice's (H, qn, kn) work per step of a thread's loop: the slice of
// batch elements a thread handles at once is sized to about this, so the tile's temporaries
// stay in cache (64 Ki float32 = 256 KB).
constexpr int64_t kSliceElements = 64 * 1024;

// (bn, H, n, c) -> (bn H, n, c) for the batched products: a view where the layout allows, else
// a copy (read-only operands).
at::Tensor flat(const at::Tensor& t) {
  return t.reshape({t.size(0) * t.size(1), t.size(2), t.size(3)});
}
// The same for a tensor written in place: always a view (the accumulators' layouts allow it).
at::Tensor flatView(const at::Tensor& t) {
  return t.view({t.size(0) * t.size(1), t.size(2), t.size(3)});
}

struct TileRange {
  int64_t q0, qn, k0, kn;
};

// The parts of a tile's logits that every batch element shares or that the family computes for
// the whole batch at once.
struct TileExtra {
  at::Tensor direct;  // direct form: scale * s + bias, (B, H, qn, kn); undefined when factorized
  at::Tensor bias;    // factorized form with a bias: (H, qn, kn); else undefined
  at::Tensor future;  // (qn, kn) bool, true where j > i; undefined when the tile has none
};

// Everything the backward needs besides the incoming gradient. Held by the autograd context as a
// capsule; it keeps the inputs (not the output: that would be a reference cycle).
struct Plan : torch::CustomClassHolder {
  TrainedScore score;
  double scale = 1.0;
  at::Tensor pos;               // (T) int64
  std::vector<TileTerm> terms;  // the products of the tiles' logits (tile_terms.h); empty: direct
  at::Tensor a, b;              // direct form: q, k (B, H, T, hs); else undefined
  at::Tensor v;                 // (B, H, T, hs)
  std::vector<at::Tensor> params;  // position parameters that require grad
  int64_t tile = kFusedAttentionTile;
  at::Tensor out;  // O (B, H, T, hs), detached from the graph
  at::Tensor lse;  // log sum_j exp(s_ij) (B, H, T)
  // The backward re-runs the tiles' direct scores or bias under autograd (a graph input
  // requires grad). When the whole sequence is one tile, the forward builds that graph once and
  // keeps it here (O(T^2) = O(tile^2) memory): short sequences pay no recomputation.
  bool needsGraph = false;
  at::Tensor singleTileBuilt;
  TileExtra singleTile;

  // The tiles' scores are the terms' products (the factorized form, or a lag-weighted direct
  // form); else the direct form is evaluated per tile.
  bool factorized() const { return !terms.empty(); }
  int64_t length() const { return v.size(2); }
};

// The tile's logit pieces; with `graph` the direct scores and the bias are built under autograd
// (for the backward) and returned in graphOut, the values detached in the TileExtra.
TileExtra tileExtra(const Plan& p, const TileRange& t, bool graph, at::Tensor* graphOut) {
  TileExtra e;
  at::Tensor qPos = p.pos.narrow(0, t.q0, t.qn), kPos = p.pos.narrow(0, t.k0, t.kn);
  if (t.k0 + t.kn - 1 > t.q0) e.future = qPos.unsqueeze(1) < kPos.unsqueeze(0);
  at::AutoGradMode mode(graph);
  at::Tensor bias;
  if (p.score.bias) bias = p.score.bias(qPos, kPos, p.v.scalar_type());  // (H, qn, kn)
  at::Tensor built;
  if (!p.factorized()) {
    at::Tensor s = p.score.direct(t.q0, t.qn, t.k0, t.kn);  // (B, H, qn, kn)
    if (p.scale != 1.0) s = s * p.scale;
    if (bias.defined()) s = s + bias.unsqueeze(0);
    built = s;
    e.direct = graph ? s.detach() : s;
  } else if (bias.defined()) {
    built = bias;
    e.bias = graph ? bias.detach() : bias;
  }
  if (graphOut) *graphOut = built;
  return e;
}

// Logits of batch elements [b0, b0 + bn) for one tile: (bn, H, qn, kn), -inf where j > i.
at::Tensor tileLogits(const Plan& p, const TileExtra& e, const TileRange& t, int64_t b0,
                      int64_t bn) {
  at::Tensor s;
  if (p.factorized()) {
    const int64_t m = (t.q0 - t.k0) / p.tile;  // the tiles' distance in tiles
    for (const TileTerm& term : p.terms) {
      at::Tensor aq = term.a.narrow(0, b0, bn).narrow(2, t.q0, t.qn);  // (bn, H, qn, F)
      at::Tensor bk = term.b.narrow(0, b0, bn).narrow(2, t.k0, t.kn);  // (bn, H, kn, F)
      if (term.scale.defined()) aq = aq * term.scale.select(0, m);     // (Hs, 1, F)
      at::Tensor st = at::matmul(aq, bk.transpose(-1, -2));
      if (term.lag.defined()) st.mul_(term.lag.select(0, m).narrow(0, 0, t.qn).narrow(1, 0, t.kn));
      s = s.defined() ? s.add_(st) : st;
    }
    if (e.bias.defined()) s.add_(e.bias.unsqueeze(0));
  } else {
    s = e.direct.narrow(0, b0, bn);
  }
  if (e.future.defined()) s = s.masked_fill(e.future, -std::numeric_limits<double>::infinity());
  return s;
}

// Runs body(b0, bn) over the batch, split across the intra-op threads and, within a thread, into
// slices of about kSliceElements tile elements.
template <typename Body>
void forBatchSlices(int64_t B, int64_t elementsPerBatch, const Body& body) {
  const int64_t slice =
      std::max<int64_t>(1, kSliceElements / std::max<int64_t>(1, elementsPerBatch));
  // One slice (an evaluation of one long sequence): no parallel region. Every thread would
  // enter it and meet at its barrier for one thread's work, once per tile: on a loaded machine
  // each barrier can wait out a time slice (one 32,768-token evaluation took 144 s instead of
  // 13 s at two threads beside a compile).
  if (B <= slice) {
    body(0, B);
    return;
  }
  parallelFor(0, B, /*grain=*/1, [&](int64_t begin, int64_t end) {
    for (int64_t b0 = begin; b0 < end; b0 += slice) body(b0, std::min(slice, end - b0));
  });
}

std::vector<TileRange> rowTiles(int64_t T, int64_t tile, int64_t q0) {
  std::vector<TileRange> out;
  const int64_t qn = std::min(tile, T - q0);
  for (int64_t k0 = 0; k0 < q0 + qn; k0 += tile)
    out.push_back({q0, qn, k0, std::min(tile, q0 + qn - k0)});
  return out;
}

// The forward pass: fills p.out and p.lse. No autograd.
void forwardTiles(Plan& p) {
  at::NoGradGuard noGrad;
  const int64_t B = p.v.size(0), H = p.v.size(1), T = p.length(), hs = p.v.size(3);
  auto opts = p.v.options();
  p.out = at::empty({B, H, T, hs}, opts);
  p.lse = at::empty({B, H, T}, opts);
  for (int64_t q0 = 0; q0 < T; q0 += p.tile) {
    const int64_t qn = std::min(p.tile, T - q0);
    at::Tensor m = at::full({B, H, qn}, -std::numeric_limits<double>::infinity(), opts);
    at::Tensor l = at::zeros({B, H, qn}, opts);
    at::Tensor acc = at::zeros({B, H, qn, hs}, opts);
    for (const TileRange& t : rowTiles(T, p.tile, q0)) {
      const bool single = t.qn == T && p.needsGraph;
      const TileExtra e = tileExtra(p, t, /*graph=*/single, single ? &p.singleTileBuilt : nullptr);
      if (single) p.singleTile = e;
      forBatchSlices(B, H * t.qn * t.kn, [&](int64_t b0, int64_t bn) {
        at::Tensor s = tileLogits(p, e, t, b0, bn);  // (bn, H, qn, kn)
        at::Tensor mOld = m.narrow(0, b0, bn), lv = l.narrow(0, b0, bn);
        at::Tensor mNew = at::maximum(mOld, s.amax(-1));       // finite: key 0 is in the first tile
        at::Tensor w = at::sub(s, mNew.unsqueeze(-1)).exp_();  // (bn, H, qn, kn)
        at::Tensor corr = at::sub(mOld, mNew).exp_();
        lv.mul_(corr).add_(w.sum(-1));
        at::Tensor av = acc.narrow(0, b0, bn);
        av.mul_(corr.unsqueeze(-1));
        flatView(av).baddbmm_(flat(w), flat(p.v.narrow(0, b0, bn).narrow(2, t.k0, t.kn)));
        mOld.copy_(mNew);
      });
    }
    p.out.narrow(2, q0, qn).copy_(acc / l.unsqueeze(-1));
    p.lse.narrow(2, q0, qn).copy_(m + l.log());
  }
}

// Adds autograd::grad(outputs, inputs, gradOutputs) into sums (undefined entries start at 0).
void accumulateGrad(const variable_list& outputs, const variable_list& gradOutputs,
                    const variable_list& inputs, variable_list& sums) {
  if (outputs.empty() || inputs.empty()) return;
  // retain_graph: the tiles' scores may use tensors of the forward graph (a family's constrained
  // parameters) whose own backward still has to run for the rest of the model.
  variable_list g = torch::autograd::grad(outputs, inputs, gradOutputs, /*retain_graph=*/true,
                                          /*create_graph=*/false, /*allow_unused=*/true);
  for (size_t i = 0; i < g.size(); ++i) {
    if (!g[i].defined()) continue;
    sums[i] = sums[i].defined() ? sums[i] + g[i] : g[i];
  }
}

// The autograd function's inputs, in order: v; the direct form's q and k, or each term's a, b
// and (where defined) scale; then the position parameters. The backward returns the gradients
// in this order.
std::vector<at::Tensor> functionInputs(const Plan& p) {
  std::vector<at::Tensor> in = {p.v};
  if (!p.factorized()) {
    in.push_back(p.a);
    in.push_back(p.b);
  }
  for (const TileTerm& term : p.terms) {
    in.push_back(term.a);
    in.push_back(term.b);
    if (term.scale.defined()) in.push_back(term.scale);
  }
  in.insert(in.end(), p.params.begin(), p.params.end());
  return in;
}

// Gradient accumulators of one term: da, db like a and b; dscale per batch element and tile
// distance, (B, nTiles, H, F) (a thread writes only its own batch elements), summed at the end.
struct TermGrads {
  at::Tensor da, db, dscale;
};

// One term's share of the tile's backward for batch elements [b0, b0 + bn): ds (bn H, qn, kn)
// the gradient of the tile's logits.
void termBackward(const Plan& p, const TileTerm& term, TermGrads& g, const TileRange& t, int64_t b0,
                  int64_t bn, const at::Tensor& ds) {
  const int64_t H = p.v.size(1), m = (t.q0 - t.k0) / p.tile;
  at::Tensor gs = term.lag.defined()
                      ? ds * term.lag.select(0, m).narrow(0, 0, t.qn).narrow(1, 0, t.kn)
                      : ds;                                              // (bn H, qn, kn)
  at::Tensor aq = flat(term.a.narrow(0, b0, bn).narrow(2, t.q0, t.qn));  // (bn H, qn, F)
  at::Tensor bk = flat(term.b.narrow(0, b0, bn).narrow(2, t.k0, t.kn));  // (bn H, kn, F)
  at::Tensor da = flatView(g.da.narrow(0, b0, bn).narrow(2, t.q0, t.qn));
  at::Tensor db = flatView(g.db.narrow(0, b0, bn).narrow(2, t.k0, t.kn));
  if (!term.scale.defined()) {
    da.baddbmm_(gs, bk);
    db.baddbmm_(gs.transpose(1, 2), aq);
    return;
  }
  const int64_t F = aq.size(2);
  at::Tensor sc = term.scale.select(0, m).expand({bn, H, 1, F}).reshape({bn * H, 1, F});
  at::Tensor ga = at::bmm(gs, bk);  // d logits / d (a * scale), (bn H, qn, F)
  da.add_(ga * sc);
  db.baddbmm_(gs.transpose(1, 2), aq * sc);
  g.dscale.narrow(0, b0, bn).select(1, m).add_((ga * aq).sum(1).view({bn, H, F}));
}

// The backward pass: the gradients of functionInputs(p), undefined where none.
variable_list backwardTiles(const Plan& p, const at::Tensor& gradOut) {
  const int64_t B = p.v.size(0), H = p.v.size(1), T = p.length();
  at::Tensor dO = gradOut.contiguous();      // (B, H, T, hs)
  at::Tensor rowDot = (dO * p.out).sum(-1);  // (B, H, T): rowsum(dO * O)
  at::Tensor dV = at::zeros_like(p.v);
  std::vector<TermGrads> termGrads;
  for (const TileTerm& term : p.terms) {
    TermGrads g{at::zeros_like(term.a), at::zeros_like(term.b), at::Tensor()};
    if (term.scale.defined())
      g.dscale = at::zeros({B, term.scale.size(0), H, term.a.size(3)}, term.a.options());
    termGrads.push_back(g);
  }
  const std::vector<at::Tensor> inputs = functionInputs(p);
  const size_t firstParam = inputs.size() - p.params.size();
  // Autograd inputs of the re-run tiles: q and k (direct form) and the position parameters.
  variable_list graphInputs, graphSums;
  std::vector<size_t> graphSlot;  // where each graph input's gradient goes in the result
  auto addInput = [&](const at::Tensor& t, size_t slot) {
    if (!t.requires_grad()) return;
    graphInputs.push_back(t);
    graphSlot.push_back(slot);
  };
  if (!p.factorized()) {
    addInput(p.a, 1);
    addInput(p.b, 2);
  }
  for (size_t i = 0; i < p.params.size(); ++i) addInput(p.params[i], firstParam + i);
  graphSums.resize(graphInputs.size());
  const bool needGraph = p.needsGraph && !graphInputs.empty();

  for (int64_t q0 = 0; q0 < T; q0 += p.tile) {
    variable_list rowOutputs, rowGrads;  // one query tile row's re-run scores and their dS
    for (const TileRange& t : rowTiles(T, p.tile, q0)) {
      at::Tensor built = p.singleTileBuilt;
      const TileExtra e =
          built.defined() ? p.singleTile : tileExtra(p, t, needGraph, needGraph ? &built : nullptr);
      const bool keepDs = needGraph && built.defined() && built.requires_grad();
      at::Tensor dS = keepDs ? at::empty({B, H, t.qn, t.kn}, p.v.options()) : at::Tensor();
      at::NoGradGuard noGrad;
      forBatchSlices(B, H * t.qn * t.kn, [&](int64_t b0, int64_t bn) {
        at::Tensor s = tileLogits(p, e, t, b0, bn);  // (bn, H, qn, kn)
        at::Tensor lse = p.lse.narrow(0, b0, bn).narrow(2, t.q0, t.qn);
        at::Tensor w = flat(at::sub(s, lse.unsqueeze(-1)).exp_());          // P (bn H, qn, kn)
        at::Tensor dOi = flat(dO.narrow(0, b0, bn).narrow(2, t.q0, t.qn));  // (bn H, qn, hs)
        at::Tensor vj = flat(p.v.narrow(0, b0, bn).narrow(2, t.k0, t.kn));  // (bn H, kn, hs)
        flatView(dV.narrow(0, b0, bn).narrow(2, t.k0, t.kn)).baddbmm_(w.transpose(1, 2), dOi);
        at::Tensor ds = at::bmm(dOi, vj.transpose(1, 2));  // dP (bn H, qn, kn)
        ds.sub_(flat(rowDot.narrow(0, b0, bn).narrow(2, t.q0, t.qn).unsqueeze(-1))).mul_(w);
        for (size_t n = 0; n < p.terms.size(); ++n)
          termBackward(p, p.terms[n], termGrads[n], t, b0, bn, ds);
        if (keepDs) flatView(dS.narrow(0, b0, bn)).copy_(ds);
      });
      if (!keepDs) continue;
      rowOutputs.push_back(built);
      rowGrads.push_back(p.factorized() ? dS.sum(0) : dS);  // the bias is shared by the batch
    }
    accumulateGrad(rowOutputs, rowGrads, graphInputs, graphSums);
  }
  variable_list grads(inputs.size());
  grads[0] = dV;
  size_t slot = p.factorized() ? 1 : 3;
  for (size_t n = 0; n < p.terms.size(); ++n) {
    grads[slot++] = termGrads[n].da;
    grads[slot++] = termGrads[n].db;
    if (!p.terms[n].scale.defined()) continue;
    at::Tensor dscale = termGrads[n].dscale.sum(0).unsqueeze(2);  // (nTiles, H, 1, F)
    if (p.terms[n].scale.size(1) == 1) dscale = dscale.sum(1, /*keepdim=*/true);
    grads[slot++] = dscale;
  }
  for (size_t i = 0; i < graphInputs.size(); ++i) {
    at::Tensor& g = grads[graphSlot[i]];
    if (!graphSums[i].defined()) continue;
    g = g.defined() ? g + graphSums[i] : graphSums[i];
  }
  return grads;
}

class FusedAttentionFunction : public torch::autograd::Function<FusedAttentionFunction> {
 public:
  // inputs: functionInputs(*plan); returns O (B, H, T, hs).
  static at::Tensor forward(AutogradContext* ctx, at::TensorList inputs,
                            const c10::intrusive_ptr<Plan>& plan) {
    forwardTiles(*plan);
    at::Tensor out = plan->out;
    plan->out = out.detach();  // the output gets a grad_fn; a plan holding it would be a cycle
    ctx->saved_data["plan"] = c10::IValue::make_capsule(plan);
    return out;
  }

  static variable_list backward(AutogradContext* ctx, variable_list gradOutputs) {
    auto plan = c10::static_intrusive_pointer_cast<Plan>(ctx->saved_data["plan"].toCapsule());
    variable_list grads = backwardTiles(*plan, gradOutputs[0]);
    grads.emplace_back();  // the plan
    return grads;
  }
};

// True when the family adds a bias at these positions (a one-element probe, no host read).
bool hasBias(const TrainedScore& score, const at::Tensor& pos, at::ScalarType dtype) {
  if (!score.bias) return false;
  at::Tensor first = pos.narrow(0, 0, 1);
  return score.bias(first, first, dtype).defined();
}

}  // namespace

#ifndef POSLAB_HAVE_CUDA_KERNELS
// A build without a CUDA LibTorch has no CUDA kernels (core/cuda/ is not compiled): CUDA tensors,
// if any, take the generic path below.
bool cudaAttentionKernelsBuilt() {
  return false;
}
std::string cudaAttentionRefusal(const TrainedScore&, const at::Tensor&, const at::Tensor&) {
  return "this build has no CUDA kernels (it was built against a LibTorch without CUDA)";
}
at::Tensor cudaFusedCausalAttention(const TrainedScore&, double, const at::Tensor&,
                                    const at::Tensor&) {
  return {};
}
#endif

at::Tensor fusedCausalAttention(const TrainedScore& score, double scale, const at::Tensor& pos,
                                const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                                const std::vector<at::Tensor>& params, int64_t tile,
                                AttentionPath path) {
  if (tile < 1) throw std::invalid_argument("fused attention: the tile must be at least 1");
  // sdpa (where LibTorch has it): the plain dot-product families run LibTorch's kernel, to
  // compare the two (bench/bench_fused_attention.cpp --sdpa).
  if (path == AttentionPath::kSdpa && compat::kHasScaledDotProductAttention && score.fq.defined() &&
      v.size(2) > 0 && !hasBias(score, pos, v.scalar_type()))
    return compat::causalScaledDotProductAttention(score.fq, score.fk, v, scale);
  // CUDA tensors in the factorized form: PosLab's CUDA kernel (its own tile edge); the rest of
  // the CUDA calls run the generic path below on the GPU.
  if (v.is_cuda() && score.fq.defined()) {
    at::Tensor y = cudaFusedCausalAttention(score, scale, pos, v);
    if (y.defined()) return y;
  }
  auto plan = c10::make_intrusive<Plan>();
  plan->score = score;
  plan->scale = scale;
  plan->pos = pos;
  plan->tile = tile;
  plan->v = v.contiguous();
  if (score.fq.defined()) {
    plan->terms.push_back({(scale == 1.0 ? score.fq : score.fq * scale).contiguous(),
                           score.fk.contiguous(), at::Tensor(), at::Tensor()});
  } else if (score.lagTerms && path != AttentionPath::kFusedDirect) {
    // A direct form with lag-weighted products runs as products per tile (tile_terms.h).
    TiledTerms tiled = tileLagTerms(score.lagTerms(), scale, pos, v.scalar_type(), tile);
    for (TileTerm& term : tiled.terms) {
      term.a = term.a.contiguous();
      term.b = term.b.contiguous();
      plan->terms.push_back(std::move(term));
    }
    if (!tiled.terms.empty()) plan->tile = tiled.tile;
  }
  if (plan->factorized()) {
    plan->score.direct = nullptr;
  } else {
    plan->a = q;
    plan->b = k;
  }
  // Only the bias and the direct form read the position parameters inside the kernel.
  if (!plan->factorized() || score.bias)
    for (const at::Tensor& t : params)
      if (t.requires_grad()) plan->params.push_back(t);

  const std::vector<at::Tensor> inputs = functionInputs(*plan);
  bool anyGrad = false;
  for (const at::Tensor& t : inputs) anyGrad = anyGrad || t.requires_grad();
  if (!at::GradMode::is_enabled() || !anyGrad) {
    forwardTiles(*plan);
    return plan->out;
  }
  // params holds only what the bias or the direct form reads and requires grad.
  plan->needsGraph =
      !plan->params.empty() || (!plan->factorized() && (q.requires_grad() || k.requires_grad()));
  return FusedAttentionFunction::apply(at::TensorList(inputs), plan);
}

}  // namespace poslab
