// A loaded TorchScript module behind the encoding seam (encoding.h), and its trainable form: the
// module's parameters are the learnables, shared with the model that registers them.
// Internal to core/encodings (includes torch/script.h through torchscript_module.h).
#pragma once

#include <memory>

#include "encodings/torchscript_module.h"

namespace poslab {

// The loaded family as the registry keeps it: checked once, copied for every encoding.
struct ScriptFamily {
  std::string id;     // "file:PATH"
  std::string where;  // "encoding file 'PATH'" for messages
  std::string bytes;  // the module as saved (checkpoints and sessions keep a copy)
  std::string hash;   // contentHash(bytes)
  ScriptMeta meta;
  FamilyInfo info;            // id, title, formula, summary, params (+ heads, head, head_dim)
  torch::jit::Module module;  // as loaded; every encoding gets its own deep copy
};

// One encoding: its own copy of the module, float64, with the parameter values set.
std::unique_ptr<Encoding> makeScriptEncoding(const ScriptFamily& family, ParamSet params);

}  // namespace poslab
