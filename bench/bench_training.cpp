// poslab_bench_training: training throughput of poslab::Trainer, the PosLab half of
// bench/run_training_bench.sh (the other half is bench/python_reference.py, the same model and
// optimiser in plain PyTorch). Trains kernel-lm with the RoPE family (d_model 64, 4 heads,
// 2 layers; batch 32, T 64 by default), untimed warm-up steps first, then times `steps` calls of
// Trainer::step() with std::chrono and prints one JSON line:
//   {"impl":"poslab","tokens_per_s":...,"steps":...,"batch":...,"T":...,"threads":...,...}
// Threads: poslab::configureThreads(), i.e. POSLAB_THREADS or the core count.
// --device cpu|cuda|auto picks the device (cpu by default, as the Python reference); --family
// another family; --eval-length N also times one evaluation of one sequence of N tokens after the
// timed steps and reports its seconds and peak memory (CUDA: the caching allocator's peak of that
// evaluation; CPU: the process's peak resident set, training included).
// Example: POSLAB_THREADS=2 build/bench/poslab_bench_training --steps 100
//          build-pip/bench/poslab_bench_training --device cuda --d-model 128 --layers 3 --batch 24
//            --T 1024 --eval-length 32768   (gpu-check.sh)
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <torch/csrc/autograd/profiler_legacy.h>

#include <sys/resource.h>

#include <torch/cuda.h>

#include <chrono>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <memory>
#include <string>

#include "train/trainer.h"
#include "util/threads.h"

#ifdef POSLAB_HAVE_CUDA_KERNELS
#include <c10/cuda/CUDACachingAllocator.h>
#endif

namespace {

struct BenchOptions {
  long long steps = 100;        // timed optimisation steps
  long long warmupSteps = 5;    // untimed steps first (allocator, thread pool, first-call costs)
  long long batch = 32;         // sequences per step
  long long length = 64;        // T, tokens per sequence
  long long dModel = 64;        // C
  long long heads = 4;          // H
  long long layers = 2;         // transformer blocks
  uint64_t seed = 0;            // model init and data
  std::string trace;            // if set: chrome trace of the timed steps (torch op profiler)
  std::string device = "cpu";   // cpu, cuda or auto (RunConfig::device)
  std::string family = "rope";  // the position family
  long long evalLength = 0;     // > 0: also time one evaluation of one sequence this long
  long long metricsEvery = 1;   // run.metrics_every (train_config.h): read the loss every n steps
};

// Waits for the GPU's queued work (timings of asynchronous CUDA steps); nothing on the CPU.
void synchronize(const std::string& deviceName) {
  if (deviceName.rfind("cuda", 0) == 0) torch::cuda::synchronize();
}

// Peak memory of the evaluation in MiB: the CUDA caching allocator's peak since `reset` on a GPU,
// the process's peak resident set on the CPU.
double peakMemoryMiB(const std::string& deviceName, bool reset) {
#ifdef POSLAB_HAVE_CUDA_KERNELS
  if (deviceName.rfind("cuda", 0) == 0) {
    namespace alloc = c10::cuda::CUDACachingAllocator;
    if (reset) {
      alloc::resetPeakStats(0);
      return 0;
    }
    const auto stats = alloc::getDeviceStats(0);
    return static_cast<double>(
               stats
                   .allocated_bytes[static_cast<size_t>(c10::CachingAllocator::StatType::AGGREGATE)]
                   .peak) /
           (1024.0 * 1024.0);
  }
#endif
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

poslab::TrainConfig benchConfig(const BenchOptions& o) {
  poslab::TrainConfig cfg;
  cfg.task.id = "kernel-lm";
  cfg.task.trainLength = o.length;
  cfg.model.family = o.family;
  cfg.model.dModel = o.dModel;
  cfg.model.heads = o.heads;
  cfg.model.layers = o.layers;
  cfg.optim.batch = o.batch;
  // The LR schedule spans warm-up + timed steps, as in python_reference.py.
  cfg.run.steps = o.warmupSteps + o.steps;
  cfg.run.evalEvery = 0;
  cfg.run.evalLengths = {o.length};
  cfg.run.device = o.device;
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
  app.add_option("--device", o.device, "cpu, cuda or auto")
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}));
  app.add_option("--family", o.family, "position family (poslab-cli families --ids)");
  app.add_option("--eval-length", o.evalLength,
                 "also time one evaluation of one sequence this long (0: none)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--metrics-every", o.metricsEvery,
                 "read the loss back to the host every n steps (GPU steps then do not wait)")
      ->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);

  try {
    const int threads = poslab::configureThreads();
    poslab::TrainConfig cfg = benchConfig(o);
    cfg.run.metricsEvery = o.metricsEvery;
    if (o.evalLength > 0) cfg.run.evalLengths = {o.evalLength};
    poslab::Trainer trainer(cfg);
    const std::string device = trainer.deviceName();
    for (long long i = 0; i < o.warmupSteps; ++i) trainer.step();
    synchronize(device);

    poslab::Snapshot last;
    std::unique_ptr<torch::autograd::profiler::RecordProfile> profile;
    if (!o.trace.empty())
      profile = std::make_unique<torch::autograd::profiler::RecordProfile>(o.trace);
    const auto t0 = std::chrono::steady_clock::now();
    for (long long i = 0; i < o.steps; ++i) last = trainer.step();
    synchronize(device);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    profile.reset();  // writes the trace

    const double tokens = static_cast<double>(o.steps * o.batch * o.length);
    nlohmann::json out = {{"impl", "poslab"},   {"tokens_per_s", tokens / seconds},
                          {"steps", o.steps},   {"batch", o.batch},
                          {"T", o.length},      {"threads", threads},
                          {"seconds", seconds}, {"final_loss", last.loss}};
    out["device"] = device;
    out["family"] = o.family;
    out["d_model"] = o.dModel;
    out["heads"] = o.heads;
    out["layers"] = o.layers;
    out["metrics_every"] = o.metricsEvery;
    if (o.evalLength > 0) {
      peakMemoryMiB(device, /*reset=*/true);
      const auto e0 = std::chrono::steady_clock::now();
      const auto results = trainer.evaluate({o.evalLength}, /*sequences=*/1);
      synchronize(device);
      out["eval_length"] = o.evalLength;
      out["eval_seconds"] =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - e0).count();
      out["eval_peak_mib"] = peakMemoryMiB(device, /*reset=*/false);
      out["eval_loss"] = results.front().loss;
    }
    std::cout << out.dump() << std::endl;
  } catch (const std::exception& e) {
    std::cerr << "poslab_bench_training: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
