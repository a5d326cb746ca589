// PoPE frequency usage of a trained model (docs/MATH.md 4.6): how much of each layer's and head's
// attention score each frequency theta_c carries, measured on sequences of the run's task. The PoPE
// paper's frequency-usage analysis reads the learned query and key magnitudes per frequency across
// layers (a RoPE model starves its high frequencies, a PoPE model spreads over all of them).
//
// With mu_q(s, t, c) = |q'_c| = softplus(q_c) and mu_k(s, u, c) = softplus(k_c) the polar
// magnitudes of layer l, head h (MATH 1.9), S sequences of length T, P = T (T + 1) / 2 causal
// pairs:
//     A(l, h, c) = 1 / (S P) sum_s sum_{u <= t} mu_q(s, t, c) mu_k(s, u, c)
//     usage(l, h, c) = A(l, h, c) / sum_c' A(l, h, c')
// A is the mean amplitude of frequency c's term in s(t, u) = sum_c mu_q mu_k cos((t - u) theta_c -
// delta_c) over the pairs the model attends over; usage is its share (sums to 1 over c).
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
  std::string family;         // the run's family, "pope"
  long long length = 0;       // T of the sequences, e.g. 64
  long long sequences = 0;    // S, e.g. 16
  long long headDim = 0;      // D: the number of frequencies, e.g. 16
  std::vector<double> theta;  // (D) theta_c = base^(-c/D), radians per position, descending
  // [layer][head][c], each (L, H, D):
  std::vector<std::vector<std::vector<double>>> queryMagnitude;  // mean over (s, t) of mu_q
  std::vector<std::vector<std::vector<double>>> keyMagnitude;    // mean over (s, u) of mu_k
  std::vector<std::vector<std::vector<double>>> amplitude;       // A(l, h, c)
  std::vector<std::vector<std::vector<double>>> usage;           // A / sum_c A; sums to 1 over c
  // [layer][c] (L, D): usage averaged over the heads (still sums to 1 over c).
  std::vector<std::vector<double>> layerUsage;
  // [layer] (L): effectiveFrequencies(layerUsage[l]), between 1 and D.
  std::vector<double> layerEffectiveFrequencies;
};

// exp(entropy) of a usage vector, exp(-sum_c p_c ln p_c): D for an even spread over D
// frequencies, 1 when one frequency carries everything; NaN when the shares are not finite.
double effectiveFrequencies(const std::vector<double>& usage);

// Throws InvalidArgument naming the family unless it is PoPE (the only family whose components
// have a content magnitude and a position phase to separate).
void requirePopeFamily(const std::string& family);

// The fast path: batch.tokens (S, T) int64 on the model's device (a task's sample; only the tokens
// are read), processed rowsPerForward sequences per
// forward pass (0: all at once). mu from the family's own transform (popeTransform: the modulus of
// each complex component), the causal pair sum as sum_t mu_q(t) * cumsum_u mu_k(u), float64.
// Runs under NoGradGuard; the caller puts the model in eval mode. Throws InvalidArgument for a
// non-PoPE model or an empty batch.
PopeFrequencyUsage popeFrequencyUsage(TinyTransformerImpl& model, const Batch& batch,
                                      long long rowsPerForward = 0);

// The float64 reference: the same queries and keys, softplus written out per element and the
// explicit double loop over causal pairs u <= t. O(S H D T^2): for tests.
PopeFrequencyUsage popeFrequencyUsageReference(TinyTransformerImpl& model, const Batch& batch);

}  // namespace poslab
