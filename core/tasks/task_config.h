// What a task is asked to generate: plain data, no torch, so that the UI and sessions can carry it.
#pragma once

#include <map>
#include <string>

namespace poslab {

struct TaskConfig {
  std::string id = "indirect-indexing";  // see taskIds()
  // Task options by name, e.g. "alphabet": 128, "kernel": index into kernelNames; each task
  // documents its own and rejects unknown ones.
  std::map<std::string, double> options;
  std::string kernel = "mixed_raw";  // kernel-lm: target kernel name; sector-teacher: teacher name
  std::string textFile;              // byte-lm: UTF-8 file (empty: the default corpus)
  long long trainLength = 64;        // T used for training; kernels are normalised over it
  // 0: every training batch has trainLength tokens. Otherwise each step draws its length uniformly
  // from [minTrainLength, trainLength] (from the step's data seed), so that the model cannot tie
  // its solution to one sequence length. Evaluation lengths are unaffected.
  long long minTrainLength = 0;
  long long headDim = 16;  // sets the kernel-LM frequency omega = base^(-6/headDim)
};

}  // namespace poslab
