#include "window_view.h"

#include <QStringList>

#include "lessons/window_state_check.h"

namespace poslab::ui {

// The names are core's (lessons/window_state_check.h), so that a lesson's tab is checked alike
// without a window; they are in the order of WindowView.
std::optional<WindowView> parseWindowView(const QString& name) {
  const auto& names = windowTabNames();
  for (int i = 0; i < kWindowViewCount; ++i)
    if (name == QString::fromStdString(names[i])) return static_cast<WindowView>(i);
  return std::nullopt;
}

QString windowViewName(WindowView view) {
  return QString::fromStdString(windowTabNames()[static_cast<int>(view)]);
}

QString windowViewNames() {
  QStringList names;
  for (const std::string& n : windowTabNames()) names << QString::fromStdString(n);
  return names.join('|');
}

}  // namespace poslab::ui
