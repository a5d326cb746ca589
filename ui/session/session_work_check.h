// A session's or lesson step's explorer view against the work budget: the view its tab shows is
// estimated as the explorer would compute it (bridge/explorer_work.h, core's estimates), so that a
// file asking for work beyond the budget is refused at load, naming the field, and nothing in the
// window changes. The training tab's setup has its own checks (trainingSetupProblem).
#pragma once

#include <QString>

#include "session/session_state.h"

namespace poslab::ui {

// Empty when the shown view fits the request budget (or the tab is the training tab); else
// "field 'views.attention.T' = 1024: attention map: T 1024 (64 heads of head_dim 1024) needs
// about 6.9e+10 multiply-adds, over the budget of 5e+10 ...". The field is the view's setting
// (lags, T, largest position), or the family's L for the probe and the PJ diagnostics. `state`'s
// family and values have passed validateSession's checks.
QString sessionWorkProblem(const SessionState& state);

}  // namespace poslab::ui
