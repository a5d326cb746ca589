#include "model/model_config.h"

#include "encodings/registry.h"
#include "util/error.h"

namespace poslab {

void ModelConfig::validate() const {
  familyInfo(family);  // throws for an unknown id
  auto range = [](const char* name, long long v, long long lo, long long hi) {
    if (v < lo || v > hi)
      throw InvalidArgument(std::string(name) + " = " + std::to_string(v) + " is out of range",
                            "allowed [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  };
  range("d_model", dModel, 4, 4096);
  range("heads", heads, 1, 64);
  range("layers", layers, 1, 48);
  range("mlp_ratio", mlpRatio, 1, 16);
  if (vocab != 0) range("vocab", vocab, 2, 1 << 20);  // 0: taken from the task
  if (dModel % heads != 0)
    throw InvalidArgument("d_model = " + std::to_string(dModel) +
                          " is not divisible by heads = " + std::to_string(heads));
  if (norm != "rms" && norm != "layer")
    throw InvalidArgument("norm = '" + norm + "' is not one of rms, layer");
  static const std::vector<std::string> kPinnable = {"gamma",        "eta",   "gates", "orders",
                                                     "coefficients", "kappa", "slope", "delta"};
  for (const auto& p : pinned) {
    if (std::find(kPinnable.begin(), kPinnable.end(), p) == kPinnable.end())
      throw InvalidArgument(
          "cannot pin '" + p + "'",
          "pinnable: gamma, eta, gates, orders, coefficients, kappa, slope, delta");
  }
}

void to_json(nlohmann::json& j, const ModelConfig& c) {
  j = {{"family", c.family},  {"family_params", c.familyParams},
       {"pinned", c.pinned},  {"vocab", c.vocab},
       {"d_model", c.dModel}, {"heads", c.heads},
       {"layers", c.layers},  {"mlp_ratio", c.mlpRatio},
       {"norm", c.norm}};
}

void from_json(const nlohmann::json& j, ModelConfig& c) {
  ModelConfig d;
  c.family = j.value("family", d.family);
  c.familyParams = j.value("family_params", d.familyParams);
  c.pinned = j.value("pinned", d.pinned);
  c.vocab = j.value("vocab", d.vocab);
  c.dModel = j.value("d_model", d.dModel);
  c.heads = j.value("heads", d.heads);
  c.layers = j.value("layers", d.layers);
  c.mlpRatio = j.value("mlp_ratio", d.mlpRatio);
  c.norm = j.value("norm", d.norm);
}

}  // namespace poslab
