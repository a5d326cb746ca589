// Which attention code a model's forward passes run (RunConfig::attention, saved with every run
// and checkpoint). Every path computes the same softmax attention; they differ in speed and
// memory, and in float rounding (a run's numbers depend on the path, hence its place in the run).
// Plain data, no torch: the UI and sessions carry it.
#pragma once

#include <string>
#include <vector>

namespace poslab {

enum class AttentionPath {
  kFused,        // "fused": model/fused_attention.h, the lag-weighted tiles where a family has them
  kReference,    // "reference": causalAttention on the family's BlockScorer (model/transformer.h)
  kFusedDirect,  // "fused-direct": the fused kernel without the lag-weighted form (per-tile direct
                 // form, as before it existed; bench_fused_attention --direct-tiles)
  kSdpa,  // "sdpa": LibTorch's at::scaled_dot_product_attention for the plain dot-product families
          // (factorized, no bias), the fused kernel for the rest; only where LibTorch has it (2.1+)
};

// The names a run may choose in this build: fused, reference, fused-direct, and sdpa where
// LibTorch has it (util/torch_compat.h kHasScaledDotProductAttention).
std::vector<std::string> attentionPathNames();
std::string attentionPathName(AttentionPath path);
// Throws InvalidArgument for a name attentionPathNames() does not list.
AttentionPath parseAttentionPath(const std::string& name);

// The default of RunConfig::attention: POSLAB_ATTENTION when it names a path this build has (read
// each time, so that a benchmark may set it before building its config), else "fused".
std::string defaultAttentionPathName();

}  // namespace poslab
