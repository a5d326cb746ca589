// Torch-free copies of what the UI needs to know about core's registries: families with their
// parameter specs, task ids, probe targets. Computed once (the registries are static).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "encodings/params.h"  // ParamSpec: plain data, no torch

namespace poslab::ui {

struct FamilyDescription {
  std::string id;       // "jordan-exact"
  std::string title;    // "Jordan-RoPE (exact)"
  std::string formula;  // Unicode formula from FamilyInfo
  std::string summary;
  std::vector<ParamSpec> params;
};

// Every family, in the order of docs/MATH.md section 1.
const std::vector<FamilyDescription>& familyCatalog();
// nullptr for an unknown id.
const FamilyDescription* findFamily(const std::string& id);
// Empty when makeEncoding(id, params) succeeds, else core's message (unknown id, a value out of
// range, head_dim not divisible, ...).
std::string checkEncoding(const std::string& id, const std::map<std::string, double>& params);

std::vector<std::string> trainingTaskIds();
std::vector<std::string> probeTargetNames();  // core probeTargetNames(): toy, then lag kernels
std::vector<std::string> defaultProbeFamilyIds();
// The diagnostics tab's targets: the kernel-LM targets (least-squares PJ-bias fit), then the
// sector targets (the PJ adaptive recovery).
std::vector<std::string> diagnosticsTargetNames();

}  // namespace poslab::ui
