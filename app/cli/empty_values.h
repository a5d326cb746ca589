#pragma once
// An option given with an empty value (`--seeds ""`, `--families=`) is refused in one line instead
// of being read as "not given" (the options' empty default), which ran with the preset's values.
#include <CLI/CLI.hpp>

namespace poslab::cli {

// Makes every subcommand of `app` refuse, right after its options are parsed and before its
// callback runs, an option or positional given with an empty value (poslab::InvalidArgument).
void refuseEmptyValues(CLI::App& app);

}  // namespace poslab::cli
