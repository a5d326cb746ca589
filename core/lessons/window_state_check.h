// The window-side fields of a session state (tab, explorer, views: docs/SESSIONS.md), checked
// without a window, so that `poslab-cli lesson FILE` refuses every lesson step the GUI refuses
// and both say the same. The GUI's validateSession (ui/session/session_state.cpp) takes its view
// choices and explorer checks from here; the training block is checkTrainable's
// (train/trainable_check.h). Plain data and core's family registry, no Qt.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "encodings/params.h"
#include "io/json_fields.h"

namespace poslab {

inline constexpr const char* kSessionFormat = "poslab-session-1";

// What the explorer's views offer (their combo boxes list exactly these) and what the window's
// tabs are called.
std::vector<long long> kernelViewLagCounts();             // 16, 32, ..., 32768
std::vector<long long> attentionViewLengths();            // 16, 32, ..., 1024
std::vector<long long> normsViewMaxPositions();           // 256, 512, ..., 32768
std::vector<std::string> diagnosticsTargetNames();        // the lag kernels, then the PJ targets
const std::vector<std::string>& windowTabNames();         // kernel, attention, ..., training
inline constexpr long long kMaxAttentionViewHead = 4096;  // the compute clamps to the heads
inline constexpr int kMaxKernelOverlays = 3;

// Empty when fine, else the problem naming the field, as the session reader says it:
// "field 'explorer.values.gamma' = 7 is outside [0, 1] for family jordan-exact".
// Each value of `values` is one of `params` (the family's), finite, in range, whole where it must.
std::string explorerValuesProblem(const std::string& family, const std::vector<ParamSpec>& params,
                                  const std::map<std::string, double>& values);
// `value` is one of `offered`: "field 'views.kernel.lags' = 100 is not one of 16, 32, ...".
std::string viewChoiceProblem(const std::vector<long long>& offered, const std::string& field,
                              long long value);
std::string viewChoiceProblem(const std::vector<std::string>& offered, const std::string& field,
                              const std::string& value);
// At most kMaxKernelOverlays families, each known (`known` says) and listed once.
template <class Known>
std::string kernelOverlayProblem(const std::vector<std::string>& overlay, Known known);

// A lesson step's (partial) state object: every field it has is read strictly (known fields,
// their types) and checked as the GUI checks it when it opens the step (built-in families and
// their parameter ranges, the views' choices, the tab); a lesson holds no trained models. A family
// loaded from a file (file:PATH) is left to the window that loads it. Throws InvalidArgument
// "SOURCE: field 'views.kernel.lags' = 100 is not one of ...", `source` naming the state
// ("lesson file 'P', step 2, state"; empty: the message starts at "field").
void checkWindowState(const nlohmann::json& state, const std::string& source);

// --- implementation of the template ------------------------------------------------------------

template <class Known>
std::string kernelOverlayProblem(const std::vector<std::string>& overlay, Known known) {
  if (overlay.size() > static_cast<size_t>(kMaxKernelOverlays))
    return "field 'views.kernel.overlay' lists " + std::to_string(overlay.size()) +
           " families; the kernel view overlays at most " + std::to_string(kMaxKernelOverlays);
  for (size_t i = 0; i < overlay.size(); ++i) {
    if (!known(overlay[i]))
      return "field 'views.kernel.overlay[" + std::to_string(i) + "]': unknown family '" +
             overlay[i] + "' (see `poslab-cli families`)";
    for (size_t k = 0; k < i; ++k)
      if (overlay[k] == overlay[i])
        return "field 'views.kernel.overlay' lists family '" + overlay[i] + "' twice";
  }
  return {};
}

}  // namespace poslab
