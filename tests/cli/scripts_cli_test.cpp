// The scripts of scripts/ as a user runs them (docs/install.md, "Scripts"): every one answers
// --help with its usage and exit 0 before building or starting anything, and refuses an argument
// it does not take with exit 2; compare_runs.py says when nothing was compared; the heads report
// and the gate plot stay readable at the edges (n ≤ 16, γ next to 1).
#include <doctest/doctest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "token_support.hpp"

using namespace ufl::testing;
namespace fs = std::filesystem;

namespace {

// The scripts a user runs: every shell script under scripts/ but the sourced helpers of lib/, and
// every Python script with a main (not the modules the others import).
std::vector<fs::path> user_scripts() {
  std::vector<fs::path> scripts;
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(source_dir()) / "scripts")) {
    const fs::path& path = entry.path();
    if (!entry.is_regular_file() || path.parent_path().filename() == "lib") continue;
    if (path.extension() == ".sh" ||
        (path.extension() == ".py" &&
         read_text(path).find("if __name__ == \"__main__\":") != std::string::npos))
      scripts.push_back(path);
  }
  std::sort(scripts.begin(), scripts.end());
  return scripts;
}

// A folder of stand-ins for what a script could build or start with (cmake, ctest, apt-get,
// sbatch, …, and ufl itself through UFL_BIN): each writes its name to `called` and fails.
std::string stand_ins(const TemporaryFolder& folder) {
  const fs::path bin = folder.path / "bin";
  fs::create_directories(bin);
  for (const char* name : {"cmake", "ctest", "make", "apt-get", "dpkg-query", "sbatch", "squeue",
                           "slurmctld", "slurmd", "munged", "clang++", "ufl"}) {
    std::ofstream(bin / name) << "#!/bin/sh\necho " << name << " >> " << (folder / "called")
                              << "\nexit 99\n";
    fs::permissions(bin / name, fs::perms::owner_all);
  }
  return "PATH=" + bin.string() + ":$PATH UFL_BIN=" + (bin / "ufl").string();
}

std::string run_script_command(const fs::path& script) {
  return script.extension() == ".py" ? "/usr/bin/python3 " + script.string()
                                     : "bash " + script.string();
}

// A complete run of local.json into `out`, with extra flags.
void train_small(const std::string& out, const std::string& flags = "") {
  const CommandResult trained =
      run_ufl("train configs/section8/local.json --out " + out + kSmallRun + flags, kNoFigures);
  INFO(trained.output);
  REQUIRE(trained.exit_code == 0);
}

}  // namespace

TEST_CASE("every script answers --help with its usage, exit 0, building and starting nothing") {
  TemporaryFolder folder;
  const std::string environment = stand_ins(folder);
  const std::vector<fs::path> scripts = user_scripts();
  CHECK(scripts.size() >= 20);
  for (const fs::path& script : scripts) {
    CAPTURE(script.string());
    for (const char* help : {"--help", "-h"}) {
      const CommandResult result =
          run_command("(cd " + folder.path.string() + " && " + environment + " " +
                      run_script_command(script) + " " + help + " 2>/dev/null)");
      CHECK(result.exit_code == 0);
      CHECK(std::count(result.output.begin(), result.output.end(), '\n') >= 2);
    }
  }
  CHECK_MESSAGE(!fs::exists(folder / "called"), read_text(folder / "called"));
}

TEST_CASE("every script refuses an argument it does not take: exit 2, the usage and one reason") {
  TemporaryFolder folder;
  const std::string environment = stand_ins(folder);
  for (const fs::path& script : user_scripts()) {
    CAPTURE(script.string());
    // Standard error only: the usage and the reason.
    const CommandResult result =
        run_command("(cd " + folder.path.string() + " && " + environment + " " +
                    run_script_command(script) + " --no-such-flag > /dev/null)");
    CHECK(result.exit_code == 2);
    // The usage, then one line that names the script and what was wrong.
    CHECK(result.output.find("\n" + script.filename().string() + ": ") != std::string::npos);
  }
  // Scripts that take no arguments refuse any.
  for (const char* name :
       {"reproduce_section8.sh", "reproduce_transformer.sh", "reproduce_mixed.sh", "test.sh"}) {
    const CommandResult extra =
        run_command("(cd " + folder.path.string() + " && " + environment + " bash " + source_dir() +
                    "/scripts/" + name + " quick > /dev/null)");
    CHECK(extra.exit_code == 2);
    CHECK(extra.output.find(std::string(name) + ": unknown argument 'quick'") != std::string::npos);
  }
  CHECK_MESSAGE(!fs::exists(folder / "called"), read_text(folder / "called"));
}

TEST_CASE("compare_runs.py: exit 1 when nothing was compared or a run is on one side only") {
  TemporaryFolder folder;
  const std::string compare = "/usr/bin/python3 " + source_dir() + "/scripts/compare_runs.py ";
  fs::create_directories(folder.path / "empty");
  // A folder that is not there is a mistake in the command: exit 2, naming it.
  const CommandResult typo = run_command(compare + (folder / "empty") + " " + (folder / "typo"));
  CHECK(typo.exit_code == 2);
  CHECK(typo.output.find("compare_runs.py: " + (folder / "typo") + " is not a folder") !=
        std::string::npos);
  // Folders without runs: nothing was compared, which is no success.
  const CommandResult nothing =
      run_command(compare + (folder / "empty") + " " + (folder / "empty"));
  CHECK(nothing.exit_code == 1);
  CHECK(nothing.output.find("0 runs compared") != std::string::npos);
  CHECK(nothing.output.find("nothing compared") != std::string::npos);

  train_small(folder / "before/a");
  fs::create_directories(folder.path / "after");
  fs::copy(folder.path / "before/a", folder.path / "after/a", fs::copy_options::recursive);
  const CommandResult same = run_command(compare + (folder / "before") + " " + (folder / "after"));
  INFO(same.output);
  CHECK(same.exit_code == 0);
  CHECK(same.output.find("1 runs compared, 1 identical") != std::string::npos);

  // A run only before: missing after.
  fs::copy(folder.path / "before/a", folder.path / "before/b", fs::copy_options::recursive);
  const CommandResult missing =
      run_command(compare + (folder / "before") + " " + (folder / "after"));
  INFO(missing.output);
  CHECK(missing.exit_code == 1);
  CHECK(missing.output.find("b: MISSING in " + (folder / "after")) != std::string::npos);
  CHECK(missing.output.find("1 only before") != std::string::npos);
}

TEST_CASE("compare_runs.py lists a run's settings before its measurements, then how many more") {
  TemporaryFolder folder;
  train_small(folder / "before/run");
  train_small(folder / "after/run", " --seed 2");
  const CommandResult result =
      run_command("/usr/bin/python3 " + source_dir() + "/scripts/compare_runs.py " +
                  (folder / "before") + " " + (folder / "after"));
  INFO(result.output);
  CHECK(result.exit_code == 1);
  const std::string& text = result.output;
  const auto seed = text.find("config.json/seed"), params = text.find("params/"),
             metrics = text.find("metrics.json/");
  CHECK(seed != std::string::npos);
  CHECK(params != std::string::npos);
  CHECK(seed < params);
  CHECK((metrics == std::string::npos || params < metrics));
  // Eight differences, then the count of the rest.
  CHECK(text.find(" more") != std::string::npos);
}

TEST_CASE("head_structure_report.py at n = 16: no NaN column, the gap at the largest rank") {
  TemporaryFolder folder;
  const std::string corpus = write_tiny_corpus(folder), run = folder / "text";
  const CommandResult trained =
      run_ufl("train configs/transformer/text.json --set dataset.path=" + corpus + " --out " + run +
                  " --set train.steps=10" + kTinyTextRun,
              kNoFigures);
  INFO(trained.output);
  REQUIRE(trained.exit_code == 0);
  REQUIRE(fs::exists(run + "/heads.json"));
  const CommandResult report =
      run_command("/usr/bin/python3 " + source_dir() + "/scripts/head_structure_report.py " + run);
  INFO(report.output);
  CHECK(report.exit_code == 0);
  CHECK(report.output.find("nan") == std::string::npos);
  CHECK(report.output.find("k = 8 − full |") != std::string::npos);
}

TEST_CASE("the gate plot keeps a start γ next to 1 on the axis of the curves") {
  TemporaryFolder folder;
  std::ofstream(folder / "gates.py")
      << "import sys\n"
         "sys.path.insert(0, sys.argv[1])\n"
         "import matplotlib\n"
         "matplotlib.use('Agg')\n"
         "import matplotlib.pyplot as plt\n"
         "import numpy as np\n"
         "import show_run\n"
         "figure, axis = plt.subplots()\n"
         "trajectory = {'step': np.array([0, 10, 20]),\n"
         "              'block1/head1': np.array([0.99, 0.995, 0.999])}\n"
         "show_run.plot_gates(axis, trajectory, 1 - 1e-16)\n"
         "low = axis.get_ylim()[0]\n"
         "assert low > 1e-8, low\n"
         "print('lowest 1 - gamma drawn', low)\n";
  const CommandResult result =
      run_command("/usr/bin/python3 " + (folder / "gates.py") + " " + source_dir() + "/scripts");
  INFO(result.output);
  CHECK(result.exit_code == 0);
}
