// The Presets menu: one entry per resources/presets/*.json (the papers' experiments), its
// description as tooltip and status tip; a click loads the preset into the training tab (first
// seed, first task variant), switches to that tab and starts training.
#pragma once

#include <QString>

class QMenu;

namespace poslab::ui {

class MainWindow;

// Loads a preset (a name from presetNames() or a path to a preset JSON file) into the training
// panel and shows the training tab; does not start it. False with *error (nothing changed) for an
// unknown or malformed preset. *note says what of the preset the tab runs (first seed of N, first
// task variant of M).
bool loadPresetIntoWindow(MainWindow& window, const QString& nameOrPath, QString* error,
                          QString* note);

// The menu (object name "presetsMenu"), appended to the window's menu bar; each action's object
// name is "preset:NAME".
QMenu* installPresetsMenu(MainWindow* window);

}  // namespace poslab::ui
