#include "cli/experiment_report.h"

#include <cmath>
#include <iostream>
#include <map>

#include "cli/cli_common.h"

namespace poslab::cli {

nlohmann::json evalJson(const std::vector<EvalResult>& eval) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& e : eval) {
    nlohmann::json r{{"length", e.length},
                     {"loss", e.loss},
                     {"accuracy", std::isnan(e.accuracy) ? nlohmann::json(nullptr)
                                                         : nlohmann::json(e.accuracy)}};
    // kv-retrieval: {"64": accuracy, "128": ...} with the stored key that many tokens back.
    if (!e.accuracyByDistance.empty()) {
      nlohmann::json byDistance = nlohmann::json::object();
      for (const auto& [distance, accuracy] : e.accuracyByDistance)
        byDistance[std::to_string(distance)] = accuracy;
      r["accuracy_by_distance"] = byDistance;
    }
    // sector-teacher: how spread the last query's attention is (the PJ reference's report).
    if (std::isfinite(e.finalQueryEntropy)) {
      r["final_query_entropy"] = e.finalQueryEntropy;
      r["final_query_support"] = e.finalQuerySupport;
    }
    a.push_back(r);
  }
  return a;
}

nlohmann::json resultsJson(const std::string& task, const std::vector<RunResult>& results) {
  nlohmann::json doc{{"task", task}, {"results", nlohmann::json::array()}};
  for (const auto& r : results) {
    nlohmann::json run{{"family", r.family}, {"seed", r.seed}, {"eval", nlohmann::json::array()}};
    if (!r.variant.empty()) run["variant"] = r.variant;
    if (!r.error.empty()) run["error"] = r.error;
    run["seconds"] = r.seconds;
    run["position"] = r.position;  // the mean over layers
    if (!r.positionLayers.empty()) run["position_layers"] = r.positionLayers;
    if (std::isfinite(r.teacherEntropy)) {
      run["teacher_entropy"] = r.teacherEntropy;
      run["teacher_support"] = r.teacherSupport;
    }
    if (!r.pjLoo.empty()) {
      run["pj_loo"] = nlohmann::json::array();
      for (const auto& l : r.pjLoo)
        run["pj_loo"].push_back(
            {{"sector", l.sector}, {"order", l.order}, {"loss_increase", l.lossIncrease}});
    }
    run["eval"] = evalJson(r.eval);
    doc["results"].push_back(run);
  }
  return doc;
}

namespace {
std::string meanAndSd(const std::vector<double>& v) {
  double mean = 0, sq = 0;
  for (double x : v) mean += x;
  mean /= v.size();
  for (double x : v) sq += (x - mean) * (x - mean);
  const double sd = v.size() > 1 ? std::sqrt(sq / (v.size() - 1)) : 0.0;
  return formatNumber(mean, 4) + (v.size() > 1 ? " ± " + formatNumber(sd, 2) : "");
}

// kv-retrieval: accuracy against the distance from the final key back to the stored one, at the
// reference's distance points (MATH 3.3), one row per family and evaluation length.
void printDistanceTable(const std::vector<std::string>& keys,
                        const std::map<std::string, std::vector<const RunResult*>>& groups) {
  std::vector<long long> distances, lengths;
  for (const auto& [key, runs] : groups)
    for (const auto* r : runs)
      for (const auto& e : r->eval) {
        if (e.accuracyByDistance.empty()) continue;
        if (std::find(lengths.begin(), lengths.end(), e.length) == lengths.end())
          lengths.push_back(e.length);
        for (const auto& [d, a] : e.accuracyByDistance)
          if (std::find(distances.begin(), distances.end(), d) == distances.end())
            distances.push_back(d);
      }
  if (distances.empty()) return;
  std::sort(distances.begin(), distances.end());
  std::vector<std::string> header{"family", "length"};
  for (long long d : distances) header.push_back("acc@d=" + std::to_string(d));
  std::vector<std::vector<std::string>> rows;
  for (const auto& key : keys)
    for (long long L : lengths) {
      std::vector<std::string> row{key, std::to_string(L)};
      bool any = false;
      for (long long d : distances) {
        std::vector<double> v;
        for (const auto* r : groups.at(key))
          for (const auto& e : r->eval)
            if (e.length == L && e.accuracyByDistance.count(d))
              v.push_back(e.accuracyByDistance.at(d));
        any = any || !v.empty();
        row.push_back(v.empty() ? "-" : meanAndSd(v));
      }
      if (any) rows.push_back(std::move(row));
    }
  std::cout << "\naccuracy against the distance from the final key back to the stored key:\n";
  printTable(header, rows);
}

// sector-teacher: the final query's attention entropy and effective support per family and
// evaluation length, and the teacher's own at the training length (the PJ reference's report).
void printAttentionSpreadTable(const std::vector<std::string>& keys,
                               const std::map<std::string, std::vector<const RunResult*>>& groups) {
  std::vector<long long> lengths;
  for (const auto& [key, runs] : groups)
    for (const auto* r : runs)
      for (const auto& e : r->eval)
        if (std::isfinite(e.finalQueryEntropy) &&
            std::find(lengths.begin(), lengths.end(), e.length) == lengths.end())
          lengths.push_back(e.length);
  if (lengths.empty()) return;
  std::vector<std::string> header{"family", "teacher H", "teacher support"};
  for (long long L : lengths) {
    header.push_back("H@" + std::to_string(L));
    header.push_back("support@" + std::to_string(L));
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& key : keys) {
    std::vector<double> th, ts;
    for (const auto* r : groups.at(key))
      if (std::isfinite(r->teacherEntropy)) {
        th.push_back(r->teacherEntropy);
        ts.push_back(r->teacherSupport);
      }
    std::vector<std::string> row{key, th.empty() ? "-" : meanAndSd(th),
                                 ts.empty() ? "-" : meanAndSd(ts)};
    for (long long L : lengths) {
      std::vector<double> h, support;
      for (const auto* r : groups.at(key))
        for (const auto& e : r->eval)
          if (e.length == L && std::isfinite(e.finalQueryEntropy)) {
            h.push_back(e.finalQueryEntropy);
            support.push_back(e.finalQuerySupport);
          }
      row.push_back(h.empty() ? "-" : meanAndSd(h));
      row.push_back(support.empty() ? "-" : meanAndSd(support));
    }
    rows.push_back(std::move(row));
  }
  std::cout << "\nfinal-query attention of the last layer: entropy H (nats) and support exp(H):\n";
  printTable(header, rows);
}
}  // namespace

void printResultsTable(const std::vector<RunResult>& results, bool hasAccuracy) {
  // Group runs by (variant, family); columns are evaluation lengths.
  std::vector<std::string> keys;
  std::map<std::string, std::vector<const RunResult*>> groups;
  std::vector<long long> lengths;
  for (const auto& r : results) {
    const std::string key = (r.variant.empty() ? "" : r.variant + " / ") + r.family;
    if (!groups.count(key)) keys.push_back(key);
    groups[key].push_back(&r);
    for (const auto& e : r.eval)
      if (std::find(lengths.begin(), lengths.end(), e.length) == lengths.end())
        lengths.push_back(e.length);
  }
  std::vector<std::string> header{"family", "seeds"};
  for (long long L : lengths)
    header.push_back((hasAccuracy ? "acc@" : "loss@") + std::to_string(L));
  std::vector<std::vector<std::string>> rows;
  for (const auto& key : keys) {
    std::vector<std::string> row{key, std::to_string(groups[key].size())};
    for (long long L : lengths) {
      std::vector<double> v;
      for (const auto* r : groups[key])
        for (const auto& e : r->eval)
          if (e.length == L) v.push_back(hasAccuracy ? e.accuracy : e.loss);
      if (v.empty()) {
        row.push_back("diverged");
        continue;
      }
      row.push_back(meanAndSd(v));
    }
    rows.push_back(row);
  }
  printTable(header, rows);
  printDistanceTable(keys, groups);
  printAttentionSpreadTable(keys, groups);
  for (const auto& r : results)
    if (!r.error.empty())
      std::cout << "note: " << r.family << " seed " << r.seed << ": " << r.error << "\n";
}

}  // namespace poslab::cli
