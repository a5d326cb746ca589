#include "util/number_text.h"

#include <sstream>

namespace poslab {

std::string formatNumber(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

}  // namespace poslab
