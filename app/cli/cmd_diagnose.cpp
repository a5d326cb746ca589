// `poslab-cli diagnose --target NAME`: for a kernel-LM target, fit the PJ-bias basis by least
// squares and print mass, energy and leave-one-order-out per sector and order (docs/MATH.md 4.2);
// for a sector target (or `all`, the reference's eight), the PJ adaptive recovery of MATH 4.2.5
// (the PJ-RoPE reference's experiments/adaptive_spectrum_diagnostic.py).
#include <cmath>
#include <iostream>
#include <sstream>

#include "analysis/pj_adaptive.h"
#include "analysis/pj_diagnostics.h"
#include "cli/cli_common.h"
#include "cli/diagnose_fixed_kernel.h"
#include "cli/progress.h"
#include "encodings/common_params.h"
#include "encodings/registry.h"
#include "limits/work_budget.h"
#include "tasks/lag_kernels.h"
#include "util/error.h"

namespace poslab::cli {

namespace {
// The adaptive recovery's options, as the reference script's flags.
struct AdaptiveOptions {
  PjAdaptiveSettings s;
  std::string selection = "train_mse";
  std::vector<double> omegaCycles;         // one value for the adaptive recovery
  std::vector<CLI::Option*> given;         // to refuse them with a kernel-LM target
  std::vector<CLI::Option*> adaptiveOnly;  // to refuse them with --fixed-kernel
  bool fixedKernel = false;
  std::vector<long long> evalLengths;  // --fixed-kernel's lengths
  CLI::Option* evalLengthsOption = nullptr;
  CLI::Option* evalLenOption = nullptr;
};

void addAdaptiveOptions(CLI::App* cmd, AdaptiveOptions& a) {
  const std::string only = " (sector targets)";
  a.given = {
      cmd->add_option("--train-len", a.s.trainLength, "L: fit on d = 0..L-1" + only)
          ->capture_default_str()
          ->check(integerIn(2, 65536)),
      a.evalLenOption =
          cmd->add_option("--eval-len", a.s.evalLength, "T: evaluate on d = 0..T-1" + only)
              ->capture_default_str()
              ->check(integerIn(2, 1'000'000)),
      cmd->add_option(
             "--omega-cycles", a.omegaCycles,
             "omega = 2 pi cycles / L" + only + " (17; --fixed-kernel: a comma list, 5,17,61)")
          ->delimiter(','),
      cmd->add_option("--max-order", a.s.maxOrder, "R: jet orders 0..R" + only)
          ->capture_default_str()
          ->check(integerIn(0, 8)),
      cmd->add_option("--steps", a.s.steps, "Adam steps per restart" + only)
          ->capture_default_str()
          ->check(integerIn(0, 100000)),
      cmd->add_option("--lr", a.s.lr, "Adam learning rate" + only)->capture_default_str(),
      cmd->add_option("--restarts", a.s.restarts, "restarts per target; the best is shown" + only)
          ->capture_default_str()
          ->check(integerIn(1, 64)),
      cmd->add_flag("--order-init-cycle", a.s.orderInitCycle,
                    "restart k starts with its order mass on order k mod (R+1)" + only),
      cmd->add_option("--selection", a.selection,
                      "train_mse or eval_mse: how the best restart "
                      "is chosen" +
                          only)
          ->capture_default_str()
          ->check(CLI::IsMember({"train_mse", "eval_mse"})),
      cmd->add_option("--seed", a.s.seed, "restart k is seeded seed + 7919 k" + only)
          ->capture_default_str(),
      cmd->add_flag("--float64", a.s.float64, "train in float64 (default float32)" + only)};
  for (const char* name :
       {"--steps", "--lr", "--restarts", "--order-init-cycle", "--selection", "--seed"})
    a.adaptiveOnly.push_back(cmd->get_option(name));
  a.adaptiveOnly.push_back(a.evalLenOption);
  cmd->add_flag("--fixed-kernel", a.fixedKernel,
                "the fixed kernel basis recovery: a least-squares readout of each fixed basis "
                "(rope, alibi, Jordan and scaled jets, light cone) on d < L, its MSE and R2 on "
                "d < T for each --eval-lengths T; sector targets (default: all)");
  a.evalLengthsOption =
      cmd->add_option("--eval-lengths", a.evalLengths,
                      "--fixed-kernel: evaluation lengths, a comma list (1024,2048,4096,8192)")
          ->delimiter(',')
          ->check(integerIn(2, 1'000'000));
  a.given.push_back(a.evalLengthsOption);
}

// --fixed-kernel: the reference's defaults where no option was given.
FixedRecoverySettings fixedSettings(const AdaptiveOptions& a, const CLI::App& cmd) {
  FixedRecoverySettings f;
  if (cmd.get_option("--train-len")->count() > 0) f.trainLength = a.s.trainLength;
  if (cmd.get_option("--max-order")->count() > 0) f.maxOrder = a.s.maxOrder;
  if (!a.omegaCycles.empty()) f.omegaCycles = a.omegaCycles;
  if (!a.evalLengths.empty()) f.evalLengths = a.evalLengths;
  f.float64 = a.s.float64;
  return f;
}

std::vector<std::string> sectorTargets(const std::string& target) {
  if (target == "all") {
    auto names = pjAdaptiveTargetNames();
    names.pop_back();  // the reference script's eight; `affine` is the sector teachers' extra
    return names;
  }
  std::vector<std::string> out;
  std::stringstream ss(target);
  std::string name;
  while (std::getline(ss, name, ','))
    if (isPjAdaptiveTarget(name))
      out.push_back(name);
    else
      return {};
  requireDistinct(out, "--target");  // phase,phase ran the same fits twice
  return out;
}

std::string orders(const std::vector<double>& v, int precision) {
  std::string s;
  for (double x : v) s += (s.empty() ? "" : " ") + formatNumber(x, precision);
  return s;
}

// "9 targets" or "target phase".
std::string targetsText(const std::vector<std::string>& targets) {
  return targets.size() == 1 ? "target " + targets.front()
                             : std::to_string(targets.size()) + " targets";
}

void runAdaptive(const AdaptiveOptions& a, const std::vector<std::string>& targets, bool json) {
  PjAdaptiveSettings s = a.s;
  s.selectByEval = a.selection == "eval_mse";
  checkPjAdaptiveSettings(s);  // the ranges first: the estimate below assumes them
  // Minutes at most, with progress (limits/work_budget.h): steps x restarts x targets Adam steps
  // over (R + 1) x L values, and each restart's evaluation over T lags.
  checkWorkFits(pjAdaptiveCost(static_cast<long long>(targets.size()), s.restarts, s.steps,
                               s.trainLength, s.evalLength, s.maxOrder),
                "--steps " + std::to_string(s.steps) + " with --restarts " +
                    std::to_string(s.restarts) + " for " + targetsText(targets) +
                    " at --train-len " + std::to_string(s.trainLength) + ", --eval-len " +
                    std::to_string(s.evalLength) + " and --max-order " + std::to_string(s.maxOrder),
                kProgressWorkBudget);
  ProgressBar bar("diagnose", static_cast<long long>(targets.size()) * s.restarts * (s.steps + 1));
  const auto results =
      runPjAdaptive(s, targets, [&](long long done, long long) { bar.updateCount(done, "steps"); });
  bar.finish();
  if (json) {
    nlohmann::json doc{{"config",
                        {{"train_len", s.trainLength},
                         {"eval_len", s.evalLength},
                         {"omega_cycles", s.omegaCycles},
                         {"max_order", s.maxOrder},
                         {"steps", s.steps},
                         {"lr", s.lr},
                         {"restarts", s.restarts},
                         {"order_init_cycle", s.orderInitCycle},
                         {"selection_metric", a.selection},
                         {"seed", s.seed},
                         {"float64", s.float64}}},
                       {"results", nlohmann::json::array()}};
    for (const auto& r : results)
      doc["results"].push_back(
          {{"target", r.target},
           {"restart", r.restart},
           {"train_mse", r.trainMse},
           {"train_r2", r.trainR2},
           {"eval_mse", r.evalMse},
           {"eval_r2", r.evalR2},
           {"gates", {{"fj", r.gates[0]}, {"affine", r.gates[1]}, {"lc", r.gates[2]}}},
           {"affine_slope", r.affineSlope},
           {"damping", r.damping},
           {"fj_mass", r.fjMass},
           {"lc_mass", r.lcMass},
           {"normalized_order_mass", r.orderMass},
           {"functional_energy", r.energy},
           {"leave_one_order_out_delta_mse", r.loo},
           {"top_order", r.topOrder}});
    return printJson(doc);
  }
  std::cout << "PJ adaptive recovery @ L=" << s.trainLength << ", T=" << s.evalLength
            << " (omega = 2 pi " << formatNumber(s.omegaCycles) << "/L), Adam " << s.steps
            << " steps at lr " << formatNumber(s.lr) << ", best of " << s.restarts
            << " restarts by " << a.selection << (s.float64 ? ", float64" : ", float32") << "\n\n";
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : results)
    rows.push_back({r.target, formatNumber(r.trainMse, 3), formatNumber(r.trainR2, 4),
                    formatNumber(r.evalMse, 3), formatNumber(r.evalR2, 4),
                    formatNumber(r.gates[0], 2) + "/" + formatNumber(r.gates[1], 2) + "/" +
                        formatNumber(r.gates[2], 2),
                    "r=" + std::to_string(r.topOrder)});
  printTable(
      {"target", "train MSE", "train R2", "eval MSE", "eval R2", "gates fj/a/lc", "top order"},
      rows);
  std::cout << "\nPer order r = 0.." << s.maxOrder
            << " (FJ and LC summed per order; energy and LOO over d < T):\n\n";
  rows.clear();
  for (const auto& r : results)
    rows.push_back({r.target, orders(r.orderMass, 3), orders(r.energy, 3), orders(r.loo, 3)});
  printTable({"target", "mass share", "energy", "LOO dMSE"}, rows);
}
}  // namespace

void addDiagnoseCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "diagnose",
      "a kernel-LM target: fit pj-bias by least squares; mass, energy and LOO per sector and "
      "order (the head's frequency is pinned to the target's omega unless --set pin_omega=0). "
      "A sector target (phase, linear, first_jet, second_jet, third_jet, recency_weak_jet, "
      "lc_core, lc_affine, affine; a comma list; or all): the PJ adaptive recovery, a "
      "softmax-gated PJ kernel trained by Adam with restarts");
  struct Opts {
    CommonOptions common;
    std::string target = "mixed_raw";
  };
  auto o = std::make_shared<Opts>();
  auto adaptive = std::make_shared<AdaptiveOptions>();
  cmd->add_option("--target", o->target,
                  "a kernel-LM target (mixed_raw, ...), or sector targets, or all")
      ->capture_default_str();
  addCommonOptions(cmd, o->common);
  addAdaptiveOptions(cmd, *adaptive);
  cmd->callback([o, adaptive, cmd] {
    const bool targetGiven = cmd->get_option("--target")->count() > 0;
    if (adaptive->fixedKernel) {
      if (!o->common.sets.empty())
        throw InvalidArgument("--set applies to kernel-LM targets, not to --fixed-kernel");
      for (const CLI::Option* opt : adaptive->adaptiveOnly)
        if (opt->count() > 0)
          throw InvalidArgument(opt->get_name() +
                                " applies to the adaptive recovery, not to "
                                "--fixed-kernel (which fits and evaluates without training)");
      const auto targets = targetGiven ? sectorTargets(o->target) : std::vector<std::string>{};
      if (targetGiven && targets.empty())
        throw InvalidArgument("--fixed-kernel fits sector targets, not '" + o->target + "'",
                              "give phase, linear, first_jet, second_jet, third_jet, "
                              "recency_weak_jet, lc_core, lc_affine, a comma list, or all");
      return runFixedKernelRecovery(fixedSettings(*adaptive, *cmd), targets, o->common.json);
    }
    if (adaptive->evalLengthsOption->count() > 0)
      throw InvalidArgument(
          "--eval-lengths applies to --fixed-kernel; the adaptive recovery "
          "takes one --eval-len");
    if (adaptive->omegaCycles.size() > 1)
      throw InvalidArgument("--omega-cycles takes one value here; a list is for --fixed-kernel");
    if (!adaptive->omegaCycles.empty()) adaptive->s.omegaCycles = adaptive->omegaCycles.front();
    const auto sectors = sectorTargets(o->target);
    if (!sectors.empty()) {
      if (!o->common.sets.empty())
        throw InvalidArgument("--set applies to kernel-LM targets, not to the sector target '" +
                              o->target + "'");
      return runAdaptive(*adaptive, sectors, o->common.json);
    }
    for (const CLI::Option* opt : adaptive->given)
      if (opt->count() > 0)
        throw InvalidArgument(opt->get_name() + " applies to sector targets, not to '" + o->target +
                              "'");
    auto sets = parseSets(o->common.sets);
    try {
      checkLagKernelName(o->target);
    } catch (const InvalidArgument& e) {  // name both kinds of target
      std::string list, kernels = e.hint();
      for (const auto& n : pjAdaptiveTargetNames()) list += (list.empty() ? "" : ", ") + n;
      if (kernels.rfind("known: ", 0) == 0) kernels = kernels.substr(7);
      throw InvalidArgument("unknown target '" + o->target + "'",
                            "kernel-LM targets: " + kernels + "; sector targets: " + list +
                                ", a comma list of them, or all");
    }
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
    // One least-squares fit over L - 1 lags, as the window's diagnostics view (the request budget).
    const auto L = static_cast<long long>(p.get("L"));
    checkWorkFits(
        pjTargetFitCost(L, p.getInt("order")),
        "--set L=" + std::to_string(L) + " (order " + std::to_string(p.getInt("order")) + ")");
    PjTargetFit tf = fitPjToTarget(o->target, p, tp, pinned);
    const double omega = tf.omega;
    const auto& lags = tf.lags;
    const PjFit& fit = tf.fit;
    const auto& d = fit.diagnostics;
    if (o->common.json) {
      nlohmann::json doc{{"target", o->target},
                         {"omega", omega},
                         {"fit_mse", d.kernelMse},
                         {"condition_number", fit.conditionNumber},
                         {"ill_conditioned", !(fit.conditionNumber <= kPjIllConditioned)},
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
                      formatNumber(r.mass, 4),
                      std::isnan(r.massShare) ? "-" : formatNumber(r.massShare, 3),
                      formatNumber(r.energy, 3), formatNumber(r.loo, 4)});
    printTable({"sector", "order", "mass", "share", "energy", "LOO"}, rows);
    std::cout << "\n(share: of the FJ and LC masses; the affine mass g_aff |slope| stands apart)\n";
    if (!(fit.conditionNumber <= kPjIllConditioned))
      std::cout << "\nwarning: the PJ-bias basis is ill-conditioned over these lags (condition "
                   "number "
                << formatNumber(fit.conditionNumber, 3)
                << " with unit columns): the fit is determined, its split into sectors and orders "
                   "is not; read mass, share, energy and LOO per order as one of many equally good "
                   "splits\n";
  });
}

}  // namespace poslab::cli
