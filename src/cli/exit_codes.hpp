#pragma once

namespace ufl::cli {

// 0 success; 1 a failure that is not the user's input (disk full, bug); 2 bad input (config,
// flags, an existing run folder); 3 training diverged; 130 interrupted by SIGINT/SIGTERM.
enum ExitCode : int {
  kSuccess = 0,
  kFailure = 1,
  kBadInput = 2,
  kDiverged = 3,
  kInterrupted = 130
};

}  // namespace ufl::cli
