#pragma once
// Runs another program (the figure scripts' Python) so that a stop request reaches it: unlike
// std::system, which ignores SIGINT in the caller until the child ends, the caller keeps its
// handlers, and a stop request (io/stop_request.hpp) ends the child at once.
#include <optional>
#include <string>
#include <vector>

namespace ufl::io {

// Runs `arguments` (arguments[0] is the program, searched on PATH when it has no '/') with its
// standard output and error sent to /dev/null, and waits for it. Returns its exit code (-1 when
// it could not start or was killed by a signal), or none when a stop was requested meanwhile: the
// child is then sent SIGTERM (SIGKILL after a second) and reaped before returning.
std::optional<int> run_stoppable(const std::vector<std::string>& arguments);

}  // namespace ufl::io
