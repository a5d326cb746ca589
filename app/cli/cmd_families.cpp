// `poslab-cli families`: every family id with its parameters, defaults and ranges. The JSON
// gives each formula in the formula markup (docs/MATH.md 0); the text output as plain text.
#include <iostream>

#include "cli/cli_common.h"
#include "encodings/registry.h"
#include "util/formula_text.h"

namespace poslab::cli {

void addFamiliesCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("families", "list the encoding families and their parameters");
  auto json = std::make_shared<bool>(false);
  auto ids = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "print one JSON document on stdout");
  cmd->add_flag("--ids", *ids, "print only the family ids, one per line");
  cmd->callback([json, ids] {
    if (*ids) {
      for (const FamilyInfo* info : allFamilies()) std::cout << info->id << "\n";
      return;
    }
    nlohmann::json doc;
    doc["families"] = nlohmann::json::array();
    for (const FamilyInfo* info : allFamilies()) {
      auto enc = makeEncoding(info->id);
      nlohmann::json f{{"id", info->id},
                       {"title", info->title},
                       {"formula", info->formula},
                       {"summary", info->summary},
                       {"factorized", enc->hasFactorized()},
                       {"relative", enc->isRelative()},
                       {"params", nlohmann::json::array()}};
      for (const auto& p : info->params) {
        f["params"].push_back({{"name", p.name},
                               {"default", p.defaultValue},
                               {"min", p.min},
                               {"max", p.max},
                               {"integer", p.integer},
                               {"description", p.description}});
      }
      doc["families"].push_back(f);
    }
    if (*json) return printJson(doc);
    for (const auto& f : doc["families"]) {
      std::cout << f["id"].get<std::string>() << "  (" << f["title"].get<std::string>() << ")"
                << (f["factorized"].get<bool>() ? "" : "  [direct form only]")
                << (f["relative"].get<bool>() ? "" : "  [not relative]") << "\n    "
                << formulaAsPlainText(f["formula"].get<std::string>()) << "\n";
      for (const auto& p : f["params"]) {
        std::cout << "    " << p["name"].get<std::string>() << " = "
                  << formatNumber(p["default"].get<double>()) << "  ["
                  << formatNumber(p["min"].get<double>()) << ", "
                  << formatNumber(p["max"].get<double>()) << "]"
                  << (p["integer"].get<bool>() ? " integer" : "") << "  "
                  << p["description"].get<std::string>() << "\n";
      }
      std::cout << "\n";
    }
  });
}

}  // namespace poslab::cli
