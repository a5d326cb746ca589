#include "cli/empty_values.h"

#include <algorithm>
#include <string>

#include "util/error.h"

namespace poslab::cli {

namespace {
void checkGivenValues(const CLI::App& command) {
  for (const CLI::Option* option : command.get_options()) {
    if (option->count() == 0 || option->get_type_size() == 0) continue;  // not given, or a flag
    const auto& values = option->results();
    if (std::any_of(values.begin(), values.end(), [](const std::string& v) { return v.empty(); }))
      throw InvalidArgument(option->get_name() + " is given an empty value",
                            "give a value, or leave the option out for its default");
  }
}
}  // namespace

void refuseEmptyValues(CLI::App& app) {
  for (CLI::App* command : app.get_subcommands({}))
    command->parse_complete_callback([command] { checkGivenValues(*command); });
}

}  // namespace poslab::cli
