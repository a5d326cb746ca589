#include "model/pin_check.h"

#include <algorithm>
#include <mutex>
#include "encodings/registry.h"
#include "model/position_module.h"
#include "util/error.h"
#include "util/generator_lock.h"

namespace poslab {

std::vector<std::string> learnedPinnables(const ModelConfig& cfg, long long trainLength) {
  TrainableContext unpinned;  // the pins, whatever the start values (checkStart false)
  unpinned.heads = cfg.heads;
  // The family's initial tensors may draw from torch's generator (PJ-bias's zeta): never while a
  // seeded run draws its weights.
  std::unique_lock<std::mutex> lock(torchGeneratorMutex());
  const std::vector<Learnable> learnables =
      makeEncoding(cfg.family, resolvedFamilyParams(cfg, trainLength))
          ->trainable(unpinned)
          ->learnables();
  lock.unlock();
  // Each learned tensor's declared pin (Learnable::pin), once, in the family's order.
  std::vector<std::string> out;
  for (const Learnable& l : learnables)
    if (l.learned && !l.pin.empty() && std::find(out.begin(), out.end(), l.pin) == out.end())
      out.push_back(l.pin);
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

std::vector<std::string> pinsTheFamilyLearns(const ModelConfig& cfg, long long trainLength) {
  if (cfg.pinned.empty()) return {};
  const std::vector<std::string> learned = learnedPinnables(cfg, trainLength);
  std::vector<std::string> out;
  for (const auto& pin : cfg.pinned)
    if (std::find(learned.begin(), learned.end(), pin) != learned.end()) out.push_back(pin);
  return out;
}

void checkPinsApplyToSome(
    const std::vector<std::string>& pinned,
    const std::vector<std::pair<std::string, std::vector<std::string>>>& learnedByFamily) {
  for (const auto& pin : pinned) {
    std::string families, learnedNames;
    bool someLearns = false;
    for (const auto& [family, learned] : learnedByFamily) {
      families += (families.empty() ? "" : ", ") + family;
      for (const auto& l : learned) {
        someLearns = someLearns || l == pin;
        if (learnedNames.find("'" + l + "'") == std::string::npos)
          learnedNames += (learnedNames.empty() ? "'" : ", '") + l + "'";
      }
    }
    if (!someLearns)
      throw InvalidArgument(
          "cannot pin '" + pin + "': none of the families " + families + " learns it",
          learnedNames.empty() ? "they learn no position parameters"
                               : "they learn " + learnedNames);
  }
}

void checkTrainableStart(const ModelConfig& cfg, long long trainLength) {
  TrainableContext ctx;
  ctx.heads = cfg.heads;
  ctx.pinned.insert(cfg.pinned.begin(), cfg.pinned.end());
  ctx.checkStart = true;
  std::lock_guard<std::mutex> lock(torchGeneratorMutex());  // as learnedPinnables
  makeEncoding(cfg.family, resolvedFamilyParams(cfg, trainLength))->trainable(ctx)->learnables();
}

}  // namespace poslab
