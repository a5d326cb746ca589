// `poslab-cli task-kernel --task ID --kernel NAME --length N`: the target or teacher kernel K(d) of
// a task (kernel-lm's target, sector-teacher's teacher) at the lags d = 1..N-1 of a sequence of N
// tokens, as the task defines it before normalisation, so that it can be checked against the
// papers' formulas. Task options come from --task-set (or --set) NAME=VALUE.
#include <string>
#include <vector>

#include "cli/cli_common.h"
#include "limits/work_budget.h"
#include "tasks/task.h"
#include "util/error.h"

namespace poslab::cli {

void addTaskKernelCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "task-kernel", "print a task's target or teacher kernel K(d) at the lags of a sequence");
  struct Opts {
    CommonOptions common;  // --set: task options here, like --task-set
    std::vector<std::string> taskSets;
    std::string task;
    std::string kernel;
    long long length = 0;
    long long trainLength = 0;  // 0: the same as --length
    long long headDim = TaskConfig{}.headDim;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--task", o->task, "task id: kernel-lm or sector-teacher")->required();
  cmd->add_option("--kernel", o->kernel, "kernel-lm target kernel / sector-teacher teacher name")
      ->required();
  cmd->add_option("--length", o->length, "sequence length N (lags 1..N-1)")->required();
  cmd->add_option("--train-length", o->trainLength,
                  "training length L that scales the kernel (default: N)");
  cmd->add_option("--head-dim", o->headDim, "head dimension (kernel-lm's default frequencies)")
      ->check(integerIn(2, 1024))
      ->check(CLI::Validator(
          [](const std::string& v) {
            return v.empty() || (v.back() - '0') % 2 == 0 ? std::string()
                                                          : "'" + v + "' must be even";
          },
          "EVEN"))
      ->capture_default_str();
  cmd->add_option("--task-set", o->taskSets, "task option NAME=VALUE (repeatable)");
  addCommonOptions(cmd, o->common);
  cmd->callback([o] {
    TaskConfig c;
    c.id = o->task;
    c.kernel = o->kernel;
    if (o->length < 2)
      throw InvalidArgument("--length " + std::to_string(o->length) + " must be at least 2",
                            "a sequence of N tokens has the lags 1..N-1");
    if (o->trainLength < 0)
      throw InvalidArgument("--train-length " + std::to_string(o->trainLength) +
                            " must be positive");
    c.trainLength = o->trainLength > 0 ? o->trainLength : o->length;
    // The task sums its kernel over the training lags when it is built: checked before that.
    checkWorkFits(taskKernelCost(o->length, c.trainLength),
                  o->trainLength > o->length ? "--train-length " + std::to_string(o->trainLength)
                                             : "--length " + std::to_string(o->length));
    c.headDim = o->headDim;
    std::vector<std::string> sets = o->common.sets;
    sets.insert(sets.end(), o->taskSets.begin(), o->taskSets.end());
    c.options = parseSets(sets);
    const auto task = makeTask(c);
    if (o->length > task->maxLength())
      throw InvalidArgument("--length " + std::to_string(o->length) + " is over the task's " +
                            std::to_string(task->maxLength()));
    const std::vector<double> k = task->targetKernel(o->length);
    if (k.empty())
      throw InvalidArgument("task '" + c.id + "' has no target or teacher kernel",
                            "use kernel-lm or sector-teacher");
    std::vector<long long> lags;
    std::vector<double> values;
    for (long long d = 1; d < o->length; ++d) {
      lags.push_back(d);
      values.push_back(k[d]);
    }
    if (o->common.json)
      return printJson({{"task", c.id},
                        {"kernel_name", c.kernel},
                        {"train_length", c.trainLength},
                        {"lags", lags},
                        {"kernel", values}});
    std::vector<std::vector<std::string>> rows;
    for (size_t i = 0; i < lags.size(); ++i)
      rows.push_back({std::to_string(lags[i]), formatNumber(values[i], 10)});
    printTable({"lag", "K(d)"}, rows);
  });
}

}  // namespace poslab::cli
