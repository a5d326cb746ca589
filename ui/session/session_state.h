// The whole state of the window as one plain struct, and its JSON form (the body of a .poslab
// session file and of the copy/paste state string): the explorer's family and parameter values,
// each explorer view's settings, the current tab and the training setup (an ExperimentSpec in
// core's one experiment format, train/experiment_spec.h, read by core's strict reader). Reading is
// two-stage so that loading is all-or-nothing: sessionFromJson checks the shape (types, format tag)
// and validateSession checks the content against the window (known family, values in range,
// settings the views offer, a runnable training setup); applySession changes the window only after
// both passed.
#pragma once

#include <QString>

#include <map>
#include <string>
#include <vector>

#include "bridge/explorer_types.h"
#include "explorer/explorer_controller.h"  // ExplorerWidgets
#include "train/experiment_spec.h"  // ExperimentSpec and its JSON (nlohmann): plain data, no torch
#include "window_view.h"

class QUndoStack;

namespace poslab::ui {

class TrainingPanel;

// What a session reads and sets: the explorer's state (family, values, each view's settings),
// the training tab, which tab is shown, and the undo stack a load is recorded on (one step).
struct SessionParts {
  ExplorerWidgets explorer;
  TrainingPanel* training = nullptr;
  ViewSelector* views = nullptr;
  QUndoStack* undo = nullptr;  // null: a load is not undoable
};

inline constexpr const char* kSessionFormat = "poslab-session-1";

struct ViewSettings {
  KernelSettings kernel;
  AttentionSettings attention;
  bool attentionLogColor = true;
  NormsSettings norms;
  ProbeSettingsUi probe;
  DiagnosticsSettings diagnostics;
};

// One trained model of a session saved with File > Save Session with Trained Models: the
// checkpoint of the training run of `family`. `file` is relative to the session file's directory
// in the file (loadSessionFile makes it absolute); `step` is the step it holds (informative: the
// checkpoint itself is what counts).
struct SessionCheckpoint {
  std::string family;
  std::string file;
  long long step = 0;
};

// A family loaded from a TorchScript file that the session uses: its id (file:PATH) and the
// content hash of the module it was saved with (session_families.h).
struct SessionFamilyFile {
  std::string family;
  std::string hash;
};

struct SessionState {
  std::string family;                    // explorer family id
  std::map<std::string, double> values;  // its parameters (missing ones: the spec's default)
  ViewSettings views;
  std::string tab = "kernel";       // parseWindowView name
  poslab::ExperimentSpec training;  // the training tab's setup
  // Trained models, one per training family in training.families' order; empty: setup only
  // (the JSON then has no "trained_models" field, as a plain Save writes it).
  std::vector<SessionCheckpoint> checkpoints;
  // The file families used above, by path and content hash; empty: none (no "family_files").
  std::vector<SessionFamilyFile> familyFiles;
};

// {"format": "poslab-session-1", "explorer": {...}, "views": {...}, "tab": ..., "training": {...}}
nlohmann::json sessionToJson(const SessionState& state);
// Shape only: the format tag, every field's type, no unknown fields. *error names the field.
bool sessionFromJson(const nlohmann::json& j, SessionState& out, QString* error);

// What the window shows now.
SessionState captureSession(const SessionParts& window);
// Empty when `state` can be applied to `window` as a whole, else the first problem, naming the
// field ("explorer.values.gamma = 7 is outside [0, 1] for family jordan-exact").
// withTraining false: everything but the training setup and trained models.
QString validateSession(const SessionParts& window, const SessionState& state,
                        bool withTraining = true);
// Validates, then applies everything (training setup first: it is the only step that can refuse,
// and it refuses without changing anything). With checkpoints (absolute paths) the training tab
// loads and checks each of them before anything changes, and its runs continue from them.
// False, with *error and nothing changed, on a problem. With withTraining false the training tab
// is left exactly as it is (its setup and runs; a lesson step without a training setup).
bool applySession(const SessionParts& window, const SessionState& state, QString* error,
                  bool withTraining = true);

}  // namespace poslab::ui
