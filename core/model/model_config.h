// Configuration of the tiny causal transformer (docs/MATH.md 2.1). Plain struct, one comment and an
// example value per field; saved as JSON with every run and checkpoint.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace poslab {

struct JsonPath;  // io/json_fields.h
template <class S>
struct JsonField;  // io/json_fields.h

struct ModelConfig {
  std::string family = "rope";                 // position family id, e.g. "jordan-stabilized"
  std::map<std::string, double> familyParams;  // family overrides, e.g. {"gamma": 0.01}; heads,
                                               // head_dim and L are filled in from the model/task
  std::vector<std::string> pinned;             // position parameters held fixed, e.g. {"eta"}:
                                               // the pins the family declares (learnedPinnables,
                                               // model/pin_check.h)
  long long vocab = 0;                         // set from the task, e.g. 3 for kernel-lm
  long long dModel = 64;                       // C, residual width
  long long heads = 4;                         // H; head size hs = C / H
  long long layers = 2;                        // transformer blocks
  long long mlpRatio = 4;                      // MLP hidden = mlpRatio * C (GELU)
  std::string norm = "rms";                    // "rms" (RMSNorm) or "layer" (LayerNorm)
  // The rest follow the reference architectures (train/architecture.h names the bundles).
  bool bias = true;            // biases in the attention, MLP and head linears
  bool tieEmbedding = false;   // the head's weight is the embedding matrix (no head bias)
  std::string init = "gpt2";   // "gpt2": N(0, 0.02) matrices, zero biases; "pytorch": the
                               // layers' own defaults (kaiming-uniform linears, N(0, 1) embedding)
  long long answerLogits = 0;  // 0: logits over the whole vocabulary; n: only the first n (the
                               // references' 2-logit head for bit answers; untied: a head of n);
                               // -1: the task's answer tokens where it has few (bits: 2), else 0
  bool includeSelf = true;     // query i attends to j <= i; false: j < i (PJ-RoPE's reference),
                               // so position 0 attends to nothing and its attention output is 0
  // The PJ reference's Phase C switches (train/pj_sector_init.h; docs/MATH.md 2.3.1). The first
  // three act on family pj-bias and are ignored by the others (an experiment's base config is
  // shared by its families); freeze_qk acts on every family.
  std::string pjSectors;               // "" (the family's gates) or a sector set, e.g. "fj_affine";
                                       // "none": no position bias at all (family nope)
  std::string pjGateInit = "uniform";  // "auto": gate logits +2 on the teacher's sector, -2 else
  std::string pjOrderInit = "uniform";  // "auto": order logits +2 on the teacher's order, -2 else
  bool freezeQk = false;  // query and key projections start at 0 and get no gradient, so the
                          // attention logits are the position bias alone

  long long headDim() const { return dModel / heads; }
  // Throws InvalidArgument for an unknown family, C not divisible by H, sizes out of range,
  // naming the field below `at` ("model.d_model" for at = {source, "model"}).
  void validate() const;
  void validate(const JsonPath& at) const;
};

// True for the family parameters the model sets from its own size whatever family_params say
// (resolvedFamilyParams, model/position_module.h): head_dim = d_model / heads, and heads.
bool isModelSizedFamilyParam(const std::string& name);

// Strict reading of the "model" object (keys, types and limits from model_config.cpp's table);
// absent keys keep out's value. Throws InvalidArgument naming at.source and the key path.
void readModelConfig(const nlohmann::json& j, const JsonPath& at, ModelConfig& out);
// The key table itself (model_config.cpp), for a front end that shows the fields (jsonFieldOf).
const std::vector<JsonField<ModelConfig>>& modelConfigFields();

void to_json(nlohmann::json& j, const ModelConfig& c);
void from_json(const nlohmann::json& j, ModelConfig& c);

}  // namespace poslab
