#include "model/pin_check.h"

#include <algorithm>
#include <utility>

#include "model/position_module.h"
#include "util/error.h"
#include "util/generator_lock.h"

namespace poslab {

namespace {
// Each pinnable name and the position-module parameter it holds fixed (position_module.cpp).
const std::vector<std::pair<std::string, std::string>>& pinParameters() {
  static const std::vector<std::pair<std::string, std::string>> kMap = {
      {"gamma", "gamma_raw"},        {"eta", "eta_raw"},          {"gates", "gate_logits"},
      {"orders", "alpha_fj_logits"}, {"coefficients", "zeta_fj"}, {"kappa", "kappa_raw"},
      {"slope", "slope_raw"},        {"delta", "delta"},          {"jet", "jet_raw"}};
  return kMap;
}
}  // namespace

std::vector<std::string> learnedPinnables(const ModelConfig& cfg, long long trainLength) {
  ModelConfig unpinned = cfg;
  unpinned.pinned.clear();
  // Building the module may draw from torch's generator (PJ-bias's zeta): never while a seeded
  // run draws its weights.
  std::unique_lock<std::mutex> lock(torchGeneratorMutex());
  PositionModuleImpl module(unpinned, trainLength);
  lock.unlock();
  std::vector<std::string> out;
  for (const auto& [pin, parameter] : pinParameters())
    for (const auto& p : module.named_parameters(/*recurse=*/false))
      if (p.key() == parameter) out.push_back(pin);
  return out;
}

void checkPinsApply(const ModelConfig& cfg, long long trainLength) {
  if (cfg.pinned.empty()) return;
  const std::vector<std::string> learned = learnedPinnables(cfg, trainLength);
  for (const auto& pin : cfg.pinned) {
    if (std::find(learned.begin(), learned.end(), pin) != learned.end()) continue;
    std::string list;
    for (const auto& l : learned) list += (list.empty() ? "" : ", ") + l;
    throw InvalidArgument(
        "cannot pin '" + pin + "': family " + cfg.family + " does not learn it",
        list.empty() ? "this family learns no position parameters" : "it learns " + list);
  }
}

}  // namespace poslab
