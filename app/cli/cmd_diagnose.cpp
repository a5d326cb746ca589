// `poslab-cli diagnose --target NAME`: fit the PJ-bias basis to a target kernel and print mass,
// energy and leave-one-order-out per sector and order (docs/MATH.md 4.2).
#include <iostream>

#include "analysis/pj_diagnostics.h"
#include "cli/cli_common.h"
#include "encodings/common_params.h"
#include "encodings/registry.h"
#include "tasks/lag_kernels.h"

namespace poslab::cli {

void addDiagnoseCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "diagnose",
      "fit pj-bias to a target kernel; mass, energy and LOO per sector and order. The head's "
      "frequency is pinned to the target's omega unless --set pin_omega=0 is given");
  struct Opts {
    CommonOptions common;
    std::string target = "mixed_raw";
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--target", o->target, "target kernel (as in `probe`)")->capture_default_str();
  addCommonOptions(cmd, o->common);
  cmd->callback([o] {
    auto sets = parseSets(o->common.sets);
    checkLagKernelName(o->target);
    // Target parameters ride along with the family's (L, omega, gamma) and the head's D and base.
    std::map<std::string, double> targetOnly;
    for (const char* name : {"omega2", "gamma", "base"}) {
      if (sets.count(name)) targetOnly[name] = sets[name];
    }
    // The target's own parameters have the ranges of the same names in the families' specs.
    for (auto [name, v] : targetOnly) {
      ParamSpec spec = name == "gamma"  ? common::gamma()
                       : name == "base" ? common::base()
                                        : common::omega();
      spec.name = name;
      checkValue(spec, v, "");
    }
    for (const auto& [name, v] : targetOnly)
      if (name != "base") sets.erase(name);
    sets.erase("base");
    auto enc = makeEncoding(kPjDiagnosticsFamily, sets);  // validates every remaining parameter
    const ParamSet& p = enc->params();
    LagKernelParams tp = defaultLagKernelParams(
        p.getInt("head_dim"), targetOnly.count("base") ? targetOnly["base"] : 10000, p.get("L"));
    if (sets.count("omega")) tp.omega = sets["omega"];
    if (targetOnly.count("omega2")) tp.omega2 = targetOnly["omega2"];
    if (targetOnly.count("gamma")) tp.gamma = targetOnly["gamma"];
    const bool pinned = !sets.count("pin_omega") || p.getInt("pin_omega") == 1;
    PjTargetFit tf = fitPjToTarget(o->target, p, tp, pinned);
    const double omega = tf.omega;
    const auto& lags = tf.lags;
    const PjFit& fit = tf.fit;
    const auto& d = fit.diagnostics;
    if (o->common.json) {
      nlohmann::json doc{{"target", o->target},
                         {"omega", omega},
                         {"fit_mse", d.kernelMse},
                         {"rows", nlohmann::json::array()}};
      for (const auto& r : d.rows)
        doc["rows"].push_back({{"sector", r.sector},
                               {"order", r.order},
                               {"mass", r.mass},
                               {"mass_share", r.massShare},
                               {"energy", r.energy},
                               {"loo", r.loo}});
      return printJson(doc);
    }
    std::cout << "PJ-bias fit to " << o->target << " over lags 1.." << lags.back()
              << " (omega = " << formatNumber(omega) << "): MSE " << formatNumber(d.kernelMse, 4)
              << "\n\n";
    std::vector<std::vector<std::string>> rows;
    for (const auto& r : d.rows)
      rows.push_back({r.sector, r.sector == "affine" ? "-" : std::to_string(r.order),
                      formatNumber(r.mass, 4), formatNumber(r.massShare, 3),
                      formatNumber(r.energy, 3), formatNumber(r.loo, 4)});
    printTable({"sector", "order", "mass", "share", "energy", "LOO"}, rows);
  });
}

}  // namespace poslab::cli
