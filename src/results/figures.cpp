#include "results/figures.hpp"

#include <cstdlib>

#include "io/child_process.hpp"
#include "io/log.hpp"
#include "io/stop_request.hpp"
#include "ufl/version.hpp"

namespace ufl::results {

std::string figure_python() {
  const char* chosen = std::getenv("UFL_PYTHON");
  return chosen != nullptr && *chosen != '\0' ? chosen : "/usr/bin/python3";
}

std::filesystem::path scripts_folder() {
  std::error_code ignored;
  // This process's binary (Linux), and the scripts installed with it at the same relative place.
  const std::filesystem::path binary = std::filesystem::read_symlink("/proc/self/exe", ignored);
  if (!binary.empty()) {
    const std::filesystem::path installed =
        (binary.parent_path() / kScriptsFromBinary).lexically_normal();
    if (std::filesystem::is_regular_file(installed / "show_run.py", ignored)) return installed;
  }
  return std::filesystem::path(kSourceDir) / "scripts";
}

std::string draw_figure(const std::string& script, const std::filesystem::path& run) {
  const std::filesystem::path path = scripts_folder() / script;
  const std::string python = figure_python();
  const std::string later = ": draw it later with " + python + " " + path.string() + " RUN";
  std::error_code ignored;
  if (!std::filesystem::exists(python, ignored))
    return "figure not drawn: there is no " + python + later;
  if (!std::filesystem::exists(path, ignored)) return path.string() + " is gone; figure not drawn";
  // A stop request (Ctrl-C, SIGTERM) ends the script and this phase (docs/running.md).
  auto run_script = [](const std::vector<std::string>& arguments) {
    const std::optional<int> status = io::run_stoppable(arguments);
    if (!status) throw interrupt::Interrupted("drawing the figures");
    return *status;
  };
  if (run_script({python, "-c", "import matplotlib, numpy"}) != 0)
    return "figure not drawn: Matplotlib (or NumPy) is missing for " + python +
           " (apt-get install python3-matplotlib python3-numpy, or bash scripts/install_deps.sh)";
  spdlog::info("drawing figures with {} …", path.string());
  const int status = run_script({python, path.string(), run.string()});
  if (status == 0) return "";
  return "figure not drawn: " + path.string() + " failed (exit " + std::to_string(status) +
         "); run " + python + " " + path.string() + " " + run.string() + " to see why";
}

}  // namespace ufl::results
