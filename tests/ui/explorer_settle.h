// Waiting for the explorer in the UI tests: until the view shows the current parameters (or
// reported an error for them).
#pragma once

#include <QtTest>

#include "explorer/explorer_controller.h"

namespace poslab::ui::test {

inline void settleExplorer(ExplorerController* c, ExplorerView view, int timeoutMs) {
  QTRY_VERIFY2_WITH_TIMEOUT(!c->busy() && c->isUpToDate(view), "view did not settle", timeoutMs);
}

}  // namespace poslab::ui::test
