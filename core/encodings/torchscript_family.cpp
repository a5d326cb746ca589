// The registry of families loaded from TorchScript files (torchscript_family.h). A family stays
// registered for the life of the process: encodings refer to its FamilyInfo, so a replaced one is
// kept, not freed.
#include "encodings/torchscript_family.h"

#include <cstdio>
#include <map>
#include <mutex>
#include <sstream>

#include "encodings/common_params.h"
#include "encodings/torchscript_encoding.h"
#include "io/input_file.h"
#include "util/error.h"

namespace poslab {

namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<const ScriptFamily>> byId;
  std::vector<std::shared_ptr<const ScriptFamily>> all;  // every one ever loaded, kept alive
  std::vector<std::string> order;                        // ids in the order first loaded
};

Registry& registry() {
  static Registry r;
  return r;
}

std::string pathOf(const std::string& id) {
  return id.substr(std::string(kFileFamilyPrefix).size());
}

// The probe's shape: the parameters' declared defaults, 2 heads, head_dim 8.
constexpr long long kProbeHeads = 2;
constexpr long long kProbeHeadDim = 8;

std::shared_ptr<const ScriptFamily> build(const std::string& id, const std::string& bytes) {
  auto family = std::make_shared<ScriptFamily>();
  family->id = id;
  family->where = "encoding file '" + pathOf(id) + "'";
  family->bytes = bytes;
  family->hash = contentHash(bytes);
  const std::string& where = family->where;
  try {
    std::istringstream in(bytes);
    family->module = torch::jit::load(in, c10::Device(c10::kCPU));
  } catch (const std::exception& e) {
    std::string why = e.what();
    why = why.substr(0, why.find('\n'));
    throw InvalidArgument(where + " is not a TorchScript module: " + why.substr(0, 200),
                          "save one with torch.jit.script(MyEncoding()).save(\"my.pt\")");
  }
  family->meta = readScriptMeta(family->module, where);
  const ScriptMeta& meta = family->meta;
  FamilyInfo& info = family->info;
  info.id = id;
  info.title = meta.title;
  info.formula = meta.formula;
  info.summary = meta.summary.empty() ? "A family loaded from " + pathOf(id) + "." : meta.summary;
  for (const ScriptParam& p : meta.params) info.params.push_back(p.spec);
  info.params.push_back(common::heads());
  info.params.push_back(common::head());
  info.params.push_back(common::headDim(/*def=*/16));

  // The probe, on a copy set up as an encoding sets it up (float64, defaults).
  torch::jit::Module probe = family->module.deepcopy();
  probe.to(at::kDouble);
  probe.eval();
  try {
    applyScriptParams(probe, meta, {}, kProbeHeads, kProbeHeadDim, where);
  } catch (const InvalidArgument&) {
    throw;
  } catch (const std::exception& e) {
    std::string why = e.what();
    throw InvalidArgument(
        where + ": setting the metadata's parameters failed: " + why.substr(0, why.find('\n')));
  }
  try {
    checkScriptModule(probe, meta, kProbeHeads, kProbeHeadDim, where);
  } catch (const InvalidArgument&) {
    throw;
  } catch (const std::exception& e) {
    std::string why = e.what();
    throw InvalidArgument(where + ": the probe failed: " + why.substr(0, why.find('\n')));
  }
  return family;
}

std::shared_ptr<const ScriptFamily> find(const std::string& id) {
  if (!isFileFamilyId(id) || pathOf(id).empty())
    throw InvalidArgument("'" + id + "' is not a file family", "give file:PATH.pt");
  Registry& r = registry();
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.byId.find(id);
    if (it != r.byId.end()) return it->second;
  }
  // Read and check outside the lock: a slow module does not hold up other families.
  const std::string bytes = readInputFile(pathOf(id), "encoding file", kMaxEncodingFileBytes);
  auto family = build(id, bytes);
  std::lock_guard<std::mutex> lock(r.mutex);
  auto [it, inserted] = r.byId.emplace(id, family);
  if (inserted) {
    r.all.push_back(family);
    r.order.push_back(id);
  }
  return it->second;
}

}  // namespace

bool isFileFamilyId(const std::string& id) {
  return id.rfind(kFileFamilyPrefix, 0) == 0;
}

const FamilyInfo& fileFamilyInfo(const std::string& id) {
  return find(id)->info;  // kept alive by the registry's `all`
}

std::unique_ptr<Encoding> makeFileFamily(const std::string& id, ParamSet params) {
  return makeScriptEncoding(*find(id), std::move(params));
}

void registerFileFamily(const std::string& id, const std::string& bytes) {
  if (!isFileFamilyId(id)) throw InvalidArgument("'" + id + "' is not a file family");
  Registry& r = registry();
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.byId.find(id);
    if (it != r.byId.end() && it->second->bytes == bytes) return;
  }
  auto family = build(id, bytes);
  std::lock_guard<std::mutex> lock(r.mutex);
  if (!r.byId.count(id)) r.order.push_back(id);
  r.byId[id] = family;
  r.all.push_back(family);
}

std::string fileFamilyBytes(const std::string& id) {
  return find(id)->bytes;
}

std::string fileFamilyHash(const std::string& id) {
  return find(id)->hash;
}

std::string contentHash(const std::string& bytes) {
  uint64_t h = 14695981039346656037ull;  // FNV-1a 64
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::vector<const FamilyInfo*> loadedFileFamilies() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<const FamilyInfo*> out;
  for (const auto& id : r.order) out.push_back(&r.byId.at(id)->info);
  return out;
}

std::string fileFamilyParamSymbol(const std::string& id, const std::string& param) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.byId.find(id);
  if (it == r.byId.end()) return {};
  for (const ScriptParam& p : it->second->meta.params)
    if (p.spec.name == param) return p.symbol;
  return {};
}

}  // namespace poslab
