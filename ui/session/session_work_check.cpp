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

// The field that asks for the view's work, and its value as the file has it.
QString fieldOf(const SessionState& state, const ExplorerRequest& r, ExplorerView view) {
  switch (view) {
    case ExplorerView::Kernel:
      return QStringLiteral("views.kernel.lags' = %1").arg(state.views.kernel.lagCount);
    case ExplorerView::Attention:
      return QStringLiteral("views.attention.T' = %1").arg(state.views.attention.T);
    case ExplorerView::Norms:
      return QStringLiteral("views.norms.max_position' = %1").arg(state.views.norms.maxPos);
    case ExplorerView::Probe:
    case ExplorerView::Diagnostics:
      break;
  }
  const auto L = r.params.find("L");
  if (L == r.params.end()) return QStringLiteral("explorer.values'");
  return QStringLiteral("explorer.values.L' = %1").arg(L->second, 0, 'g', 10);
}

}  // namespace

QString sessionWorkProblem(const SessionState& state) {
  const std::optional<WindowView> tab = parseWindowView(QString::fromStdString(state.tab));
  const FamilyDescription* family = findFamily(state.family);
  if (!tab || *tab == WindowView::Training || !family) return {};
  const auto view = static_cast<ExplorerView>(*tab);  // the explorer's views come first, in order
  const ExplorerRequest request = requestOf(state, *family, view);
  const std::string problem = explorerWorkProblem(request, view);
  if (problem.empty()) return {};
  return QStringLiteral("field '%1: %2")
      .arg(fieldOf(state, request, view), QString::fromStdString(problem));
}

}  // namespace poslab::ui
