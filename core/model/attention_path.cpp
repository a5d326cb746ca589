#include "model/attention_path.h"

#include <algorithm>
#include <cstdlib>

#include "util/error.h"
#include "util/torch_compat.h"

namespace poslab {

namespace {
struct PathName {
  AttentionPath path;
  const char* name;
};
constexpr PathName kPaths[] = {{AttentionPath::kFused, "fused"},
                               {AttentionPath::kReference, "reference"},
                               {AttentionPath::kFusedDirect, "fused-direct"},
                               {AttentionPath::kSdpa, "sdpa"}};

bool available(AttentionPath path) {
  return path != AttentionPath::kSdpa || compat::kHasScaledDotProductAttention;
}
}  // namespace

std::vector<std::string> attentionPathNames() {
  std::vector<std::string> names;
  for (const PathName& p : kPaths)
    if (available(p.path)) names.push_back(p.name);
  return names;
}

std::string attentionPathName(AttentionPath path) {
  for (const PathName& p : kPaths)
    if (p.path == path) return p.name;
  return "fused";
}

AttentionPath parseAttentionPath(const std::string& name) {
  for (const PathName& p : kPaths)
    if (name == p.name && available(p.path)) return p.path;
  std::string list;
  for (const std::string& n : attentionPathNames()) list += (list.empty() ? "" : ", ") + n;
  throw InvalidArgument(
      "unknown attention path '" + name + "'",
      "this build has: " + list +
          (compat::kHasScaledDotProductAttention ? "" : " (sdpa needs LibTorch 2.1+)"));
}

std::string defaultAttentionPathName() {
  const char* env = std::getenv("POSLAB_ATTENTION");
  if (!env) return "fused";
  const std::vector<std::string> names = attentionPathNames();
  if (std::find(names.begin(), names.end(), env) != names.end()) return env;
  std::string list;  // a misspelt value used to fall back to fused without a word
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  throw InvalidArgument(std::string("POSLAB_ATTENTION = '") + env + "' is not an attention path",
                        "this build has: " + list + "; unset it for fused");
}

}  // namespace poslab
