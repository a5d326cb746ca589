// poslab_bench_torchscript_family: the training step of RoPE written in PyTorch (a TorchScript
// module loaded at run time, docs/ENCODINGS.md) against the built-in rope, in the same run, same
// model, task, batch and seed. Steps alternate between the two trainers so that both see the same
// machine load; prints each mean step time and the ratio (issue #32's target: within 1.5x).
// Example (bench/run_torchscript_bench.sh writes the module first):
//   build/bench/poslab_bench_torchscript_family --module /tmp/rope.pt --train-length 64
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <memory>

#include "train/trainer.h"
#include "util/threads.h"

namespace {

poslab::TrainConfig config(const std::string& family, long long length, long long batch) {
  poslab::TrainConfig cfg;
  cfg.model.family = family;
  cfg.model.dModel = 64;
  cfg.model.heads = 4;
  cfg.model.layers = 2;
  cfg.task.id = "kernel-lm";
  cfg.task.trainLength = length;
  cfg.optim.batch = batch;
  cfg.run.steps = 1000000;
  cfg.run.evalLengths = {length};
  cfg.run.device = "cpu";
  return cfg;
}

double seconds(const std::chrono::steady_clock::time_point& t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"RoPE in TorchScript against the built-in rope: training step time"};
  std::string module;
  long long length = 64, batch = 16;
  int steps = 20;
  app.add_option("--module", module, "a TorchScript RoPE (tests/torchscript/write_modules.py)")
      ->required();
  app.add_option("--train-length", length, "training sequence length T")->capture_default_str();
  app.add_option("--batch", batch, "sequences per step")->capture_default_str();
  app.add_option("--steps", steps, "timed steps per family")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  const int threads = poslab::configureThreads();
  try {
    poslab::Trainer builtin(config("rope", length, batch));
    poslab::Trainer script(config("file:" + module, length, batch));
    builtin.step();  // warm-up: allocations, the TorchScript executor's first runs
    script.step();
    builtin.step();
    script.step();
    double tBuiltin = 0, tScript = 0;
    for (int s = 0; s < steps; ++s) {
      auto t0 = std::chrono::steady_clock::now();
      builtin.step();
      tBuiltin += seconds(t0);
      t0 = std::chrono::steady_clock::now();
      script.step();
      tScript += seconds(t0);
    }
    std::printf("training step, kernel-lm, C 64, H 4, 2 layers, T %lld, batch %lld, %d thread(s)\n",
                length, batch, threads);
    std::printf("built-in rope %.2f ms, TorchScript rope %.2f ms, ratio %.2fx\n",
                tBuiltin / steps * 1e3, tScript / steps * 1e3, tScript / tBuiltin);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  return 0;
}
