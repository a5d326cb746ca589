// A family written in PyTorch (TorchScript) as PosLab calls it: its metadata and its methods,
// each call checked (shapes, dtypes, finite values) and every exception from the module turned
// into one line naming the file and the method (docs/ENCODINGS.md). Internal to core/encodings:
// only the TorchScript family's own files include it (torch/script.h stays out of the seam).
#pragma once

#include <torch/script.h>

#include <string>
#include <vector>

#include "encodings/encoding.h"

namespace poslab {

// One parameter the module's metadata declares.
struct ScriptParam {
  ParamSpec spec;        // name, default, range, integer, description (the explorer's slider)
  std::string symbol;    // in the formula markup, e.g. "γ"
  bool learned = false;  // true: a module parameter the model trains; false: a float attribute
  bool perHead = false;  // learned only: PosLab sizes its first dimension to the model's heads
};

// What metadata() says and which methods the module has.
struct ScriptMeta {
  std::string title, formula, summary;
  bool relative = false;  // claims s(i,j) and b(i,j) depend on i - j only (checked on load)
  std::vector<ScriptParam> params;
  bool hasFactorize = false, hasScores = false, hasBias = false, hasKernel = false;
};

// Reads metadata() and the methods' signatures; throws InvalidArgument("<where>: <method>: ...").
ScriptMeta readScriptMeta(torch::jit::Module& module, const std::string& where);

// The module's methods, each call checked. `where` names the file in messages ("encoding file
// 'my.pt'"). Every failure is an InvalidArgument "<where>: <method>: <what was wrong>".
class ScriptCalls {
 public:
  ScriptCalls(torch::jit::Module module, std::string where)
      : module_(std::move(module)), where_(std::move(where)) {}

  // q (B, H, Tq, D), k (B, H, Tk, D), positions (Tq), (Tk) int64 -> (B, H, Tq, F), (B, H, Tk, F)
  // with F <= 4 D, in q's dtype.
  FactorizedQK factorize(const at::Tensor& q, const at::Tensor& k, const at::Tensor& qPos,
                         const at::Tensor& kPos) const;
  // The same inputs -> s (B, H, Tq, Tk) in q's dtype.
  at::Tensor scores(const at::Tensor& q, const at::Tensor& k, const at::Tensor& qPos,
                    const at::Tensor& kPos) const;
  // qPos (Tq), kPos (Tk) int64 -> b (H, Tq, Tk), floating.
  at::Tensor bias(const at::Tensor& qPos, const at::Tensor& kPos, long long heads) const;
  // lags (N) float64 -> K (N) or (H, N) float64.
  at::Tensor kernel(const at::Tensor& lags) const;

  torch::jit::Module& module() const { return module_; }
  const std::string& where() const { return where_; }
  [[noreturn]] void fail(const std::string& method, const std::string& what) const;

 private:
  torch::jit::IValue call(const std::string& method, std::vector<torch::jit::IValue> args) const;

  mutable torch::jit::Module module_;  // methods are const in effect; jit's run_method is not
  std::string where_;
};

// "(2, 4, 12, 8)": a shape for messages.
std::string shapeText(at::IntArrayRef sizes);

// Sets the metadata's parameters on `module` from `values` (name -> value): a float attribute,
// or every entry of a learned parameter (a per-head one resized to (heads, ...)), in float64.
// Int attributes named `heads` and `head_dim`, where the module has them, get the model's.
void applyScriptParams(torch::jit::Module& module, const ScriptMeta& meta,
                       const std::map<std::string, double>& values, long long heads,
                       long long headDim, const std::string& where);

// The probe of docs/ENCODINGS.md: every method on small inputs (shapes, dtypes, finite values,
// per-pair and causal blocks, float32 against float64, the relative claim under a shift,
// gradients to every learnable). `module` has its parameters set and is float64.
void checkScriptModule(torch::jit::Module& module, const ScriptMeta& meta, long long heads,
                       long long headDim, const std::string& where);

}  // namespace poslab
