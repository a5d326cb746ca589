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
  long long headDim = 16;            // sets the kernel-LM frequency omega = base^(-6/headDim)
};

}  // namespace poslab
