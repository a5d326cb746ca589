#include "model/model_config.h"

#include "encodings/pj_sector_sets.h"
#include "encodings/registry.h"
#include "encodings/torchscript_family.h"
#include "io/json_fields.h"
#include "util/error.h"

namespace poslab {

namespace {

std::vector<std::string> familyIds() {
  std::vector<std::string> ids;
  for (const FamilyInfo* f : allFamilies()) ids.push_back(f->id);
  return ids;
}

// A built-in id (the row's message lists them), or a TorchScript file that loads and passes its
// probe (docs/ENCODINGS.md); with loadFiles false a file id is left to validate(), so that a
// checkpoint can register its own copy of the module first.
void checkFamily(const std::string& family, const JsonPath& at, bool loadFiles) {
  if (!isFileFamilyId(family)) {
    static const JsonLimits known = oneOf(familyIds());
    checkJsonValue(family, at, known);
    return;
  }
  if (!loadFiles) return;
  try {
    familyInfo(family);
  } catch (const InvalidArgument& e) {
    at.fail("= '" + family + "': " + e.what());
  }
}

// The training form's boxes take their ranges from this table (ui/training/training_setup.cpp).
const std::vector<JsonField<ModelConfig>>& modelFields() {
  static const std::vector<JsonField<ModelConfig>> t = {
      {"family", &ModelConfig::family, anyValue(), "position family id"},
      {"family_params", &ModelConfig::familyParams, anyValue(),
       "family parameter overrides by name; the family checks them"},
      {"pinned", &ModelConfig::pinned, anyValue(),
       "position parameters held fixed; the family declares its pins (checkTrainable checks them)"},
      {"vocab", &ModelConfig::vocab, inRange(0, 1 << 20), "0: from the task"},
      {"d_model", &ModelConfig::dModel, inRange(4, 4096), "residual width C"},
      {"heads", &ModelConfig::heads, inRange(1, 64), "attention heads H"},
      {"layers", &ModelConfig::layers, inRange(1, 48), "transformer blocks"},
      {"mlp_ratio", &ModelConfig::mlpRatio, inRange(1, 16), "MLP hidden width / C"},
      {"norm", &ModelConfig::norm, oneOf({"rms", "layer"}), "RMSNorm or LayerNorm"},
      {"bias", &ModelConfig::bias, anyValue(), "biases in the attention, MLP and head linears"},
      {"tie_embedding", &ModelConfig::tieEmbedding, anyValue(),
       "the head reuses the embedding matrix"},
      {"init", &ModelConfig::init, oneOf({"gpt2", "pytorch"}),
       "gpt2: N(0, 0.02) matrices; pytorch: the layers' defaults"},
      {"answer_logits", &ModelConfig::answerLogits, inRange(-1, 1 << 20),
       "0: all vocabulary logits; n: the first n only (2-logit head); -1: the task's answers"},
      {"include_self", &ModelConfig::includeSelf, anyValue(),
       "false: query i attends to keys j < i only"},
      {"pj_sectors", &ModelConfig::pjSectors, oneOf(pjSectorSetChoices()),
       "pj-bias sector set: empty (the family's gates), none, affine, fj, fj_affine, lc_affine, "
       "full, grape_m_rope, grape_a_alibi, grape_ma_rope_alibi"},
      {"pj_gate_init", &ModelConfig::pjGateInit, oneOf({"uniform", "auto"}),
       "pj-bias gates: uniform over the sectors, or auto (the teacher's sector first)"},
      {"pj_order_init", &ModelConfig::pjOrderInit, oneOf({"uniform", "auto"}),
       "pj-bias order weights: uniform, or auto (the teacher's order first)"},
      {"freeze_qk", &ModelConfig::freezeQk, anyValue(),
       "query and key projections held at 0: the logits are the position bias alone"},
  };
  return t;
}

}  // namespace

bool isModelSizedFamilyParam(const std::string& name) {
  return name == "head_dim" || name == "heads";
}

void ModelConfig::validate() const {
  validate(JsonPath{"", "model"});
}

void ModelConfig::validate(const JsonPath& at) const {
  checkJsonFields(*this, at, modelFields());
  checkFamily(family, at.key("family"), /*loadFiles=*/true);
  if (vocab == 1) at.key("vocab").fail("= 1 is out of range", "0 (from the task) or at least 2");
  if (answerLogits == 1)
    at.key("answer_logits")
        .fail("= 1 is out of range", "0 (the whole vocabulary), -1 (the task's) or at least 2");
  if (answerLogits > 0 && vocab > 0 && answerLogits > vocab)
    at.key("answer_logits")
        .fail("= " + std::to_string(answerLogits) + " is more than the vocabulary (" +
              std::to_string(vocab) + ")");
  if (dModel % heads != 0)
    at.key("d_model").fail(": d_model = " + std::to_string(dModel) +
                           " is not divisible by heads = " + std::to_string(heads));
}

const std::vector<JsonField<ModelConfig>>& modelConfigFields() {
  return modelFields();
}

void readModelConfig(const nlohmann::json& j, const JsonPath& at, ModelConfig& out) {
  readJsonFields(j, at, modelFields(), out);
  checkFamily(out.family, at.key("family"), /*loadFiles=*/false);
}

void to_json(nlohmann::json& j, const ModelConfig& c) {
  j = writeJsonFields(c, modelFields());
}

void from_json(const nlohmann::json& j, ModelConfig& c) {
  c = ModelConfig{};
  readModelConfig(j, JsonPath{"", "model"}, c);
}

}  // namespace poslab
