// The window's tabs (the explorer's five views and the live-training tab), their names on the
// command line and in sessions, and the one thing features may do with them: ask which is shown
// and show another (ViewSelector, implemented by MainWindow). A header of its own, so that help,
// sessions, lessons and menus name a tab without depending on the window.
#pragma once

#include <QString>

#include <optional>

namespace poslab::ui {

// The window's tabs, in order.
enum class WindowView { Kernel, Attention, Norms, Probe, Diagnostics, Training };
inline constexpr int kWindowViewCount = 6;

// "kernel", "attention", "norms", "probe", "diagnostics", "training"; nullopt otherwise.
std::optional<WindowView> parseWindowView(const QString& name);
QString windowViewName(WindowView view);
QString windowViewNames();  // "kernel|attention|..." for --help

// Which tab is shown, and showing another.
class ViewSelector {
 public:
  virtual void showView(WindowView view) = 0;
  virtual WindowView currentView() const = 0;

 protected:
  ~ViewSelector() = default;
};

}  // namespace poslab::ui
