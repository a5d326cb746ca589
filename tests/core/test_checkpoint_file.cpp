// Checkpoint files are checked by PosLab before and after LibTorch unpickles them
// (train/checkpoint_file.h, io/pickle_check.h): LibTorch 1.13 trusts the pickle stream and the
// tensors' sizes. A real checkpoint passes; each kind of damage the checks exist for is refused
// with the file named. Inputs the fuzzer found are replayed by fuzz.checkpoint (tests/fuzz/).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "io/pickle_check.h"
#include "test_support.h"
#include "train/checkpoint_file.h"
#include "train/trainer.h"
#include "util/torch_compat.h"

namespace poslab {
namespace {

std::string checkpointScratch(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("poslab-ckpt-" + std::to_string(::getpid()) + "-" + name))
      .string();
}

void writeBytes(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream(path, std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string checkpointRefusal(const std::string& path) {
  try {
    readCheckpointDict(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(PickleCheck, RefusesStreamsTheUnpicklerWouldTrust) {
  using namespace std::string_literals;
  // Each stream is protocol 2 and names its problem.
  const std::pair<std::string, std::string> cases[] = {
      {"\x80\x02t."s, "no MARK"},                          // TUPLE pops a mark that is not there
      {"\x80\x02\x85."s, "too few values"},                // TUPLE1 on an empty stack
      {"\x80\x02X\xff\xff\xff\x7f"s, "more bytes"},        // a 2 GB string length
      {"\x80\x02Nr\x00\x00\x00\x10."s, "skips memo ids"},  // memo id 2^28: a 4 GB memo table
      {"\x80\x02h\x00."s, "never stored"},                 // BINGET of nothing
      {"\x80\x02}q\x00h\x00."s, "shares a container"},     // a dict that could contain itself
      // A global no checkpoint uses (split: "\x02c" would be one hex escape).
      {"\x80\x02"
       "cos\nsystem\n."s,
       "os.system"},
      {"\x80\x02NN."s, "no single value"},
      {"\x80\x02N"s, "without STOP"},
      {"\x80\x03N."s, "protocol 2"},
  };
  for (const auto& [stream, expected] : cases) {
    const std::string problem = pickleStructureProblem(stream);
    EXPECT_NE(problem.find(expected), std::string::npos) << "'" << problem << "'";
  }
  std::string deep = "\x80\x02N"s;
  for (int i = 0; i < kMaxPickleDepth + 1; ++i) deep += "\x85";  // TUPLE1: one level each
  EXPECT_NE(pickleStructureProblem(deep + ".").find("nests deeper"), std::string::npos);
  std::string shallow = "\x80\x02N"s;
  for (int i = 0; i < kMaxPickleDepth - 1; ++i) shallow += "\x85";
  EXPECT_EQ(pickleStructureProblem(shallow + "."), "");
}

TEST(CheckpointFile, ARealCheckpointPasses) {
  const TrainConfig c =
      poslab::testing::tinyKernelLmRun("pope", /*heads=*/2, /*dModel=*/16,
                                       /*trainLength=*/8, /*batch=*/2, /*steps=*/3);
  Trainer t(c);
  t.step();
  const std::string path = checkpointScratch("real.pt");
  t.saveCheckpoint(path);
  const auto dict = readCheckpointDict(path);
  EXPECT_EQ(dict.at("step").toInt(), 1);
  EXPECT_EQ(Trainer::fromCheckpoint(path)->stepCount(), 1);
  std::filesystem::remove(path);
}

TEST(CheckpointFile, RefusesATensorReachingPastItsStorage) {
  // What a forged pickle can say and LibTorch 1.13 rebuilds without comparing: 4 floats of
  // storage, sizes claiming 1000.
  at::Tensor w = torch::zeros({4});
  w.unsafeGetTensorImpl()->set_sizes_contiguous({1000});
  c10::Dict<std::string, at::Tensor> model;
  model.insert("w", w);
  c10::impl::GenericDict dict(c10::StringType::get(), c10::AnyType::get());
  dict.insert("format", std::string(kCheckpointFormat));
  dict.insert("config", std::string("{}"));
  dict.insert("step", static_cast<int64_t>(0));
  dict.insert("model", model);
  dict.insert("optimizer", c10::Dict<std::string, at::Tensor>());
  const std::string path = checkpointScratch("outside.pt");
  writeBytes(path, torch::pickle_save(c10::IValue(dict)));
  const std::string message = checkpointRefusal(path);
  // LibTorch 2.x's unpickler checks the storage bound itself, so the file is refused while it is
  // read (as unreadable); 1.13 rebuilds the tensor and PosLab's own check names it.
  const std::string expected = compat::kTorch2 ? "is not a PosLab checkpoint (unreadable)"
                                               : "model.w reaches past the end of its storage";
  EXPECT_NE(message.find(expected), std::string::npos) << message;
  EXPECT_NE(message.find(path), std::string::npos) << message;
  std::filesystem::remove(path);
}

TEST(CheckpointFile, RefusesGarbageAndWrongTypesNamingTheFile) {
  const std::string path = checkpointScratch("garbage.pt");
  writeBytes(path, {'P', 'K', '\x03', '\x04', 'x'});
  EXPECT_NE(checkpointRefusal(path).find("checkpoint " + path + " is not a PosLab checkpoint"),
            std::string::npos);
  c10::impl::GenericDict dict(c10::StringType::get(), c10::AnyType::get());
  dict.insert("format", static_cast<int64_t>(1));  // not a string: torch's toStringRef throws
  writeBytes(path, torch::pickle_save(c10::IValue(dict)));
  EXPECT_NE(checkpointRefusal(path).find("has an unknown format"), std::string::npos);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace poslab
