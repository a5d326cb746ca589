#include "session/session_work_check.h"

#include <string>

#include "bridge/catalog.h"
#include "bridge/explorer_work.h"
#include "window_view.h"

namespace poslab::ui {

namespace {

// The request the explorer would send for `view` of `state`: every parameter (the family's
// defaults under the state's values) and the overrides (values that differ from the defaults).
ExplorerRequest requestOf(const SessionState& state, const FamilyDescription& family,
                          ExplorerView view) {
  ExplorerRequest r;
  r.view = view;
  r.family = state.family;
  for (const ParamSpec& p : family.params) {
    auto it = state.values.find(p.name);
    const double value = it == state.values.end() ? p.defaultValue : it->second;
    r.params[p.name] = value;
    if (value != p.defaultValue) r.overrides[p.name] = value;
  }
  r.kernel = state.views.kernel;
  r.attention = state.views.attention;
  r.norms = state.views.norms;
  r.probe = state.views.probe;
  r.diagnostics = state.views.diagnostics;
  return r;
}

}  // namespace

QString sessionWorkProblem(const SessionState& state) {
  const std::optional<WindowView> tab = parseWindowView(QString::fromStdString(state.tab));
  const FamilyDescription* family = findFamily(state.family);
  if (!tab || *tab == WindowView::Training || !family) return {};
  const auto view = static_cast<ExplorerView>(*tab);  // the explorer's views come first, in order
  // Core's line, field included, as `poslab-cli lesson` says it (limits/view_work.h).
  return QString::fromStdString(
      stateViewWorkProblem(viewWorkRequestOf(requestOf(state, *family, view), view)));
}

}  // namespace poslab::ui
