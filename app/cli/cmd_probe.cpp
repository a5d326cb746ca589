// `poslab-cli probe`: the kernel probe of docs/MATH.md 4.1 (the Jordan-RoPE reference's toy study):
// per family the MSE in the training window and out to 2x, 4x and 8x it, best at 8x first.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <sstream>

#include "analysis/kernel_probe.h"
#include "cli/cli_common.h"
#include "encodings/registry.h"
#include "limits/work_budget.h"
#include "util/error.h"

namespace poslab::cli {

void addProbeCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "probe",
      "ridge fit of a target lag kernel on d < L by each family's basis at every frequency "
      "channel plus a constant; MSE in the window and out to 8L (--set L=1024 head_dim=64 "
      "channels=16 ridge=1e-4 by default)");
  struct Opts {
    CommonOptions common;
    std::string target = "mixed";
    std::string families;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option(
         "--target", o->target,
         "target kernel: phase, linear, mixed (the toy study's), mixed_raw, mixed_bounded, "
         "damped_mixed, rhythm_envelope, high_jet_rN, scaled_high_jet_rN")
      ->capture_default_str();
  auto* families =
      cmd->add_option("--families", o->families,
                      "comma-separated family ids, or 'all' (default: rope, alibi, direct-sum, "
                      "damped-rope, jordan-stabilized, jordan-exact)");
  addCommonOptions(cmd, o->common);
  cmd->callback([o, families] {
    ProbeSettings s;
    s.target = o->target;
    s.overrides = parseSets(o->common.sets);
    if (o->families == "all") {
      for (const auto* info : allFamilies()) s.families.push_back(info->id);
    } else if (!o->families.empty()) {
      std::stringstream ss(o->families);
      std::string id;
      while (std::getline(ss, id, ','))
        if (!id.empty()) s.families.push_back(id);
    }
    if (families->count() > 0 && s.families.empty())
      throw InvalidArgument("--families '" + o->families + "' names no family",
                            "give family ids, e.g. rope,alibi, or 'all'");
    requireDistinct(s.families, "--families");
    checkProbeSettings(s);  // ranges and families first: the estimate below clamps them
    const ProbeSize size = probeSize(s);
    checkWorkFits(kernelProbeCost(size.families, size.channels, size.trainLength),
                  "--set L=" + formatNumber(static_cast<double>(size.trainLength)) + " with " +
                      std::to_string(size.families) + " families and " +
                      std::to_string(size.channels) + " channels");
    ProbeReport r = runKernelProbe(s);
    if (o->common.json) {
      nlohmann::json doc{{"target", r.target},
                         {"omega", r.omega},
                         {"train_length", r.trainLength},
                         {"eval_lengths", r.evalLengths},
                         {"channels", r.channels},
                         {"ridge", r.ridge},
                         {"results", nlohmann::json::array()}};
      for (const auto& f : r.results) {
        nlohmann::json byLength = nlohmann::json::object();
        for (size_t n = 0; n < r.evalLengths.size(); ++n)
          byLength[std::to_string(r.evalLengths[n])] = f.mseByLength[n];
        doc["results"].push_back({{"family", f.family},
                                  {"mse_in_window", f.mseInWindow},
                                  {"mse_extrapolated", f.mseExtrapolated},
                                  {"mse_by_length", byLength},
                                  {"basis_size", f.basisSize}});
      }
      return printJson(doc);
    }
    std::cout << "Kernel probe: target " << r.target << " (omega " << formatNumber(r.omega)
              << "), ridge fit on d = 0.." << r.trainLength - 1 << " with " << r.channels
              << " frequency channels and a constant, ridge " << formatNumber(r.ridge)
              << "; MSE over d = 0..n-1\n\n";
    std::vector<std::string> header{"rank", "family"};
    for (size_t n = 0; n < r.evalLengths.size(); ++n)
      header.push_back(n == 0 ? "MSE in window" : "MSE to " + std::to_string(r.evalLengths[n]));
    header.push_back("basis");
    std::vector<std::vector<std::string>> rows;
    int rank = 1;
    for (const auto& f : r.results) {
      std::vector<std::string> row{std::to_string(rank++), f.family};
      for (double mse : f.mseByLength) row.push_back(formatNumber(mse, 4));
      row.push_back(std::to_string(f.basisSize));
      rows.push_back(std::move(row));
    }
    printTable(header, rows);
  });
}

}  // namespace poslab::cli
