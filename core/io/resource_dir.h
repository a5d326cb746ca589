// Where PosLab's data files (resources/presets, resources/lessons) are, for a program run from
// its build tree and for an installed one alike.
#pragma once

#include <string>

namespace poslab {

// $POSLAB_RESOURCES when set; else, for an installed program (<prefix>/bin/poslab),
// <prefix>/share/poslab/resources when it exists; else the source tree's resources/ folder.
std::string resourceDirectory();

}  // namespace poslab
