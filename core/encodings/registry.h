// Looking families up by id and building them from NAME=VALUE overrides.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "encodings/encoding.h"

namespace poslab {

// Every family, in the order of docs/MATH.md section 1.
const std::vector<const FamilyInfo*>& allFamilies();
// Throws InvalidArgument naming the unknown id and listing the known ones.
const FamilyInfo& familyInfo(const std::string& id);
// Defaults, then overrides; validates every value and the family's structural constraints.
std::unique_ptr<Encoding> makeEncoding(const std::string& id,
                                       const std::map<std::string, double>& overrides = {});

}  // namespace poslab
