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

std::string draw_figure(const std::string& script, const std::filesystem::path& run) {
  const std::filesystem::path path = std::filesystem::path(kSourceDir) / "scripts" / script;
  if (!std::filesystem::exists("/usr/bin/python3"))
    return "no /usr/bin/python3: draw it later with /usr/bin/python3 scripts/" + script + " RUN";
  if (!std::filesystem::exists(path)) return path.string() + " is gone; figure not drawn";
  const std::string command =
      "/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1 && "
      "/usr/bin/python3 " +
      quoted(path.string()) + " " + quoted(run.string()) + " >/dev/null 2>&1";
  const int status = std::system(command.c_str());
  if (status == 0) return "";
  return "figure not drawn (Matplotlib missing for /usr/bin/python3, or " + script +
         " failed): draw it with /usr/bin/python3 scripts/" + script + " RUN";
}

}  // namespace ufl::results
