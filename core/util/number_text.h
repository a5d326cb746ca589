// A number as a message shows it: 0.03, 1024, 1e-05 (the stream's default, 6 significant digits),
// the way a user would type it back.
#pragma once

#include <string>

namespace poslab {

std::string formatNumber(double v);

}  // namespace poslab
