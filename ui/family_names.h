// How a family is named where room is short: plot legends, list entries, run choosers. A built-in
// family by its id ("rope"); a family loaded from a file, whose id is file:PATH and may be a long
// path, by its module's title ("Damped RoPE"), or by its file name when it has no title, is not
// loaded, or another loaded family has the same title. The full id goes in a tool tip, and the id
// itself stays what the setup, sessions and the command line use.
#pragma once

#include <QString>

#include <string>

namespace poslab::ui {

// "rope"; "Damped RoPE"; "Damped RoPE (mine.pt)" when two loaded files share that title.
QString familyShortName(const std::string& id);
// The tool tip: for a file family its title, the full path and the content hash; else the id.
QString familyToolTip(const std::string& id);

}  // namespace poslab::ui
