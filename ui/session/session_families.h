// The families loaded from TorchScript files that a session uses (the explorer's, the kernel
// overlays', the training setup's), kept in the session by path (the id file:PATH) and content
// hash: "family_files" (docs/SESSIONS.md). Opening the session loads each as it was saved: from
// its file when the file still holds that content, else from the session's trained model of that
// family (a checkpoint keeps the module, so such a run opens without the file). A missing or
// changed file with no trained model to fall back on is refused, naming the file; it is never
// used silently.
#pragma once

#include <QDir>
#include <QString>

#include <string>
#include <vector>

#include "bridge/loaded_families.h"
#include "session/session_state.h"

namespace poslab::ui {

// One TorchScript module that a document (a session, a state string, a preset) names.
struct FamilyFileNeed {
  std::string family;      // file:PATH
  std::string field;       // where the document names it: "family_files[0]", "families[1]"
  std::string hash;        // the content hash it was saved with; empty: the file as it is now
  std::string checkpoint;  // a trained model of the family whose module stands in for a missing
                           // or changed file; empty: none
};

// The modules `doc` names: each family_files entry (path and hash), then every other string of
// the document that is a file family id (a hand-written session, a preset), once each; each with
// the trained model of its family (trained_models[], resolved against `base`) when there is one.
// Reads the JSON only: runs no module.
std::vector<FamilyFileNeed> familyFileNeeds(const nlohmann::json& doc, const QDir& base);
// The needs of a session already read (its family_files, checkpoints and families).
std::vector<FamilyFileNeed> familyFileNeeds(const SessionState& state);
// Those of `needs` that are not loaded as named (with that hash, or at all): what loading them
// would run.
std::vector<FamilyFileNeed> notLoaded(const std::vector<FamilyFileNeed>& needs);
// Loads one need: from its file, checked against its hash (a missing or changed file falls back
// on its trained model's module, else is refused); the error names the field. Any thread; runs
// the module's code and its checks; adds nothing to the family lists.
FamilyLoad loadFamilyNeed(const FamilyFileNeed& need);

// The file families `state` uses, each with the content hash of what is loaded now.
std::vector<SessionFamilyFile> usedFamilyFiles(const SessionState& state);

// Loads those of `needs` not loaded yet on the calling thread and adds them to the family lists.
// Empty, or the first problem naming the field and the file.
QString loadFamilyNeeds(const std::vector<FamilyFileNeed>& needs);

// The modules the session file at `path` names (familyFileNeeds of its JSON); empty when it
// cannot be read (loadSessionFile then says why).
std::vector<FamilyFileNeed> sessionFileNeeds(const QString& path);

// Loads every family of state.familyFiles that is not loaded with that hash, and every file
// family `state` uses without listing it (a hand-written session: loaded from its path). Empty,
// or the first problem naming the field and the file. The modules' checks run on the calling
// thread (a small probe input): the window loads them first off its thread (FamilyFileGate), so
// that here they are already loaded. A family loaded here joins the family lists even when a
// later check of the session refuses it.
QString loadSessionFamilies(const SessionState& state);

// The file families of the session file at `path` (its family_files, with its trained models to
// fall back on), loaded before the session is read: reading its training setup checks every
// family it names, and a file family must be there, as it was saved, by then. False with *error
// naming the session file; true when there is nothing to load or the file is not a session
// (loadSessionFile then says what is wrong).
bool preloadSessionFamilies(const QString& path, QString* error);

// Loads each file family among `families` that is not loaded yet, from its path as it is now (a
// preset that names one). Empty, or the first problem naming the file.
QString loadFileFamilies(const std::vector<std::string>& families);

}  // namespace poslab::ui
