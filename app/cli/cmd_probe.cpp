// `poslab-cli probe`: the kernel probe of docs/MATH.md 4.1, MSE per family, best first.
#include <iostream>
#include <sstream>

#include "analysis/kernel_probe.h"
#include "cli/cli_common.h"
#include "encodings/registry.h"
#include "util/error.h"

namespace poslab::cli {

void addProbeCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("probe",
                                 "least-squares fit of a target lag kernel by each family's basis");
  struct Opts {
    CommonOptions common;
    std::string target = "mixed_raw";
    std::string families;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option(
         "--target", o->target,
         "target kernel: mixed_raw, mixed_bounded, damped_mixed, rhythm_envelope, high_jet_rN")
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
    ProbeReport r = runKernelProbe(s);
    if (o->common.json) {
      nlohmann::json doc{{"target", r.target},
                         {"lags", {{"first", r.lags.front()}, {"last", r.lags.back()}}},
                         {"results", nlohmann::json::array()}};
      for (const auto& f : r.results)
        doc["results"].push_back(
            {{"family", f.family}, {"mse", f.mse}, {"basis_size", f.basisSize}, {"rank", f.rank}});
      return printJson(doc);
    }
    std::cout << "Kernel probe: target " << r.target << ", lags " << r.lags.front() << ".."
              << r.lags.back() << "\n\n";
    std::vector<std::vector<std::string>> rows;
    int rank = 1;
    for (const auto& f : r.results)
      rows.push_back(
          {std::to_string(rank++), f.family, formatNumber(f.mse, 4), std::to_string(f.basisSize)});
    printTable({"rank", "family", "MSE", "basis"}, rows);
  });
}

}  // namespace poslab::cli
