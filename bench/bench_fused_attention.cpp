// poslab_bench_fused_attention: training step time of the fused attention kernel
// (model/fused_attention.h) against the reference path (causalAttention on the BlockScorer), in
// the same run, with peak memory per configuration and MFU against a matrix-multiply peak
// measured in the same run (numbers in docs/PERFORMANCE.md).
//
// Each (family, path) runs in a child process (this program with --child) so that its peak RSS
// (getrusage ru_maxrss) is its own; the child times `steps` calls of Trainer::step() after
// `warmup` untimed ones. The path is the run's run.attention (model/attention_path.h). The parent
// prints one table row per family: seconds per step of each path (wall and CPU: on a loaded machine
// CPU seconds are the steadier measure), their ratios, peak RSS of each, and the fused path's MFU:
// model FLOPs per wall second against the peak of all threads, and model FLOPs per CPU second
// against the one-thread peak (how well each core's time is used, whatever share of the machine the
// run got).
//
// Model FLOPs per step (no recomputation counted; fwd + bwd = 3x fwd):
//   linear layers: 6 * tokens * (layers * (4 C^2 + 2 mlp C^2) + C * vocab)
//   attention:     6 * layers * B * H * T^2 * hs   (QK^T and PV, causal half)
// The direct-form families do more work per score than this count (one product per jet order),
// so their MFU is a lower bound.
//
// Example (the kernel-LM paper configuration; the default):
//   nice -n 10 build/bench/poslab_bench_fused_attention --families rope,jordan-stabilized
#include <ATen/ATen.h>
#include <sys/resource.h>
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tasks/task.h"
#include "train/trainer.h"
#include "util/threads.h"

namespace {

struct Options {
  std::vector<std::string> families = {"rope", "jordan-stabilized-abs", "direct-sum",
                                       "jordan-stabilized"};
  long long length = 1024, batch = 24, dModel = 128, heads = 4, layers = 3, mlp = 2;
  long long steps = 2, warmup = 1;        // fused path
  long long refSteps = 1, refWarmup = 1;  // reference path (about 30 s a step at T = 1024)
  bool skipReference = false;
  bool sdpa = false;  // also time run.attention sdpa (LibTorch 2.1+: plain dot-product families)
  bool recompute = false;  // also time the fused path with run.recompute_activations
  // Also time the fused kernel with the per-tile direct form instead of its lag-weighted form
  // (run.attention fused-direct): the direct-form families' path before 2026-12-04.
  bool directTiles = false;
  // Child mode: one (family, path) configuration, printed as "seconds_per_step maxrss_kb".
  bool child = false;
  std::string family = "rope", path = "fused";
  bool childRecompute = false;  // the child's run.recompute_activations
};

// CPU seconds of this process so far (all threads): on a loaded machine a steadier measure of the
// work than wall time.
double cpuSeconds() {
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

poslab::TrainConfig trainConfig(const Options& o) {
  poslab::TrainConfig cfg;
  cfg.task.id = "kernel-lm";
  cfg.task.trainLength = o.length;
  cfg.model.family = o.family;
  cfg.model.dModel = o.dModel;
  cfg.model.heads = o.heads;
  cfg.model.layers = o.layers;
  cfg.model.mlpRatio = o.mlp;
  cfg.optim.batch = o.batch;
  cfg.run.steps = 1000;
  cfg.run.evalEvery = 0;
  cfg.run.evalLengths = {o.length};
  cfg.run.device = "cpu";
  cfg.run.recomputeActivations = o.childRecompute;
  cfg.run.attention = o.path;  // "fused", "sdpa", "fused-direct" or "reference" (attention_path.h)
  return cfg;
}

int runChild(const Options& o) {
  poslab::configureThreads();
  poslab::Trainer trainer(trainConfig(o));
  const bool ref = o.path == "reference";
  for (long long i = 0; i < (ref ? o.refWarmup : o.warmup); ++i) trainer.step();
  const long long steps = ref ? o.refSteps : o.steps;
  const auto t0 = std::chrono::steady_clock::now();
  const double c0 = cpuSeconds();
  for (long long i = 0; i < steps; ++i) trainer.step();
  const double perStep = secondsSince(t0) / static_cast<double>(steps);
  const double cpuPerStep = (cpuSeconds() - c0) / static_cast<double>(steps);
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  std::cout << perStep << ' ' << cpuPerStep << ' ' << ru.ru_maxrss << std::endl;
  return 0;
}

// Float32 matrix-multiply peak, GFLOP/s: n x n products, one per thread at once (each on its
// single-threaded BLAS, as the fused kernel and the threaded linear layers run them), best of a
// few repetitions. Plain std::threads: this file is not compiled with OpenMP, so at::parallel_for
// here would run on one thread.
double matmulPeak(int threads, int64_t n = 1024) {
  std::vector<at::Tensor> a, b, c;
  for (int t = 0; t < threads; ++t) {
    a.push_back(at::randn({n, n}));
    b.push_back(at::randn({n, n}));
    c.push_back(at::empty({n, n}));
  }
  double best = 1e30;
  for (int rep = 0; rep < 5; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> workers;
    for (int t = 1; t < threads; ++t)
      workers.emplace_back([&, t] { at::mm_out(c[t], a[t], b[t]); });
    at::mm_out(c[0], a[0], b[0]);
    for (auto& w : workers) w.join();
    best = std::min(best, secondsSince(t0));
  }
  return 2.0 * n * n * n * threads / best / 1e9;
}

double modelFlops(const Options& o, long long vocab) {
  const double tokens = static_cast<double>(o.batch * o.length), C = static_cast<double>(o.dModel);
  const double hs = C / static_cast<double>(o.heads);
  const double linear =
      6.0 * tokens * (o.layers * (4 * C * C + 2 * o.mlp * C * C) + C * static_cast<double>(vocab));
  const double attention = 6.0 * o.layers * o.batch * o.heads * static_cast<double>(o.length) *
                           static_cast<double>(o.length) * hs;
  return linear + attention;
}

struct ChildResult {
  double seconds = 0, cpu = 0;  // wall and CPU seconds per step
  long long maxrssKb = 0;
  bool ok = false;
};

ChildResult runInChild(const std::string& self, const Options& o, const std::string& family,
                       const std::string& path, bool recompute = false) {
  std::ostringstream cmd;
  cmd << self << " --child --family " << family << " --path " << path << " --T " << o.length
      << " --batch " << o.batch << " --d-model " << o.dModel << " --heads " << o.heads
      << " --layers " << o.layers << " --mlp " << o.mlp << " --steps " << o.steps << " --warmup "
      << o.warmup << " --ref-steps " << o.refSteps << " --ref-warmup " << o.refWarmup;
  if (recompute) cmd << " --child-recompute";
  ChildResult r;
  FILE* f = popen(cmd.str().c_str(), "r");
  if (!f) return r;
  r.ok = std::fscanf(f, "%lf %lf %lld", &r.seconds, &r.cpu, &r.maxrssKb) == 3;
  r.ok = pclose(f) == 0 && r.ok;
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"Fused attention vs the reference path: step time, peak memory, MFU."};
  app.add_option("--families", o.families, "families to time")->delimiter(',');
  app.add_option("--T", o.length, "tokens per sequence")->check(CLI::PositiveNumber);
  app.add_option("--batch", o.batch, "sequences per step")->check(CLI::PositiveNumber);
  app.add_option("--d-model", o.dModel, "residual width C")->check(CLI::PositiveNumber);
  app.add_option("--heads", o.heads, "attention heads H")->check(CLI::PositiveNumber);
  app.add_option("--layers", o.layers, "transformer blocks")->check(CLI::PositiveNumber);
  app.add_option("--mlp", o.mlp, "MLP hidden = mlp * C")->check(CLI::PositiveNumber);
  app.add_option("--steps", o.steps, "timed steps, fused path")->check(CLI::PositiveNumber);
  app.add_option("--warmup", o.warmup, "untimed steps first, fused path");
  app.add_option("--ref-steps", o.refSteps, "timed steps, reference path")
      ->check(CLI::PositiveNumber);
  app.add_option("--ref-warmup", o.refWarmup, "untimed steps first, reference path");
  app.add_flag("--skip-reference", o.skipReference, "time the fused path only");
  app.add_flag("--child", o.child, "internal: run one configuration");
  app.add_option("--family", o.family, "internal: the child's family");
  app.add_option("--path", o.path, "internal: the child's path (fused or reference)")
      ->check(CLI::IsMember({"fused", "reference", "sdpa", "fused-direct"}));
  app.add_flag("--sdpa", o.sdpa,
               "also time at::scaled_dot_product_attention for the plain dot-product families "
               "(run.attention sdpa; LibTorch 2.1+; other families run the fused path)");
  app.add_flag("--recompute", o.recompute,
               "also time the fused path with every block recomputed in the backward "
               "(run.recompute_activations): its step time and peak memory");
  app.add_flag("--direct-tiles", o.directTiles,
               "also time the fused kernel on the per-tile direct form (run.attention "
               "fused-direct; the lag-weighted form off)");
  app.add_flag("--child-recompute", o.childRecompute, "internal: the child's recomputation");
  CLI11_PARSE(app, argc, argv);

  try {
    if (o.child) return runChild(o);
    const int threads = poslab::configureThreads();
    const double peak1 = matmulPeak(1), peakN = matmulPeak(threads);
    const long long vocab = poslab::Trainer(trainConfig(o)).evalTask().vocabSize();
    const double flops = modelFlops(o, vocab);
    std::printf(
        "B %lld T %lld C %lld H %lld layers %lld mlp %lldx, %d threads; model %.1f GFLOP "
        "per step; matmul peak %.1f GFLOP/s on 1 thread, %.1f on %d\n",
        o.batch, o.length, o.dModel, o.heads, o.layers, o.mlp, threads, flops / 1e9, peak1, peakN,
        threads);
    std::printf("%-22s %9s %9s %7s %9s %9s %7s %7s %7s %6s %6s\n", "family", "ref s", "fused s",
                "ratio", "ref cpu", "fused cpu", "ratio", "ref MB", "fus MB", "MFU", "MFUcpu");
    for (const std::string& family : o.families) {
      ChildResult ref;
      if (!o.skipReference) ref = runInChild(argv[0], o, family, "reference");
      const ChildResult fused = runInChild(argv[0], o, family, "fused");
      if (!fused.ok || (!o.skipReference && !ref.ok)) {
        std::printf("%-24s failed\n", family.c_str());
        continue;
      }
      std::printf("%-22s %9.3f %9.3f %7.2f %9.3f %9.3f %7.2f %7.0f %7.0f %5.1f%% %5.1f%%\n",
                  family.c_str(), ref.ok ? ref.seconds : NAN, fused.seconds,
                  ref.ok ? ref.seconds / fused.seconds : NAN, ref.ok ? ref.cpu : NAN, fused.cpu,
                  ref.ok ? ref.cpu / fused.cpu : NAN, ref.ok ? ref.maxrssKb / 1024.0 : NAN,
                  fused.maxrssKb / 1024.0, 100.0 * flops / fused.seconds / (peakN * 1e9),
                  100.0 * flops / fused.cpu / (peak1 * 1e9));
      if (o.recompute) {
        const ChildResult r = runInChild(argv[0], o, family, "fused", /*recompute=*/true);
        if (r.ok)
          std::printf("%-22s recompute %9.3f s per step (%.2fx the fused path's time), %7.0f MB\n",
                      "", r.seconds, r.seconds / fused.seconds, r.maxrssKb / 1024.0);
      }
      if (o.directTiles) {
        const ChildResult direct = runInChild(argv[0], o, family, "fused-direct");
        if (direct.ok)
          std::printf(
              "%-22s per-tile direct form %9.3f s per step (%.2fx the fused path's time),"
              " %7.0f MB\n",
              "", direct.seconds, direct.seconds / fused.seconds, direct.maxrssKb / 1024.0);
      }
      if (o.sdpa) {
        const ChildResult sdpa = runInChild(argv[0], o, family, "sdpa");
        if (sdpa.ok)
          std::printf("%-22s sdpa %9.3f s per step (%.2fx the fused path), %7.0f MB\n", "",
                      sdpa.seconds, sdpa.seconds / fused.seconds, sdpa.maxrssKb / 1024.0);
      }
      std::fflush(stdout);
    }
  } catch (const std::exception& e) {
    std::cerr << "poslab_bench_fused_attention: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
