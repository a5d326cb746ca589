#include "tasks/task_options.h"

#include <algorithm>
#include <cmath>
#include <exception>

#include "tasks/lag_kernels.h"
#include "tasks/sector_teacher.h"
#include "tasks/task_common.h"

namespace poslab {

namespace {
constexpr double kKernelLmBase = 10000;  // as kernel_lm.cpp: omega = base^(-6/headDim)
constexpr double kMaxLen = static_cast<double>(kMaxTaskLength);
}  // namespace

std::vector<TaskOptionSpec> taskOptionSpecs(const TaskConfig& c) {
  const double L = static_cast<double>(c.trainLength);
  if (c.id == "indirect-indexing")
    return {{"alphabet", true, 8, kMaxLen, 128, false,
             "A: distinct characters to draw from; sequences hold up to A of them (T <= A + 3)"},
            {"max_offset", true, 1, kMaxLen, 8, false,
             "K: offsets from -K to K (not 0); needs A >= 2K + 1 and T >= 2K + 4"}};
  if (c.id == "kernel-lm") {
    const LagKernelParams p =
        defaultLagKernelParams(std::max<long long>(1, c.headDim), kKernelLmBase, L);
    return {{"omega", false, -HUGE_VAL, HUGE_VAL, p.omega, true,
             "main frequency of the target kernel (rad per position); default 10000^(-6/head_dim)"},
            {"omega2", false, -HUGE_VAL, HUGE_VAL, p.omega2, true,
             "second frequency (rhythm_envelope); default 10000^(-10/head_dim)"},
            {"gamma", false, 0, HUGE_VAL, p.gamma, false, "decay of damped_mixed (per position)"},
            {"scaled_c", false, -HUGE_VAL, HUGE_VAL, p.scaledC, false,
             "c of scaled_high_jet_rN: x^N e^(-c x) cos(omega d)"},
            {"stochastic", true, 0, 1, 0, false,
             "1: labels drawn from sigmoid(3 score) instead of the sign of the score"}};
  }
  if (c.id == "kv-retrieval")
    return {{"pairs", true, 1, std::floor(kMaxLen / 3) - 1, 32, false,
             "P: key-value pairs stored in each sequence (needs T >= 3P + 3)"},
            {"keys", true, 1, kMaxLen, 128, false, "K: distinct key tokens (>= pairs)"},
            {"values", true, 2, kMaxLen, 128, false, "V: distinct value tokens"}};
  if (c.id == "sector-teacher") {
    const auto teachers = sectorTeacherNames();
    const bool known = std::find(teachers.begin(), teachers.end(), c.kernel) != teachers.end();
    return {
        {"omega", false, 0, HUGE_VAL,
         defaultTeacherOmega(known ? c.kernel : taskDefaultKernel(c.id), L), true,
         "teacher frequency (rad per position); default 2 pi 17 / L (poslab- teachers: "
         "2 pi 4 / L)"},
        {"teacher", true, 0, 1, 1, false,
         "1: softmax(lambda K) attention teacher (the reference's default); 0: K / ||K||"},
        {"attention_lambda", false, 1e-12, 1e12, 4, false,
         "lambda of the attention teacher softmax(lambda K)"},
        {"L", false, 1, HUGE_VAL, L, true, "context scale of the teacher (default: train length)"}};
  }
  return {};
}

std::vector<std::string> taskKernelChoices(const std::string& taskId) {
  if (taskId == "kernel-lm") return lagKernelNames();
  if (taskId == "sector-teacher") return sectorTeacherNames();
  return {};
}

std::string taskDefaultKernel(const std::string& taskId) {
  if (taskId == "kernel-lm") return "mixed_raw";
  if (taskId == "sector-teacher") return "recency_weak_jet";
  return "";
}

long long taskMinLength(const TaskConfig& config) {
  if (taskTakesText(config.id)) return 0;
  try {
    return makeTask(config)->minLength();
  } catch (const std::exception&) {
    return 0;
  }
}

}  // namespace poslab
