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

}  // namespace

nlohmann::json runResultToJson(const RunResult& r) {
  nlohmann::json eval = nlohmann::json::array();
  for (const auto& e : r.eval) {
    nlohmann::json byDistance = nlohmann::json::array();
    for (const auto& [d, a] : e.accuracyByDistance) byDistance.push_back({d, number(a)});
    eval.push_back({{"length", e.length},
                    {"loss", number(e.loss)},
                    {"accuracy", number(e.accuracy)},
                    {"accuracy_by_distance", byDistance}});
  }
  nlohmann::json position = nlohmann::json::object();
  for (const auto& [name, values] : r.position) {
    nlohmann::json v = nlohmann::json::array();
    for (double x : values) v.push_back(number(x));
    position[name] = v;
  }
  nlohmann::json loo = nlohmann::json::array();
  for (const auto& l : r.pjLoo)
    loo.push_back(
        {{"sector", l.sector}, {"order", l.order}, {"loss_increase", number(l.lossIncrease)}});
  return {{"family", r.family},   {"seed", r.seed},
          {"variant", r.variant}, {"eval", eval},
          {"position", position}, {"pj_loo", loo},
          {"seconds", r.seconds}, {"tokens_per_second", r.tokensPerSecond},
          {"error", r.error}};
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
      r.eval.push_back(x);
    }
    for (const auto& [name, values] : j.at("position").items()) {
      std::vector<double>& out = r.position[name];
      for (const auto& v : values) out.push_back(numberOf(v));
    }
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
