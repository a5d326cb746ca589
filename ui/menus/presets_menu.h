// The Presets menu: one entry per resources/presets/*.json (the papers' experiments), its
// description as tooltip and status tip; a click loads the preset into the training tab (first
// seed, first task variant), switches to that tab and starts training (app_shell.cpp).
#pragma once

#include <QString>

#include <functional>
#include <vector>

#include "session/session_families.h"
#include "window_view.h"

class QMenu;

namespace poslab::ui {

class TrainingPanel;

// Loads a preset (a name from presetNames() or a path to a preset JSON file) into the training
// panel and shows the training tab (through `views`); does not start it. False with *error (nothing
// changed) for an unknown or malformed preset. *note says what of the preset the tab runs (first
// seed of N, first task variant of M).
bool loadPresetIntoTraining(TrainingPanel* panel, ViewSelector* views, const QString& nameOrPath,
                            QString* error, QString* note);

// The TorchScript modules a preset names (its families that are files), read from its JSON
// without running them: the window loads them first through its FamilyFileGate. Empty when the
// preset cannot be read (loadPresetIntoTraining then says why).
std::vector<FamilyFileNeed> presetFamilyNeeds(const QString& nameOrPath);

// Fills the Presets menu (menu_bar.h): one action per preset, object name "preset:NAME", which
// calls `chosen` with the preset's name.
void fillPresetsMenu(QMenu* menu, const std::function<void(const QString&)>& chosen);

}  // namespace poslab::ui
