#include "encodings/torchscript_module.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <set>
#include <sstream>

#include "io/json_input.h"
#include "util/error.h"

namespace poslab {

namespace {

// Names PosLab itself gives every loaded family (the model's shape and the kernel view's head).
const std::set<std::string> kReservedNames = {"head_dim", "heads", "head"};

// One line of an exception's message, without the TorchScript backtrace: the Python-style
// "RuntimeError: ..." line the interpreter reports for a module that raised, else the first.
std::string firstLine(const std::exception& e) {
  const auto* c10 = dynamic_cast<const c10::Error*>(&e);
  const std::string text = c10 ? c10->what_without_backtrace() : e.what();
  std::string line = text.substr(0, text.find('\n'));
  std::istringstream lines(text);
  for (std::string l; std::getline(lines, l);)
    if (l.find("Error: ") != std::string::npos) line = l;
  const size_t start = line.find_first_not_of(' ');
  line = start == std::string::npos ? std::string() : line.substr(start);
  constexpr size_t kMaxChars = 300;
  if (line.size() > kMaxChars) line = line.substr(0, kMaxChars) + "...";
  return line;
}

// The argument and return types a method must have: each is "Tensor", "int", "str" or
// "Tuple[Tensor, Tensor]" as TorchScript prints them.
void checkSignature(const torch::jit::Module& module, const std::string& method,
                    const std::vector<std::string>& args, const std::string& returns,
                    const std::string& where) {
  const auto m = module.find_method(method);
  const auto& schema = m->function().getSchema();
  std::string wanted = method + "(self";
  for (const auto& a : args) wanted += ", " + a;
  wanted += ") -> " + returns;
  const auto& got = schema.arguments();
  bool ok = got.size() == args.size() + 1 && schema.returns().size() == 1 &&
            schema.returns()[0].type()->annotation_str() == returns;
  for (size_t n = 0; ok && n < args.size(); ++n)
    ok = got[n + 1].type()->annotation_str() == args[n] && !got[n + 1].default_value();
  if (!ok) {
    std::string have = method + "(self";
    for (size_t n = 1; n < got.size(); ++n) have += ", " + got[n].type()->annotation_str();
    have += ") -> ";
    for (size_t n = 0; n < schema.returns().size(); ++n)
      have += (n ? ", " : "") + schema.returns()[n].type()->annotation_str();
    throw InvalidArgument(where + ": " + method + ": wrong signature " + have,
                          "expected " + wanted);
  }
}

double number(const nlohmann::json& p, const std::string& key, const std::string& where) {
  if (!p.contains(key) || !p[key].is_number())
    throw InvalidArgument(where + ": metadata: parameter '" + p.value("name", std::string("?")) +
                          "' needs a number '" + key + "'");
  return p[key].get<double>();
}

std::string text(const nlohmann::json& j, const std::string& key, const std::string& where,
                 bool required) {
  if (!j.contains(key)) {
    if (required) throw InvalidArgument(where + ": metadata: no '" + key + "'");
    return {};
  }
  if (!j[key].is_string()) throw InvalidArgument(where + ": metadata: '" + key + "' is no string");
  return j[key].get<std::string>();
}

bool flag(const nlohmann::json& j, const std::string& key, const std::string& where) {
  if (!j.contains(key)) return false;
  if (!j[key].is_boolean())
    throw InvalidArgument(where + ": metadata: '" + key + "' must be true or false");
  return j[key].get<bool>();
}

ScriptParam readParam(const nlohmann::json& p, torch::jit::Module& module,
                      const std::string& where) {
  static const std::set<std::string> kKeys = {
      "name", "symbol", "min", "max", "default", "learned", "per_head", "integer", "description"};
  if (!p.is_object()) throw InvalidArgument(where + ": metadata: a parameter is not an object");
  for (const auto& [key, value] : p.items())
    if (!kKeys.count(key))
      throw InvalidArgument(where + ": metadata: unknown parameter key '" + key + "'",
                            "keys: name, symbol, min, max, default, learned, per_head, integer, "
                            "description");
  ScriptParam out;
  out.spec.name = text(p, "name", where, true);
  const std::string& name = out.spec.name;
  if (name.empty() || kReservedNames.count(name) || name.find('.') != std::string::npos)
    throw InvalidArgument(where + ": metadata: parameter name '" + name + "' is not allowed",
                          "head_dim, heads and head are PosLab's own; no dots");
  out.symbol = text(p, "symbol", where, false);
  if (out.symbol.empty()) out.symbol = name;
  out.spec.min = number(p, "min", where);
  out.spec.max = number(p, "max", where);
  out.spec.defaultValue = number(p, "default", where);
  out.spec.integer = flag(p, "integer", where);
  out.spec.description = text(p, "description", where, false);
  out.learned = flag(p, "learned", where);
  out.perHead = flag(p, "per_head", where);
  const auto& s = out.spec;
  if (!std::isfinite(s.min) || !std::isfinite(s.max) || s.min > s.max ||
      !(s.defaultValue >= s.min && s.defaultValue <= s.max))
    throw InvalidArgument(where + ": metadata: parameter '" + name +
                          "' needs finite min <= default <= max");
  if (out.perHead && !out.learned)
    throw InvalidArgument(where + ": metadata: parameter '" + name +
                          "' is per_head but not learned");
  // The name must be what the module holds: a parameter if learned, else a number attribute.
  bool isParameter = false;
  for (const auto& np : module.named_parameters(/*recurse=*/false))
    if (np.name == name) isParameter = true;
  if (out.learned && !isParameter)
    throw InvalidArgument(
        where + ": metadata: learned parameter '" + name + "' is not a parameter of the module",
        "declare self." + name + " = torch.nn.Parameter(...)");
  if (!out.learned) {
    const bool isNumber =
        module.hasattr(name) && (module.attr(name).isDouble() || module.attr(name).isInt());
    if (!isNumber)
      throw InvalidArgument(
          where + ": metadata: parameter '" + name + "' is not a float attribute of the module",
          "declare self." + name + " = 1.0 (a float) in __init__");
  }
  return out;
}

}  // namespace

std::string shapeText(at::IntArrayRef sizes) {
  std::string s = "(";
  for (size_t n = 0; n < sizes.size(); ++n) s += (n ? ", " : "") + std::to_string(sizes[n]);
  return s + ")";
}

ScriptMeta readScriptMeta(torch::jit::Module& module, const std::string& where) {
  ScriptMeta meta;
  if (!module.find_method("metadata"))
    throw InvalidArgument(where + ": metadata: no metadata() method",
                          "add @torch.jit.export def metadata(self) -> str returning JSON");
  checkSignature(module, "metadata", {}, "str", where);
  meta.hasFactorize = module.find_method("factorize").has_value();
  meta.hasScores = module.find_method("scores").has_value();
  meta.hasBias = module.find_method("bias").has_value();
  meta.hasKernel = module.find_method("kernel").has_value();
  const std::vector<std::string> posArgs = {"Tensor", "Tensor", "Tensor", "Tensor"};
  if (meta.hasFactorize)
    checkSignature(module, "factorize", posArgs, "Tuple[Tensor, Tensor]", where);
  if (meta.hasScores) checkSignature(module, "scores", posArgs, "Tensor", where);
  if (meta.hasBias) checkSignature(module, "bias", {"Tensor", "Tensor", "int"}, "Tensor", where);
  if (meta.hasKernel) checkSignature(module, "kernel", {"Tensor"}, "Tensor", where);
  if (!meta.hasFactorize && !meta.hasScores && !meta.hasBias)
    throw InvalidArgument(where + ": the module has none of factorize, scores and bias",
                          "docs/ENCODINGS.md lists the methods");

  std::string json;
  try {
    json = module.run_method("metadata").toStringRef();
  } catch (const std::exception& e) {
    throw InvalidArgument(where + ": metadata: raised: " + firstLine(e));
  }
  nlohmann::json j;
  if (const std::string deep = jsonDepthProblem(json); !deep.empty())
    throw InvalidArgument(where + ": metadata: " + deep);
  try {
    j = nlohmann::json::parse(json);
  } catch (const std::exception& e) {
    throw InvalidArgument(where + ": metadata: not JSON: " + firstLine(e));
  }
  if (!j.is_object()) throw InvalidArgument(where + ": metadata: not a JSON object");
  static const std::set<std::string> kKeys = {"title", "formula", "summary", "relative", "params"};
  for (const auto& [key, value] : j.items())
    if (!kKeys.count(key))
      throw InvalidArgument(where + ": metadata: unknown key '" + key + "'",
                            "keys: title, formula, summary, relative, params");
  meta.title = text(j, "title", where, true);
  meta.formula = text(j, "formula", where, true);
  meta.summary = text(j, "summary", where, false);
  meta.relative = flag(j, "relative", where);
  if (j.contains("params")) {
    if (!j["params"].is_array()) throw InvalidArgument(where + ": metadata: 'params' not a list");
    std::set<std::string> seen;
    for (const auto& p : j["params"]) {
      meta.params.push_back(readParam(p, module, where));
      if (!seen.insert(meta.params.back().spec.name).second)
        throw InvalidArgument(where + ": metadata: parameter '" + meta.params.back().spec.name +
                              "' is listed twice");
    }
  }
  return meta;
}

void ScriptCalls::fail(const std::string& method, const std::string& what) const {
  throw InvalidArgument(where_ + ": " + method + ": " + what);
}

torch::jit::IValue ScriptCalls::call(const std::string& method,
                                     std::vector<torch::jit::IValue> args) const {
  try {
    return module_.get_method(method)(std::move(args));
  } catch (const InvalidArgument&) {
    throw;
  } catch (const std::exception& e) {
    fail(method, "raised: " + firstLine(e));
  }
}

namespace {
void requireFloating(const ScriptCalls& c, const std::string& method, const at::Tensor& t) {
  if (!at::isFloatingType(t.scalar_type()))
    c.fail(method,
           "returned " + std::string(c10::toString(t.scalar_type())) + ", not a floating tensor");
}
at::Tensor tensorResult(const ScriptCalls& c, const std::string& method,
                        const torch::jit::IValue& v) {
  if (!v.isTensor()) c.fail(method, "returned " + v.tagKind() + ", not a tensor");
  at::Tensor t = v.toTensor();
  requireFloating(c, method, t);
  return t;
}
void requireShape(const ScriptCalls& c, const std::string& method, const at::Tensor& t,
                  const std::vector<int64_t>& want, const std::string& named) {
  if (t.sizes() != at::IntArrayRef(want))
    c.fail(method, "returned shape " + shapeText(t.sizes()) + ", expected " + named + " = " +
                       shapeText(want));
}
}  // namespace

FactorizedQK ScriptCalls::factorize(const at::Tensor& q, const at::Tensor& k,
                                    const at::Tensor& qPos, const at::Tensor& kPos) const {
  const torch::jit::IValue v = call("factorize", {q, k, qPos, kPos});
  if (!v.isTuple() || v.toTupleRef().elements().size() != 2 ||
      !v.toTupleRef().elements()[0].isTensor() || !v.toTupleRef().elements()[1].isTensor())
    fail("factorize", "did not return a pair of tensors (q', k')");
  at::Tensor fq = v.toTupleRef().elements()[0].toTensor();
  at::Tensor fk = v.toTupleRef().elements()[1].toTensor();
  requireFloating(*this, "factorize", fq);
  requireFloating(*this, "factorize", fk);
  const int64_t F = fq.dim() == 4 ? fq.size(3) : -1;
  if (F < 1 || F > 4 * q.size(3))
    fail("factorize",
         "returned q' of shape " + shapeText(fq.sizes()) +
             ", expected (B, H, Tq, F) with 1 <= F <= 4 D = " + std::to_string(4 * q.size(3)));
  requireShape(*this, "factorize", fq, {q.size(0), q.size(1), q.size(2), F}, "q' (B, H, Tq, F)");
  requireShape(*this, "factorize", fk, {k.size(0), k.size(1), k.size(2), F}, "k' (B, H, Tk, F)");
  return {fq.to(q.scalar_type()), fk.to(q.scalar_type())};
}

at::Tensor ScriptCalls::scores(const at::Tensor& q, const at::Tensor& k, const at::Tensor& qPos,
                               const at::Tensor& kPos) const {
  at::Tensor s = tensorResult(*this, "scores", call("scores", {q, k, qPos, kPos}));
  requireShape(*this, "scores", s, {q.size(0), q.size(1), q.size(2), k.size(2)}, "(B, H, Tq, Tk)");
  return s.to(q.scalar_type());
}

at::Tensor ScriptCalls::bias(const at::Tensor& qPos, const at::Tensor& kPos,
                             long long heads) const {
  at::Tensor b =
      tensorResult(*this, "bias", call("bias", {qPos, kPos, static_cast<int64_t>(heads)}));
  requireShape(*this, "bias", b, {heads, qPos.size(0), kPos.size(0)}, "(H, Tq, Tk)");
  return b;
}

at::Tensor ScriptCalls::kernel(const at::Tensor& lags) const {
  at::Tensor K = tensorResult(*this, "kernel", call("kernel", {lags}));
  if (K.scalar_type() != at::kDouble)
    fail("kernel", "returned " + std::string(c10::toString(K.scalar_type())) + ", not float64");
  const bool ok = (K.dim() == 1 && K.size(0) == lags.size(0)) ||
                  (K.dim() == 2 && K.size(1) == lags.size(0) && K.size(0) >= 1 && K.size(0) <= 256);
  if (!ok)
    fail("kernel", "returned shape " + shapeText(K.sizes()) +
                       ", expected (N) or (H, N) with N = " + std::to_string(lags.size(0)));
  return K;
}

void applyScriptParams(torch::jit::Module& module, const ScriptMeta& meta,
                       const std::map<std::string, double>& values, long long heads,
                       long long headDim, const std::string& where) {
  at::NoGradGuard noGrad;
  // The model's shape, for methods that are not given it (kernel), where the module asks for it.
  if (module.hasattr("heads") && module.attr("heads").isInt())
    module.setattr("heads", static_cast<int64_t>(heads));
  if (module.hasattr("head_dim") && module.attr("head_dim").isInt())
    module.setattr("head_dim", static_cast<int64_t>(headDim));
  for (const ScriptParam& p : meta.params) {
    auto it = values.find(p.spec.name);
    const double value = it == values.end() ? p.spec.defaultValue : it->second;
    if (!p.learned) {
      if (module.attr(p.spec.name).isInt())
        module.setattr(p.spec.name, static_cast<int64_t>(std::llround(value)));
      else
        module.setattr(p.spec.name, value);
      continue;
    }
    at::Tensor old = module.attr(p.spec.name).toTensor();
    std::vector<int64_t> shape(old.sizes().begin(), old.sizes().end());
    if (p.perHead) {
      if (shape.empty())
        throw InvalidArgument(where + ": parameter '" + p.spec.name + "' is per_head but a scalar",
                              "give it a first dimension (heads)");
      shape[0] = heads;
    }
    at::Tensor fresh = at::full(shape, value, at::TensorOptions().dtype(at::kDouble));
    fresh.set_requires_grad(true);
    module.setattr(p.spec.name, fresh);
  }
}

}  // namespace poslab
