// Trainer's checkpoints: one pickled dictionary (format, config JSON, step, weights and buffers,
// AdamW state by parameter name), readable in Python with torch.load; a trainer restored from it
// continues exactly where the saved run was.
#include <torch/torch.h>

#include <nlohmann/json.hpp>

#include "encodings/torchscript_family.h"
#include "io/atomic_file.h"
#include "io/input_file.h"
#include "io/json_fields.h"
#include "train/checkpoint_encoding.h"
#include "train/checkpoint_file.h"
#include "train/trainable_check.h"
#include "train/trainer.h"
#include "train/trainer_state.h"
#include "util/error.h"
#include "util/torch_compat.h"

namespace poslab {

namespace {
// A rotary family's gamma_raw or eta_raw (or their AdamW moments) as PosLab wrote them before
// they became per head: one value per block (nb) where this build holds (H, nb).
bool isSharedAcrossHeads(const std::string& key, const at::Tensor& saved, const at::Tensor& like) {
  auto endsWith = [&](const std::string& tail) {
    return key.size() >= tail.size() &&
           key.compare(key.size() - tail.size(), tail.size(), tail) == 0;
  };
  return (endsWith("gamma_raw") || endsWith("eta_raw")) && saved.dim() == 1 && like.dim() == 2 &&
         saved.size(0) == like.size(1);
}

// A family loaded from a TorchScript file travels inside the checkpoint (docs/ENCODINGS.md):
// its module's bytes as a uint8 tensor (N), so that the run opens without the original file.
constexpr const char* kEncodingModuleKey = "encoding_module";

void registerSavedModule(const c10::impl::GenericDict& dict, const std::string& family,
                         const std::string& path) {
  if (!dict.contains(kEncodingModuleKey)) return;  // the file itself must then be there
  const c10::IValue& v = dict.at(kEncodingModuleKey);
  if (!v.isTensor() || v.toTensor().scalar_type() != at::kByte || v.toTensor().dim() != 1 ||
      static_cast<std::uintmax_t>(v.toTensor().numel()) > kMaxEncodingFileBytes)
    throw Error("checkpoint " + path + ": " + kEncodingModuleKey + " is not a uint8 vector");
  const at::Tensor bytes = v.toTensor().contiguous();
  registerFileFamily(family, std::string(reinterpret_cast<const char*>(bytes.data_ptr<uint8_t>()),
                                         static_cast<size_t>(bytes.numel())));
}
}  // namespace

void Trainer::saveCheckpoint(const std::string& path) const {
  const State& s = *s_;
  c10::Dict<std::string, at::Tensor> weights;
  for (const auto& p : s.model->named_parameters())
    weights.insert(p.key(), p.value().detach().cpu());
  for (const auto& b : s.model->named_buffers()) weights.insert(b.key(), b.value().detach().cpu());
  c10::Dict<std::string, at::Tensor> optim;
  const auto params = s.orderedParams();
  auto& state = s.optimizer->state();
  for (size_t i = 0; i < params.size(); ++i) {
    auto it = state.find(compat::optimizerStateKey(params[i]));
    if (it == state.end()) continue;
    auto& st = static_cast<torch::optim::AdamWParamState&>(*it->second);
    optim.insert("exp_avg." + s.paramNames[i], st.exp_avg().cpu());
    optim.insert("exp_avg_sq." + s.paramNames[i], st.exp_avg_sq().cpu());
    optim.insert("step." + s.paramNames[i], torch::tensor(static_cast<int64_t>(st.step())));
  }
  c10::impl::GenericDict dict(c10::StringType::get(), c10::AnyType::get());
  dict.insert("format", std::string(kCheckpointFormat));
  dict.insert("config", nlohmann::json(s.cfg).dump());
  dict.insert("step", static_cast<int64_t>(s.step));
  dict.insert("model", weights);
  dict.insert("optimizer", optim);
  if (isFileFamilyId(s.cfg.model.family)) {
    const std::string module = fileFamilyBytes(s.cfg.model.family);
    dict.insert(kEncodingModuleKey,
                torch::from_blob(const_cast<char*>(module.data()),
                                 {static_cast<int64_t>(module.size())}, torch::kByte)
                    .clone());
  }
  const std::vector<char> bytes = torch::pickle_save(c10::IValue(dict));
  writeFileAtomically(path, [&](std::ostream& os) { os.write(bytes.data(), bytes.size()); });
}

std::unique_ptr<Trainer> Trainer::fromCheckpoint(const std::string& path) {
  // Checked before and after unpickling (checkpoint_file.h): types, tensors inside their storage.
  auto dict = readCheckpointDict(path);
  TrainConfig cfg;
  try {
    cfg = nlohmann::json::parse(dict.at("config").toStringRef()).get<TrainConfig>();
  } catch (const nlohmann::json::exception& e) {
    throw Error("checkpoint " + path + " has a malformed config: " + e.what());
  } catch (const Error& e) {
    throw Error("checkpoint " + path + " has an invalid config: " + e.what());
  } catch (const std::exception& e) {  // a config that is not a string
    throw Error("checkpoint " + path + " has a malformed config: " + e.what());
  }
  if (isFileFamilyId(cfg.model.family)) {
    try {
      registerSavedModule(dict, cfg.model.family, path);
    } catch (const InvalidArgument& e) {
      throw Error("checkpoint " + path + ": its encoding module: " + e.what());
    }
  }
  // What the run needs on this machine (its text file, its device), naming the checkpoint.
  checkTrainable(cfg, JsonPath{"checkpoint '" + path + "'", "config"});
  std::unique_ptr<Trainer> trainer;
  try {
    trainer = std::make_unique<Trainer>(cfg);
  } catch (const Error& e) {
    throw Error("checkpoint " + path + ": " + e.what());
  }
  State& s = *trainer->s_;
  // Every tensor is checked against what this config builds before it is used: copy_ would
  // broadcast a smaller tensor silently, and AdamW would fail only at the next step.
  const auto tensorLike = [&](const c10::Dict<std::string, at::Tensor>& d, const std::string& key,
                              const at::Tensor& like) -> at::Tensor {
    if (!d.contains(key)) throw Error("checkpoint " + path + " lacks " + key);
    at::Tensor t = d.at(key);
    if (t.sizes() != like.sizes() && isSharedAcrossHeads(key, t, like))
      throw Error("checkpoint " + path + " was written before gamma and eta became per head: " +
                      key + " has shape " + c10::str(t.sizes()) + " (one value per block), this " +
                      "PosLab needs " + c10::str(like.sizes()) + " (heads x blocks)",
                  "train the run again; old checkpoints of the rotary families are not migrated");
    if (t.sizes() != like.sizes())
      throw Error("checkpoint " + path + " is not a PosLab checkpoint (" + key + " has shape " +
                  c10::str(t.sizes()) + ", the config needs " + c10::str(like.sizes()) + ")");
    return t;
  };
  auto weights = c10::impl::toTypedDict<std::string, at::Tensor>(dict.at("model").toGenericDict());
  torch::NoGradGuard noGrad;
  for (auto& p : s.model->named_parameters())
    p.value().copy_(tensorLike(weights, p.key(), p.value()));
  for (auto& b : s.model->named_buffers())
    if (weights.contains(b.key())) b.value().copy_(tensorLike(weights, b.key(), b.value()));
  auto optim =
      c10::impl::toTypedDict<std::string, at::Tensor>(dict.at("optimizer").toGenericDict());
  const auto params = s.orderedParams();
  for (size_t i = 0; i < params.size(); ++i) {
    const std::string& name = s.paramNames[i];
    if (!optim.contains("exp_avg." + name)) continue;
    auto st = std::make_unique<torch::optim::AdamWParamState>();
    const std::string stepKey = "step." + name;
    if (!optim.contains(stepKey) || optim.at(stepKey).numel() != 1)
      throw Error("checkpoint " + path + " lacks " + stepKey + " (one number)");
    const int64_t step = optim.at(stepKey).item<int64_t>();
    if (step < 0) throw Error("checkpoint " + path + " has a negative step." + name);
    st->step(step);
    st->exp_avg(tensorLike(optim, "exp_avg." + name, params[i]).to(s.device).clone());
    st->exp_avg_sq(tensorLike(optim, "exp_avg_sq." + name, params[i]).to(s.device).clone());
    s.optimizer->state()[compat::optimizerStateKey(params[i])] = std::move(st);
  }
  s.step = dict.at("step").toInt();
  if (s.step < 0) throw Error("checkpoint " + path + " has a negative step");
  return trainer;
}

std::string registerCheckpointEncoding(const std::string& path) {
  auto dict = readCheckpointDict(path);
  std::string family;
  try {
    family = nlohmann::json::parse(dict.at("config").toStringRef()).get<TrainConfig>().model.family;
  } catch (const std::exception& e) {  // as fromCheckpoint reads it
    throw Error("checkpoint " + path + " has a malformed config: " + e.what());
  }
  if (!isFileFamilyId(family) || !dict.contains(kEncodingModuleKey)) return {};
  try {
    registerSavedModule(dict, family, path);
  } catch (const InvalidArgument& e) {
    throw Error("checkpoint " + path + ": its encoding module: " + e.what());
  }
  return family;
}

}  // namespace poslab
