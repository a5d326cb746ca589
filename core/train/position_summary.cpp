#include "train/position_summary.h"

#include "util/error.h"

namespace poslab {

PositionParameters meanOverLayers(const std::vector<PositionParameters>& layers) {
  if (layers.empty()) return {};
  PositionParameters out = layers.front();
  for (size_t l = 1; l < layers.size(); ++l) {
    if (layers[l].size() != out.size())
      throw InvalidArgument("layer " + std::to_string(l) + " reports " +
                            std::to_string(layers[l].size()) + " position parameters, layer 0 " +
                            std::to_string(out.size()));
    for (auto& [name, sum] : out) {
      auto it = layers[l].find(name);
      if (it == layers[l].end() || it->second.size() != sum.size())
        throw InvalidArgument("layer " + std::to_string(l) + " reports '" + name +
                              "' unlike layer 0");
      for (size_t i = 0; i < sum.size(); ++i) sum[i] += it->second[i];
    }
  }
  const double n = static_cast<double>(layers.size());
  for (auto& [name, values] : out)
    for (double& v : values) v /= n;
  return out;
}

}  // namespace poslab
