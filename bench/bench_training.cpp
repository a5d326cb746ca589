// poslab_bench_training: training throughput of poslab::Trainer, the PosLab half of
// bench/run_training_bench.sh (the other half is bench/python_reference.py, the same model and
// optimiser in plain PyTorch). Trains kernel-lm with the RoPE family (d_model 64, 4 heads,
// 2 layers; batch 32, T 64 by default), untimed warm-up steps first, then times `steps` calls of
// Trainer::step() with std::chrono and prints one JSON line:
//   {"impl":"poslab","tokens_per_s":...,"steps":...,"batch":...,"T":...,"threads":...,...}
// Threads: poslab::configureThreads(), i.e. POSLAB_THREADS or the core count.
// Example: POSLAB_THREADS=2 build/bench/poslab_bench_training --steps 100
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <torch/csrc/autograd/profiler_legacy.h>

#include <chrono>
#include <exception>
#include <iostream>
#include <memory>
#include <string>

#include "train/trainer.h"
#include "util/threads.h"

namespace {

struct BenchOptions {
  long long steps = 100;      // timed optimisation steps
  long long warmupSteps = 5;  // untimed steps first (allocator, thread pool, first-call costs)
  long long batch = 32;       // sequences per step
  long long length = 64;      // T, tokens per sequence
  long long dModel = 64;      // C
  long long heads = 4;        // H
  long long layers = 2;       // transformer blocks
  uint64_t seed = 0;          // model init and data
  std::string trace;          // if set: chrome trace of the timed steps (torch op profiler)
};

poslab::TrainConfig benchConfig(const BenchOptions& o) {
  poslab::TrainConfig cfg;
  cfg.task.id = "kernel-lm";
  cfg.task.trainLength = o.length;
  cfg.model.family = "rope";
  cfg.model.dModel = o.dModel;
  cfg.model.heads = o.heads;
  cfg.model.layers = o.layers;
  cfg.optim.batch = o.batch;
  // The LR schedule spans warm-up + timed steps, as in python_reference.py.
  cfg.run.steps = o.warmupSteps + o.steps;
  cfg.run.evalEvery = 0;
  cfg.run.evalLengths = {o.length};
  cfg.run.device = "cpu";
  cfg.run.seed = o.seed;
  return cfg;
}

}  // namespace

int main(int argc, char** argv) {
  BenchOptions o;
  CLI::App app{"Times poslab::Trainer::step() and prints tokens/s as one JSON line."};
  app.add_option("--steps", o.steps, "timed optimisation steps")->check(CLI::PositiveNumber);
  app.add_option("--warmup-steps", o.warmupSteps, "untimed steps before timing")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--batch", o.batch, "sequences per step")->check(CLI::PositiveNumber);
  app.add_option("--T", o.length, "tokens per sequence")->check(CLI::PositiveNumber);
  app.add_option("--d-model", o.dModel, "residual width C")->check(CLI::PositiveNumber);
  app.add_option("--heads", o.heads, "attention heads H")->check(CLI::PositiveNumber);
  app.add_option("--layers", o.layers, "transformer blocks")->check(CLI::PositiveNumber);
  app.add_option("--seed", o.seed, "model init and data seed");
  app.add_option("--trace", o.trace,
                 "write a chrome://tracing JSON of the timed steps' torch ops (slows them)");
  CLI11_PARSE(app, argc, argv);

  try {
    const int threads = poslab::configureThreads();
    poslab::Trainer trainer(benchConfig(o));
    for (long long i = 0; i < o.warmupSteps; ++i) trainer.step();

    poslab::Snapshot last;
    std::unique_ptr<torch::autograd::profiler::RecordProfile> profile;
    if (!o.trace.empty())
      profile = std::make_unique<torch::autograd::profiler::RecordProfile>(o.trace);
    const auto t0 = std::chrono::steady_clock::now();
    for (long long i = 0; i < o.steps; ++i) last = trainer.step();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    profile.reset();  // writes the trace

    const double tokens = static_cast<double>(o.steps * o.batch * o.length);
    nlohmann::json out = {{"impl", "poslab"},   {"tokens_per_s", tokens / seconds},
                          {"steps", o.steps},   {"batch", o.batch},
                          {"T", o.length},      {"threads", threads},
                          {"seconds", seconds}, {"final_loss", last.loss}};
    std::cout << out.dump() << std::endl;
  } catch (const std::exception& e) {
    std::cerr << "poslab_bench_training: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
