#include "train/run_result_json.h"

#include <cmath>

#include "util/error.h"

namespace poslab {

namespace {

nlohmann::json number(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}
double numberOf(const nlohmann::json& j) {
  return j.is_null() ? NAN : j.get<double>();
}
nlohmann::json positionJson(const std::map<std::string, std::vector<double>>& p) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, values] : p) {
    nlohmann::json v = nlohmann::json::array();
    for (double x : values) v.push_back(number(x));
    out[name] = v;
  }
  return out;
}
std::map<std::string, std::vector<double>> positionFromJson(const nlohmann::json& j) {
  std::map<std::string, std::vector<double>> out;
  for (const auto& [name, values] : j.items()) {
    std::vector<double>& v = out[name];
    for (const auto& x : values) v.push_back(numberOf(x));
  }
  return out;
}

}  // namespace

nlohmann::json runResultToJson(const RunResult& r) {
  nlohmann::json eval = nlohmann::json::array();
  for (const auto& e : r.eval) {
    nlohmann::json byDistance = nlohmann::json::array();
    for (const auto& [d, a] : e.accuracyByDistance) byDistance.push_back({d, number(a)});
    nlohmann::json point{{"length", e.length},
                         {"loss", number(e.loss)},
                         {"accuracy", number(e.accuracy)},
                         {"accuracy_by_distance", byDistance}};
    if (std::isfinite(e.finalQueryEntropy)) {
      point["final_query_entropy"] = e.finalQueryEntropy;
      point["final_query_support"] = number(e.finalQuerySupport);
    }
    eval.push_back(point);
  }
  nlohmann::json position = positionJson(r.position);
  nlohmann::json loo = nlohmann::json::array();
  for (const auto& l : r.pjLoo)
    loo.push_back(
        {{"sector", l.sector}, {"order", l.order}, {"loss_increase", number(l.lossIncrease)}});
  nlohmann::json out{{"family", r.family},   {"seed", r.seed},
                     {"variant", r.variant}, {"eval", eval},
                     {"position", position}, {"pj_loo", loo},
                     {"seconds", r.seconds}, {"tokens_per_second", r.tokensPerSecond},
                     {"error", r.error}};
  if (std::isfinite(r.teacherEntropy)) {
    out["teacher_entropy"] = r.teacherEntropy;
    out["teacher_support"] = number(r.teacherSupport);
  }
  // Per layer only when asked for (train / eval --per-layer); "position" is their mean.
  if (!r.positionLayers.empty()) {
    out["position_layers"] = nlohmann::json::array();
    for (const auto& layer : r.positionLayers)
      out["position_layers"].push_back(positionJson(layer));
  }
  return out;
}

RunResult runResultFromJson(const nlohmann::json& j, const std::string& source) {
  RunResult r;
  try {
    r.family = j.at("family").get<std::string>();
    r.seed = j.at("seed").get<uint64_t>();
    r.variant = j.at("variant").get<std::string>();
    for (const auto& e : j.at("eval")) {
      EvalResult x;
      x.length = e.at("length").get<long long>();
      x.loss = numberOf(e.at("loss"));
      x.accuracy = numberOf(e.at("accuracy"));
      for (const auto& p : e.at("accuracy_by_distance"))
        x.accuracyByDistance[p.at(0).get<long long>()] = numberOf(p.at(1));
      if (e.contains("final_query_entropy")) {  // sector-teacher runs only
        x.finalQueryEntropy = numberOf(e.at("final_query_entropy"));
        x.finalQuerySupport = numberOf(e.at("final_query_support"));
      }
      r.eval.push_back(x);
    }
    if (j.contains("teacher_entropy")) {
      r.teacherEntropy = numberOf(j.at("teacher_entropy"));
      r.teacherSupport = numberOf(j.at("teacher_support"));
    }
    r.position = positionFromJson(j.at("position"));
    if (j.contains("position_layers"))
      for (const auto& layer : j.at("position_layers"))
        r.positionLayers.push_back(positionFromJson(layer));
    for (const auto& l : j.at("pj_loo"))
      r.pjLoo.push_back({l.at("sector").get<std::string>(), l.at("order").get<long long>(),
                         numberOf(l.at("loss_increase"))});
    r.seconds = j.at("seconds").get<double>();
    r.tokensPerSecond = j.at("tokens_per_second").get<double>();
    r.error = j.at("error").get<std::string>();
  } catch (const nlohmann::json::exception& e) {
    throw InvalidArgument(source + " is not a PosLab run result (" + e.what() + ")");
  }
  return r;
}

}  // namespace poslab
