#pragma once
// Turns exceptions into one line on stderr and an exit code (cli/exit_codes.hpp).
#include <functional>

namespace ufl::cli {

// Thrown for problems with the user's input that have no type of their own (exit code 2).
struct BadInput : std::runtime_error {
  using std::runtime_error::runtime_error;
};

int report_errors(const std::function<int()>& command);

}  // namespace ufl::cli
