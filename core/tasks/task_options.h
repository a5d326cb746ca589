// The options each task takes (TaskConfig::options), described for a form: name, integer or real,
// range, the default the task uses for a given config, and one line of help. Each task declares
// its own beside its generator (TaskInfo::optionSpecs in tasks/*.cpp, task_info.h); the generator
// remains the authority (it parses and rejects), and tests/core/test_live_inspection.cpp checks
// that the specs agree with it. These functions look the task up in the registry. Plain data, no
// torch.
#pragma once

#include <string>
#include <vector>

#include "tasks/task_config.h"

namespace poslab {

struct TaskOptionSpec {
  std::string name;         // key in TaskConfig::options, e.g. "alphabet"
  bool integer = false;     // integer-valued (a 0/1 integer is a switch)
  double min = 0, max = 0;  // inclusive range a form offers; the task rejects values outside
                            // it, except a negative value where negativeMeansDefault says so.
                            // Options may also constrain each other (alphabet >= 2K + 1).
  double defaultValue = 0;  // what the task uses when the option is absent, for this config
  bool derived = false;     // the default follows other settings (train length, head dim)
  std::string help;         // one line: meaning and unit
  bool negativeMeansDefault = false;  // a value below 0 asks for the default (sector-teacher omega)
};

// The options shown for task `config.id` (byte-lm's internal "split" is not one); empty for an
// unknown task. Defaults are computed for `config` (its train length, head dim, kernel).
std::vector<TaskOptionSpec> taskOptionSpecs(const TaskConfig& config);

// The names that TaskConfig::kernel may take for the task (TaskInfo::kernelChoices): lag kernels
// for kernel-lm, teachers for sector-teacher, empty for the tasks that do not use it and for an
// unknown task.
std::vector<std::string> taskKernelChoices(const std::string& taskId);

// The kernel a task takes when none is named (the CLI without --kernel, the GUI on choosing the
// task; TaskInfo::defaultKernel): kernel-lm's mixed_raw (TaskConfig's default, the paper's main
// kernel), sector-teacher's recency_weak_jet (the PJ-RoPE reference's --target default); empty
// for the tasks that take no kernel.
std::string taskDefaultKernel(const std::string& taskId);

// The shortest sequence the task `config` describes can generate, with its options (kv-retrieval:
// 3 pairs + 3; indirect-indexing: 2 max_offset + 4), from the task itself, so that a form can keep
// its train length within reach. 0 when the config makes no task (an unknown id, an option out of
// range: the trainer names it when the run is built) and for text tasks (whose file is not read).
long long taskMinLength(const TaskConfig& config);

}  // namespace poslab
