#include "train/checkpoint_file.h"

#include <caffe2/serialize/inline_container.h>
#include <torch/serialize.h>

#include <exception>
#include <sstream>
#include <vector>

#include "io/input_file.h"
#include "io/pickle_check.h"
#include "util/error.h"

namespace poslab {

namespace {

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
  throw Error("checkpoint " + path + " is not a PosLab checkpoint (" + why + ")");
}

// The archive's data.pkl, found the way torch::pickle_load finds it (the first record names the
// archive's folder). Throws Error when the zip container itself is broken.
std::string picklePart(const std::string& data, const std::string& path) {
  try {
    std::istringstream in(data);
    caffe2::serialize::PyTorchStreamReader reader(&in);
    if (!reader.hasRecord("data.pkl")) refuse(path, "no data.pkl in the archive");
    auto [bytes, size] = reader.getRecord("data.pkl");
    return std::string(static_cast<const char*>(bytes.get()), size);
  } catch (const c10::Error&) {
    refuse(path, "unreadable: not a PyTorch zip archive");
  }
}

// A tensor torch rebuilt from the pickle's sizes, strides and offset, which LibTorch 1.13 does not
// compare with its storage: reading it could run past the storage's end.
void requireInsideStorage(const at::Tensor& t, const std::string& path, const std::string& name) {
  if (!t.defined() || t.layout() != c10::kStrided || !t.has_storage())
    refuse(path, "tensor " + name + " is not a dense tensor");
  // Weights and AdamW moments are floating point, step counts int64 (saveCheckpoint); a bool or
  // byte storage would hand arbitrary bytes to code that reads them as bool.
  if (!t.is_floating_point() && t.scalar_type() != c10::kLong)
    refuse(path,
           "tensor " + name + " has element type " + std::string(c10::toString(t.scalar_type())));
  const int64_t offset = t.storage_offset();
  if (offset < 0) refuse(path, "tensor " + name + " has a negative offset");
  // The largest element index it reaches, in elements from the storage's start (no overflow:
  // each term is checked against the storage's element count first).
  const auto itemsize = static_cast<int64_t>(t.element_size());
  const int64_t elements = static_cast<int64_t>(t.storage().nbytes()) / itemsize;
  int64_t last = offset;
  for (int64_t d = 0; d < t.dim(); ++d) {
    const int64_t size = t.size(d), stride = t.stride(d);
    if (size < 0 || stride < 0) refuse(path, "tensor " + name + " has a negative size or stride");
    if (size == 0) return;  // no element at all
    if (stride > 0 && (size - 1) > (elements - last) / stride)
      refuse(path, "tensor " + name + " reaches past the end of its storage");
    last += (size - 1) * stride;
  }
  if (last >= elements) refuse(path, "tensor " + name + " reaches past the end of its storage");
}

void requireTensorDict(const c10::impl::GenericDict& root, const char* key,
                       const std::string& path) {
  if (!root.contains(key) || !root.at(key).isGenericDict())
    refuse(path, std::string("no '") + key + "' dictionary");
  for (const auto& entry : root.at(key).toGenericDict()) {
    if (!entry.key().isString()) refuse(path, std::string("a key of '") + key + "' is no name");
    const std::string name = std::string(key) + "." + entry.key().toStringRef();
    if (!entry.value().isTensor()) refuse(path, name + " is not a tensor");
    requireInsideStorage(entry.value().toTensor(), path, name);
  }
}

}  // namespace

c10::impl::GenericDict readCheckpointDict(const std::string& path) {
  const std::string data = readInputFile(path, "checkpoint", kMaxCheckpointBytes);
  const std::string problem = pickleStructureProblem(picklePart(data, path));
  if (!problem.empty()) refuse(path, "damaged: " + problem);
  const std::vector<char> bytes(data.begin(), data.end());
  c10::IValue root;
  try {
    root = torch::pickle_load(bytes);
  } catch (const std::exception& e) {
    throw Error("checkpoint " + path + " is not a PosLab checkpoint (unreadable)");
  }
  if (!root.isGenericDict()) throw Error("checkpoint " + path + " is not a PosLab checkpoint");
  auto dict = root.toGenericDict();
  if (!dict.contains("format") || !dict.at("format").isString() ||
      dict.at("format").toStringRef() != kCheckpointFormat)
    throw Error("checkpoint " + path + " has an unknown format");
  if (!dict.contains("config") || !dict.at("config").isString()) refuse(path, "no config text");
  if (!dict.contains("step") || !dict.at("step").isInt()) refuse(path, "no step count");
  requireTensorDict(dict, "model", path);
  requireTensorDict(dict, "optimizer", path);
  return dict;
}

}  // namespace poslab
