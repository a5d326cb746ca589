// Frequency usage of a trained PoPE or RoPE model (docs/MATH.md 4.6): how much of each layer's
// and head's attention score each frequency theta_c carries, measured on sequences of the run's
// task. The PoPE paper's frequency-usage analysis reads the learned query and key magnitudes per
// frequency across layers and compares the two (a RoPE model starves its high frequencies, a PoPE
// model spreads over all of them), so both families are measured the same way.
//
// mu_q(s, t, c), mu_k(s, u, c): the magnitude of frequency c's component of layer l, head h's
// query and key: PoPE's polar magnitude softplus(q_c) (MATH 1.9; D frequencies
// theta_c = base^(-c/D)); RoPE's pair norm |(q_2c, q_2c+1)|, which the rotation keeps (MATH 1.2;
// D/2 frequencies theta_c = base^(-2c/D)). In both the score is
// s(t, u) = sum_c mu_q mu_k cos((t - u) theta_c + phase), the phase PoPE's learned delta_c or
// RoPE's content angle. With S sequences of length T, P = T (T + 1) / 2 causal pairs:
//     A(l, h, c) = 1 / (S P) sum_s sum_{u <= t} mu_q(s, t, c) mu_k(s, u, c)
//     usage(l, h, c) = A(l, h, c) / sum_c' A(l, h, c')
// A is the mean amplitude of frequency c's term in s(t, u) over the pairs the model attends over;
// usage is its share (sums to 1 over c).
//
// The header is torch-free (the result crosses into the UI as plain data); the functions take the
// model and the batch by forward declaration (no torch names at global scope either).
#pragma once

#include <string>
#include <vector>

namespace poslab {

struct Batch;  // tasks/task.h
struct TinyTransformerImpl;

struct PopeFrequencyUsage {
  std::string family;         // the run's family, "pope" or "rope"
  long long length = 0;       // T of the sequences, e.g. 64
  long long sequences = 0;    // S, e.g. 16
  long long headDim = 0;      // D, e.g. 16: PoPE has D frequencies, RoPE D / 2
  std::vector<double> theta;  // (F) theta_c, radians per position, descending; F frequencies
  // [layer][head][c], each (L, H, F):
  std::vector<std::vector<std::vector<double>>> queryMagnitude;  // mean over (s, t) of mu_q
  std::vector<std::vector<std::vector<double>>> keyMagnitude;    // mean over (s, u) of mu_k
  std::vector<std::vector<std::vector<double>>> amplitude;       // A(l, h, c)
  std::vector<std::vector<std::vector<double>>> usage;           // A / sum_c A; sums to 1 over c
  // [layer][c] (L, F): usage averaged over the heads (still sums to 1 over c).
  std::vector<std::vector<double>> layerUsage;
  // [layer] (L): effectiveFrequencies(layerUsage[l]), between 1 and F.
  std::vector<double> layerEffectiveFrequencies;
};

// exp(entropy) of a usage vector, exp(-sum_c p_c ln p_c): D for an even spread over D
// frequencies, 1 when one frequency carries everything; NaN when the shares are not finite.
double effectiveFrequencies(const std::vector<double>& usage);

// The families frequency usage reads, PoPE first: the paper's two (the other families' components
// are not one magnitude times one rotation). A view offers these runs, PoPE's first.
const std::vector<std::string>& frequencyUsageFamilies();
// Throws InvalidArgument naming the family unless it is one of frequencyUsageFamilies().
void requireFrequencyUsageFamily(const std::string& family);
// The family's frequencies in the formula markup, for an axis title: PoPE's D frequencies
// "θ_c = base^{−c/D}", RoPE's D/2 pairs "θ_c = base^{−2c/D}"; empty for another family.
std::string frequencySchedule(const std::string& family);

// The fast path: batch.tokens (S, T) int64 on the model's device (a task's sample; only the tokens
// are read), processed rowsPerForward sequences per
// forward pass (0: all at once). mu from PoPE's own transform (popeTransform: the modulus of each
// complex component) or RoPE's pair norms, the causal pair sum as
// sum_t mu_q(t) * cumsum_u mu_k(u), float64. Runs under NoGradGuard; the caller puts the model in
// eval mode. Throws InvalidArgument for a model of another family or an empty batch.
PopeFrequencyUsage popeFrequencyUsage(TinyTransformerImpl& model, const Batch& batch,
                                      long long rowsPerForward = 0);

// The float64 reference: the same queries and keys, softplus (PoPE) or the pair norm (RoPE)
// written out per element and the explicit double loop over causal pairs u <= t. O(S H D T^2):
// for tests.
PopeFrequencyUsage popeFrequencyUsageReference(TinyTransformerImpl& model, const Batch& batch);

}  // namespace poslab
