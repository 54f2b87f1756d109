#include "results/figures.hpp"

#include <sys/wait.h>

#include <cstdlib>

#include "ufl/version.hpp"

namespace ufl::results {
namespace {

// 'text' with every ' escaped, for a POSIX shell.
std::string quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

std::string figure_python() {
  const char* chosen = std::getenv("UFL_PYTHON");
  return chosen != nullptr && *chosen != '\0' ? chosen : "/usr/bin/python3";
}

std::string draw_figure(const std::string& script, const std::filesystem::path& run) {
  const std::filesystem::path path = std::filesystem::path(kSourceDir) / "scripts" / script;
  const std::string python = figure_python();
  const std::string later = ": draw it later with " + python + " scripts/" + script + " RUN";
  std::error_code ignored;
  if (!std::filesystem::exists(python, ignored))
    return "figure not drawn: there is no " + python + later;
  if (!std::filesystem::exists(path, ignored)) return path.string() + " is gone; figure not drawn";
  const std::string check = quoted(python) + " -c 'import matplotlib, numpy' >/dev/null 2>&1";
  if (std::system(check.c_str()) != 0)
    return "figure not drawn: Matplotlib (or NumPy) is missing for " + python +
           " (apt-get install python3-matplotlib python3-numpy, or bash scripts/install_deps.sh)";
  const std::string command = quoted(python) + " " + quoted(path.string()) + " " +
                              quoted(run.string()) + " >/dev/null 2>&1";
  const int status = std::system(command.c_str());
  if (status == 0) return "";
  return "figure not drawn: scripts/" + script + " failed (exit " +
         std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + "); run " + python +
         " scripts/" + script + " " + run.string() + " to see why";
}

}  // namespace ufl::results
