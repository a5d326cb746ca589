#include "train/pj_sector_init.h"

#include <array>
#include <cmath>

#include "encodings/pj_sector_sets.h"
#include "encodings/registry.h"
#include "tasks/sector_teacher.h"
#include "tasks/task_info.h"
#include "util/error.h"

namespace poslab {

namespace {

void requireTeacherTask(const TrainConfig& c, const char* field) {
  const TaskInfo* task = findTaskInfo(c.task.id);
  if (!task || !task->kernelIsSectorTeacher)
    throw InvalidArgument("field 'model." + std::string(field) + "' = \"auto\" needs task " +
                              "sector-teacher (its teacher names the sector and order), not " +
                              c.task.id,
                          "use \"uniform\"");
}

bool attentionTeacher(const TaskConfig& task) {
  auto it = task.options.find("teacher");
  return it == task.options.end() || it->second != 0;
}

}  // namespace

void resolvePjSectorChoices(TrainConfig& c) {
  ModelConfig& m = c.model;
  const std::optional<SectorParams>& takes = familyInfo(m.family).sectorParams;
  if (!takes) return;  // the family ignores the switches
  const SectorParams& names = *takes;
  if (m.pjSectors == "none") {
    m.family = names.noSectorFamily;
    m.familyParams.clear();
    m.pinned.clear();
    m.pjSectors.clear();
    m.pjGateInit = m.pjOrderInit = "uniform";
    return;
  }
  std::array<bool, 3> enabled{};
  if (!m.pjSectors.empty()) {
    const PjSectorSet set = pjSectorSet(m.pjSectors);
    enabled = {set.fj, set.affine, set.lc};
    if (set.orderZero) m.familyParams[names.order] = 0;
  } else {
    for (size_t s = 0; s < 3; ++s) {
      auto it = m.familyParams.find(names.gates[s]);
      enabled[s] = it == m.familyParams.end() || it->second > 0;  // the default is 1/3
    }
  }
  std::array<double, 3> logits{0, 0, 0};
  if (m.pjGateInit == "auto") {
    requireTeacherTask(c, "pj_gate_init");
    const std::string pref = preferredSectorOfTeacher(c.task.kernel, attentionTeacher(c.task));
    const size_t p = pref == "fj" ? 0 : pref == "affine" ? 1 : 2;
    if (enabled[p]) logits = {-2, -2, -2}, logits[p] = 2;
  }
  const bool rewriteGates = !m.pjSectors.empty() || m.pjGateInit == "auto";
  if (rewriteGates) {
    double z = 0;
    for (size_t s = 0; s < 3; ++s) z += enabled[s] ? std::exp(logits[s]) : 0;
    for (size_t s = 0; s < 3; ++s)
      m.familyParams[names.gates[s]] = enabled[s] ? std::exp(logits[s]) / z : 0;
  }
  if (m.pjOrderInit == "auto") {
    requireTeacherTask(c, "pj_order_init");
    m.familyParams[names.orderPeak] = static_cast<double>(preferredOrderOfTeacher(c.task.kernel));
  }
}

}  // namespace poslab
