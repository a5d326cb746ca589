#include "model/pin_check.h"

#include <algorithm>
#include "encodings/registry.h"
#include "model/position_module.h"
#include "util/error.h"
#include "util/generator_lock.h"

namespace poslab {

std::vector<std::string> learnedPinnables(const ModelConfig& cfg, long long trainLength) {
  TrainableContext unpinned;
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

}  // namespace poslab
