#include "bridge/inspection.h"

#include <map>
#include <mutex>

#include "bridge/inspect_attention.h"
#include "bridge/inspect_lag_response.h"
#include "bridge/inspect_pope_usage.h"
#include "bridge/inspect_samples.h"

namespace poslab::ui {

namespace {
// The kinds the training tab's views ask for: the one list a new kind joins.
std::vector<InspectionKind> builtInInspectionKinds() {
  return {attentionInspection(), samplesInspection(), lagResponseInspection(),
          popeUsageInspection()};
}

struct Registry {
  Registry() {
    for (InspectionKind& k : builtInInspectionKinds()) kinds[k.id] = std::move(k);
  }
  std::mutex mutex;
  std::map<std::string, InspectionKind> kinds;
};

Registry& registry() {
  static Registry r;
  return r;
}
}  // namespace

void registerInspectionKind(InspectionKind kind) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.kinds[kind.id] = std::move(kind);
}

InspectionKind inspectionKind(const std::string& id) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.kinds.find(id);
  return it == r.kinds.end() ? InspectionKind{} : it->second;
}

std::vector<std::string> inspectionKindIds() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> ids;
  for (const auto& [id, kind] : r.kinds) ids.push_back(id);
  return ids;
}

}  // namespace poslab::ui
