// Config input a user gets wrong, end to end: the error blames where the value came from, and a
// key given twice is refused rather than silently taking the last value.
#include <doctest/doctest.h>

#include "cli_support.hpp"

using namespace ufl::testing;
namespace fs = std::filesystem;

TEST_CASE("--set dataset.noise=-1 blames --set, not the config file") {
  TemporaryFolder folder;
  const CommandResult result = run_ufl(
      "train configs/section8/local.json --set dataset.noise=-1 "
      "--out " +
      (folder / "run"));
  CHECK(result.exit_code == 2);
  CHECK(result.output == "ufl: error: --set: dataset.noise must be a number ≥ 0, got -1.0\n");
  CHECK_FALSE(fs::exists(folder / "run"));
  // The same value from the file blames the file.
  std::ofstream(folder / "noisy.json") << R"({"dataset": {"noise": -1}})";
  CHECK(run_ufl("train " + (folder / "noisy.json")).output ==
        "ufl: error: " + (folder / "noisy.json") +
            ": dataset.noise must be a number ≥ 0, got -1.0\n");
}

TEST_CASE("a key given twice in a config file is refused, naming the key and where") {
  TemporaryFolder folder;
  std::ofstream(folder / "twice.json")
      << "{\n  \"dataset\": {\"n\": 8,\n              \"n\": 16}\n}\n";
  const CommandResult result =
      run_ufl("train " + (folder / "twice.json") + " --out " + (folder / "run"));
  CHECK(result.exit_code == 2);
  CHECK(result.output == "ufl: error: " + (folder / "twice.json") +
                             ": key \"dataset.n\" is given twice (again at line 3, column 15); "
                             "keep one\n");
  CHECK_FALSE(fs::exists(folder / "run"));
  // At the top level, and for generate too.
  std::ofstream(folder / "seeds.json") << R"({"seed": 1, "dataset": {}, "seed": 2})";
  const CommandResult generate =
      run_ufl("generate " + (folder / "seeds.json") + " --out " + (folder / "data"));
  CHECK(generate.exit_code == 2);
  CHECK(generate.output.find("key \"seed\" is given twice (again at line 1, column 28)") !=
        std::string::npos);
  CHECK_FALSE(fs::exists(folder / "data"));
}
