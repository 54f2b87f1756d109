// `cmake --install` (docs/install.md): ufl in PREFIX/bin with its figure scripts and the example
// configs in PREFIX/share/ufl, working from any folder.
#include <doctest/doctest.h>

#include "cli_support.hpp"

using namespace ufl::testing;
namespace fs = std::filesystem;

TEST_CASE("an installed ufl trains and shows a run from a folder outside the source tree") {
  TemporaryFolder prefix, work;
  const CommandResult installed =
      run_command("cmake --install " UFL_BUILD_DIR " --prefix " + prefix.path.string());
  INFO(installed.output);
  REQUIRE(installed.exit_code == 0);
  const fs::path ufl = prefix.path / "bin" / "ufl", share = prefix.path / "share" / "ufl";
  for (const fs::path& file :
       {ufl, share / "scripts" / "show_run.py", share / "scripts" / "head_structure.py",
        share / "scripts" / "panel_cap.py", share / "configs" / "section8" / "local.json",
        share / "configs" / "transformer" / "text.json"})
    CHECK_MESSAGE(fs::is_regular_file(file), file.string());

  // From a folder of its own, with the installed examples, as a user who never saw the sources.
  const std::string in_work =
      "cd " + work.path.string() + " && PATH=" + (prefix.path / "bin").string() + ":$PATH ";
  const CommandResult trained = run_command(
      in_work + "ufl train " + (share / "configs" / "section8" / "local.json").string() +
      " --out run" + kSmallRun);
  INFO(trained.output);
  REQUIRE(trained.exit_code == 0);
  CHECK(fs::is_regular_file(work.path / "run" / "metrics.json"));
  const CommandResult shown = run_command(in_work + "ufl show run");
  INFO(shown.output);
  CHECK(shown.exit_code == 0);
  CHECK(shown.output.find("run: complete") != std::string::npos);
  // The figure is drawn by the installed script, not by the source tree's.
  if (run_command("/usr/bin/python3 -c 'import matplotlib, numpy'").exit_code == 0) {
    CHECK(shown.output.find("drawing figures with " +
                            (share / "scripts" / "show_run.py").string()) != std::string::npos);
    CHECK(shown.output.find("wrote run/summary.png") != std::string::npos);
    CHECK(fs::is_regular_file(work.path / "run" / "summary.png"));
  }
  // Only the run was written where it ran.
  CHECK(std::distance(fs::directory_iterator(work.path), fs::directory_iterator()) == 1);
}
