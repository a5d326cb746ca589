#include "window_view.h"

#include <QStringList>

namespace poslab::ui {

namespace {
const char* const kViewNames[kWindowViewCount] = {"kernel", "attention",   "norms",
                                                  "probe",  "diagnostics", "training"};
}  // namespace

std::optional<WindowView> parseWindowView(const QString& name) {
  for (int i = 0; i < kWindowViewCount; ++i)
    if (name == kViewNames[i]) return static_cast<WindowView>(i);
  return std::nullopt;
}

QString windowViewName(WindowView view) {
  return kViewNames[static_cast<int>(view)];
}

QString windowViewNames() {
  QStringList names;
  for (const char* n : kViewNames) names << n;
  return names.join('|');
}

}  // namespace poslab::ui
