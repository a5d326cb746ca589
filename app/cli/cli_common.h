// What every poslab-cli command shares: the --set/--json options, parsing them, and printing.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace poslab::cli {

struct CommonOptions {
  std::vector<std::string> sets;  // raw NAME=VALUE strings from --set
  bool json = false;
};

// Adds --set (repeatable) and --json to a subcommand.
void addCommonOptions(CLI::App* cmd, CommonOptions& opts);

// Parses the --set list; a repeated name keeps the last value. Throws InvalidArgument.
std::map<std::string, double> parseSets(const std::vector<std::string>& sets);

// Prints one JSON document on stdout; an object gets "threads", the intra-op thread count in use.
void printJson(const nlohmann::json& doc);

// A plain text table: header row, then rows, columns padded to their widest cell.
void printTable(const std::vector<std::string>& header,
                const std::vector<std::vector<std::string>>& rows);

std::string formatNumber(double v, int precision = 6);

// A CLI11 check that the option's value is a whole number in [lo, hi]; the message names the value
// and the range (CLI11 prefixes the option's name), e.g. "--steps: '0' must be in [1, 1000000]".
CLI::Validator integerIn(long long lo, long long hi);

// A CLI11 check that the option's value is a finite number in [lo, hi] (CLI::Range lets nan pass:
// every comparison with it is false).
CLI::Validator numberIn(double lo, double hi);

// Throws InvalidArgument naming `what` when a name occurs twice in `names`.
void requireDistinct(const std::vector<std::string>& names, const std::string& what);

// Flushes stdout and throws Error when a write to it failed (a full disk, a closed pipe), so that
// a command never exits 0 after losing its output.
void checkStdoutWritten();

// Each subcommand registers itself on the app and runs from its callback.
void addFamiliesCommand(CLI::App& app);
void addKernelCommand(CLI::App& app);
void addProbeCommand(CLI::App& app);
void addNormsCommand(CLI::App& app);
void addAttentionCommand(CLI::App& app);
void addDiagnoseCommand(CLI::App& app);
void addTrainCommand(CLI::App& app);
void addEvalCommand(CLI::App& app);
void addCompareCommand(CLI::App& app);
void addRunCommand(CLI::App& app);
void addResponseCommand(CLI::App& app);
void addPopeUsageCommand(CLI::App& app);
void addTaskKernelCommand(CLI::App& app);
void addLessonCommand(CLI::App& app);

}  // namespace poslab::cli
