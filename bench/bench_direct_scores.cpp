// poslab_bench_direct_scores: the direct form's two ways of weighting block products
// (jordanDirectScores with DirectScoring::Auto, one matmul per order over all blocks, against
// DirectScoring::PerBlock, one (Tq, Tk) product per block), measured in the same run on the same
// inputs, forward and backward, for the stabilized Jordan layout of a head of 64 (16 blocks of
// order 2). Prints one line per shape with both times and the ratio.
// Example: POSLAB_THREADS=1 build/bench/poslab_bench_direct_scores
#include <ATen/ATen.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "encodings/jordan_blocks.h"
#include "util/threads.h"

namespace {

poslab::JordanLayout stabilizedLayout(long long D) {
  const long long blocks = D / 4;
  std::vector<double> gamma(blocks, 1e-4), omega(blocks), shear(blocks);
  for (long long b = 0; b < blocks; ++b) {
    omega[b] = std::pow(10000.0, -2.0 * b / D);
    shear[b] = 0.05 * (b % 3 - 1);
  }
  poslab::JordanLayout layout;
  layout.dim = D;
  layout.groups.push_back(
      poslab::makeJordanGroup(0, 2, gamma, omega, shear, poslab::ShearKind::Saturating, 64));
  return layout;
}

// Mean seconds of forward + backward over `reps` (after two untimed calls).
double timeScores(const poslab::JordanLayout& layout, const at::Tensor& q, const at::Tensor& k,
                  const at::Tensor& pos, poslab::DirectScoring how, int reps) {
  auto once = [&] {
    at::Tensor qg = q.detach().requires_grad_(), kg = k.detach().requires_grad_();
    poslab::jordanDirectScores(layout, qg, kg, pos, pos, how).sum().backward();
  };
  once();
  once();
  const auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < reps; ++r) once();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / reps;
}

}  // namespace

int main() {
  const int threads = poslab::configureThreads();
  struct Shape {
    long long B, H, T;
    int reps;
    const char* what;
  };
  const Shape shapes[] = {{32, 1, 64, 50, "training step of the jordan-kernel-lm preset"},
                          {32, 4, 64, 20, "training step of the default model"},
                          {1, 4, 1024, 5, "one 1,024-token chunk of an evaluation"}};
  std::printf("direct form, stabilized Jordan, head dim 64, float32, %d thread(s)\n", threads);
  for (const auto& s : shapes) {
    const long long D = 64;
    at::manual_seed(0);
    at::Tensor q = at::randn({s.B, s.H, s.T, D});
    at::Tensor k = at::randn({s.B, s.H, s.T, D});
    at::Tensor pos = at::arange(static_cast<int64_t>(s.T), at::TensorOptions().dtype(at::kLong));
    const auto layout = stabilizedLayout(D);
    const double perBlock = timeScores(layout, q, k, pos, poslab::DirectScoring::PerBlock, s.reps);
    const double fast = timeScores(layout, q, k, pos, poslab::DirectScoring::Auto, s.reps);
    std::printf(
        "B %lld H %lld T %lld (%s): per block %.2f ms, one matmul per order %.2f ms, %.1fx\n", s.B,
        s.H, s.T, s.what, perBlock * 1e3, fast * 1e3, perBlock / fast);
  }
  return 0;
}
