// Fuzzes the checkpoint loader (core/train/trainer.h Trainer::fromCheckpoint): what `eval
// --checkpoint`, `compare --checkpoints` and the GUI's trained sessions read. The first byte picks
// how the rest becomes the file, so that the fuzzer reaches the unpickler and not only the zip
// reader:
//   0: the rest is the file;
//   1: the rest is the archive's data.pkl (the pickle stream), packed into a valid PyTorch zip
//      archive with 64 storage records "data/0".."data/63" of 1 KiB beside it (enough for the
//      seed checkpoints' tiny models, whose data.pkl files are in the corpus).
// Every file must load or be refused with poslab::Error naming the file; anything else (a torch
// exception with no file name, a crash, an abort inside LibTorch) is a finding.
#include <ATen/Parallel.h>
#include <caffe2/serialize/inline_container.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "train/trainer.h"
#include "util/error.h"

namespace {

std::vector<uint8_t> pickleArchive(const uint8_t* pickle, size_t size) {
  std::vector<uint8_t> out;
  caffe2::serialize::PyTorchStreamWriter writer([&](const void* bytes, size_t n) {
    const auto* p = static_cast<const uint8_t*>(bytes);
    out.insert(out.end(), p, p + n);
    return n;
  });
  writer.writeRecord("data.pkl", pickle, size);
  const std::vector<uint8_t> storage(1024, 0);
  for (int i = 0; i < 64; ++i)
    writer.writeRecord("data/" + std::to_string(i), storage.data(), storage.size());
  writer.writeEndOfFile();
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  at::set_num_threads(1);  // the fuzzer is one process on one core
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string path;
  if (data[0] % 2 == 0) {
    path = poslab::fuzz::writeScratchFile(data + 1, size - 1, "checkpoint.pt");
  } else {
    const std::vector<uint8_t> archive = pickleArchive(data + 1, size - 1);
    path = poslab::fuzz::writeScratchFile(archive.data(), archive.size(), "checkpoint.pt");
  }
  try {
    auto trainer = poslab::Trainer::fromCheckpoint(path);
    poslab::fuzz::require(trainer != nullptr, "a loaded checkpoint gives a trainer");
  } catch (const poslab::Error& e) {
    poslab::fuzz::require(std::string(e.what()).find(path) != std::string::npos,
                          "a refused checkpoint's message names the file", e.what());
  }
  return 0;
}
