// What a task is asked to generate: plain data, no torch, so that the UI and sessions can carry it.
#pragma once

#include <map>
#include <string>
#include <vector>

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
  // Not empty: the training lengths of the PJ reference's multi-length training
  // (--train-seq-lens), step n (from 0) at trainLengths[n mod size] under "cycle", at one drawn
  // uniformly from the list by the step's data seed under "random". trainLength stays the context
  // scale L of the teacher and the model (the reference's train_len). Excludes minTrainLength.
  std::vector<long long> trainLengths;
  std::string lengthSampling = "cycle";
  long long headDim = 16;  // sets the kernel-LM frequency omega = base^(-6/headDim)
};

}  // namespace poslab
